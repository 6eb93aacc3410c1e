"""The records of one ``ask`` run: trace events, the gate decision, sources, checked claims, and
the :class:`AskReport` that the CLI prints, the dashboard shows and the exports carry.

A report carries everything needed to re-check it later without the run that made it: each
claim's quote with offsets into the stored unit text, the unit's content hash, scores, scorer and
threshold, the gate decision, the trace, model ids and the corpus version.
"""

from __future__ import annotations

import html
import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from anchor_core.models import utcnow
from anchor_core.safe import md_code, md_escape
from anchor_core.text import count

Stage = Literal["retrieve", "hop", "gate", "rewrite", "write", "decompose", "anchor", "report"]
RefusalCode = Literal["no_evidence", "not_answered", "term_missing", "writer_refused", "all_unsupported",
                      "bad_question"]

REFUSAL_TEXT: dict[str, str] = {
    "no_evidence": "no relevant evidence was retrieved",
    "not_answered": "evidence was retrieved but it does not answer the question",
    "term_missing": "a key term of the question is never mentioned in the corpus",
    "writer_refused": "the writer refused after reading the sources",
    "all_unsupported": "every claim of the drafted answer failed verification",
    "bad_question": "the question cannot be processed",
}


class TraceEvent(BaseModel):
    """One step of the pipeline, as shown under "what it did" and live in the dashboard."""

    stage: Stage
    message: str
    """One human line: ``retrieved 5 chunks, best score 0.74``."""
    decision: str = ""
    """What the stage decided, when it decides: ``pass``, ``borderline``, ``rewrite``, ``refuse``,
    ``fallback``."""
    data: dict[str, Any] = Field(default_factory=dict)
    ms: float = 0.0


class GateDecision(BaseModel):
    verdict: Literal["pass", "borderline", "weak", "refuse"]
    score: float
    """The gate's evidence score in [0, 1] (a calibrated combination of its signals, not a probability
    of correctness)."""
    reason: str
    code: RefusalCode | None = None
    signals: dict[str, Any] = Field(default_factory=dict)
    judge: str = ""
    """Who decided a borderline case: ``offline`` or the LLM model id."""
    thresholds: dict[str, float] = Field(default_factory=dict)


class Source(BaseModel):
    """One retrieved chunk as the answer cites it: ``[n]``."""

    n: int
    chunk_id: str
    unit_id: str
    part: str | None = None
    label: str
    """Display label: ``Annex III(4)``, ``Article 3(65)``."""
    heading: str = ""
    doc_id: str
    document: str = ""
    page: int | None = None
    start: int
    """Offsets of the chunk in the stored unit text."""
    end: int
    text: str
    score: float
    direct: bool = True
    path: str = ""
    """Reference path for hop hits: ``annex-3(4) ← article-6(2)``."""
    followed_from: str | None = None
    """The label of the source whose reference led here (``Annex III(4)``)."""
    unit_sha256: str = ""


class ClaimAnchor(BaseModel):
    """Where a claim is supported: ``unit.text[start:end] == quote`` for the stored unit."""

    source: int
    """The ``n`` of the :class:`Source` holding the quote."""
    unit_id: str
    part: str | None = None
    doc_id: str = ""
    page: int | None = None
    quote: str
    start: int
    end: int
    score: float
    method: str
    threshold: float
    unit_sha256: str = ""


class CheckedClaim(BaseModel):
    text: str
    cited: list[int] = Field(default_factory=list)
    """The source numbers the answer's markers give for this claim."""
    supported: bool
    verdict: Literal["supported", "partially_supported", "unsupported"]
    flags: list[str] = Field(default_factory=list)
    """Drift flags (``number_mismatch`` ...) and ``wrong_source`` when the marker names a source
    that does not hold the support."""
    reasons: list[str] = Field(default_factory=list)
    atoms: list[str] = Field(default_factory=list)
    anchor: ClaimAnchor | None = None


class AskReport(BaseModel):
    kind: Literal["ask"] = "ask"
    question: str
    corpus: str
    corpus_version: str = ""
    refused: bool
    reason: str = ""
    """Why it refused (empty when it answered)."""
    reason_code: RefusalCode | None = None
    answer: str = ""
    claims: list[CheckedClaim] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    gate: GateDecision | None = None
    trace: list[TraceEvent] = Field(default_factory=list)
    models: dict[str, str] = Field(default_factory=dict)
    """``embedder``, ``scorer``, ``writer``, ``judge``, ``decomposer``: ids of what ran."""
    settings: dict[str, Any] = Field(default_factory=dict)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    created_at: str = Field(default_factory=lambda: utcnow().isoformat())
    notes: list[str] = Field(default_factory=list)
    """Visible notes such as ``LLM unreachable: fell back to the extractive writer``."""

    @property
    def checked(self) -> int:
        return len(self.claims)

    @property
    def unsupported(self) -> int:
        return sum(not c.supported for c in self.claims)

    @property
    def verified_fraction(self) -> float:
        return sum(c.supported for c in self.claims) / len(self.claims) if self.claims else 0.0

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, indent=2)

    def to_text(self) -> str:
        """The CLI rendering: answer, verification line, sources, what it did."""
        out: list[str] = []
        if self.refused:
            out.append(f"Refused: {self.reason}")
        else:
            out.append(self.answer)
            out.append(f"checked {count(self.checked, 'statement')}, {self.unsupported} not supported")
            for i, c in enumerate(self.claims, 1):
                if not c.supported or c.flags:
                    why = "; ".join(c.reasons[:2]) or ", ".join(c.flags)
                    out.append(f"  ! claim {i} {c.verdict}: {why}")
        if self.sources:
            out.append("sources")
            for s in self.sources:
                where = (f" {s.document}" if s.document else "") + (f" p.{s.page}" if s.page else "")
                follow = f" (followed from {s.followed_from})" if s.followed_from else ""
                snippet = " ".join(s.text.split())[:90]
                out.append(f"  [{s.n}] {s.label:<16}{where} score {s.score:.2f}{follow}  {snippet}…")
        out.append("what it did")
        for e in self.trace:
            out.append(f"  {e.stage}: {e.message}")
        for n in self.notes:
            out.append(f"  note: {n}")
        return "\n".join(out)

    def to_markdown(self) -> str:
        m, code = md_escape, md_code
        lines = [f"# {m(self.question, inline=True)}", "",
                 f"Corpus {code(self.corpus)} version {code(self.corpus_version)} · {m(self.created_at)}", ""]
        if self.refused:
            lines += [f"**Refused** ({m(str(self.reason_code))}): {m(self.reason)}", ""]
        else:
            lines += [m(self.answer), "",
                      f"**Checked {count(self.checked, 'statement')}, {self.unsupported} not supported.**", ""]
            lines.append("## Claims")
            for i, c in enumerate(self.claims, 1):
                mark = {"supported": "✅", "partially_supported": "⚠️", "unsupported": "❌"}[c.verdict]
                lines.append(f"{i}. {mark} {m(c.text, inline=True)}")
                if c.anchor:
                    a = c.anchor
                    page = f", page {a.page}" if a.page else ""
                    part = m(f"({a.part})") if a.part else ""
                    lines.append(f"   - {code(a.unit_id)}{part}{page}, characters "
                                 f"{a.start}–{a.end}, score {a.score:.2f} ({m(a.method)}, threshold "
                                 f"{a.threshold:.2f}): “{m(a.quote, inline=True)}”")
                for r in c.reasons:
                    lines.append(f"   - {m(r, inline=True)}")
            lines.append("")
        if self.sources:
            lines.append("## Sources")
            for s in self.sources:
                follow = f" — followed from {m(s.followed_from, inline=True)}" if s.followed_from else ""
                lines.append(f"- \\[{s.n}\\] **{m(s.label, inline=True)}** score {s.score:.2f}{follow}: "
                             f"{m(' '.join(s.text.split())[:300])}")
            lines.append("")
        lines.append("## What it did")
        lines += [f"- {m(e.stage)}: {m(e.message, inline=True)}" for e in self.trace]
        lines += [f"- note: {m(n, inline=True)}" for n in self.notes]
        lines += ["", "Models: " + ", ".join(f"{m(k)} {code(v)}" for k, v in self.models.items())]
        return "\n".join(lines) + "\n"

    def to_html(self) -> str:
        e = html.escape
        parts = [f"<h1>{e(self.question)}</h1>",
                 f"<p class='meta'>corpus {e(self.corpus)} · version {e(self.corpus_version)} · "
                 f"{e(self.created_at)}</p>"]
        if self.refused:
            parts.append(f"<p class='refused'><strong>Refused</strong>: {e(self.reason)}</p>")
        else:
            parts.append(f"<p class='answer'>{e(self.answer)}</p>")
            parts.append(f"<p>Checked {count(self.checked, 'statement')}, {self.unsupported} not supported.</p><ol>")
            for c in self.claims:
                q = ""
                if c.anchor:
                    a = c.anchor
                    q = (f"<blockquote>{e(a.quote)}</blockquote><small>{e(a.unit_id)} "
                         f"{'p.' + str(a.page) + ' ' if a.page else ''}[{a.start}:{a.end}] score {a.score:.2f} "
                         f"({e(a.method)})</small>")
                why = "".join(f"<li>{e(r)}</li>" for r in c.reasons)
                parts.append(f"<li class='{c.verdict}'>{e(c.text)} <em>{c.verdict}</em>{q}<ul>{why}</ul></li>")
            parts.append("</ol>")
        parts.append("<h2>Sources</h2><ol>")
        for s in self.sources:
            follow = f" (followed from {e(s.followed_from)})" if s.followed_from else ""
            parts.append(f"<li value='{s.n}'><strong>{e(s.label)}</strong> score {s.score:.2f}{follow}"
                         f"<div>{e(s.text)}</div></li>")
        parts.append("</ol><h2>What it did</h2><ul>")
        parts += [f"<li>{e(t.stage)}: {e(t.message)}</li>" for t in self.trace]
        parts.append("</ul>")
        style = ("body{font-family:sans-serif;margin:2em;max-width:60em}.supported em{color:#070}"
                 ".unsupported em{color:#a00}.partially_supported em{color:#a60}.refused{color:#a00}"
                 "blockquote{margin:.2em 0;padding-left:.6em;border-left:3px solid #ccc}")
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{e(self.question)}</title>"
                f"<style>{style}</style></head><body>{''.join(parts)}</body></html>\n")
