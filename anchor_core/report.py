"""The one record of a run: :class:`Report`, for ``ask`` and ``verify`` alike.

A report carries everything needed to re-check it later without the run that made it: each
claim's quote with offsets into the stored text (a unit for ask, a given source for verify), that
text's SHA-256, scores, scorer and threshold, the gate decision, the trace, model ids, the corpus
version, and the reviewers' marks. The CLI, the dashboard, the reports database and every export
(:mod:`anchor_core.render`) hold this same record.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, computed_field, field_validator

from anchor_core.models import utcnow
from anchor_core.pages import page_in

if TYPE_CHECKING:
    from anchor_core.assessment import Assessment

Stage = Literal["retrieve", "hop", "gate", "rewrite", "write", "decompose", "anchor", "report"]
RefusalCode = Literal["no_evidence", "not_answered", "term_missing", "writer_refused", "all_unsupported",
                      "bad_question"]
Verdict = Literal["supported", "partially_supported", "contradicted", "not_found"]
"""The claim check's answer: the sources state it (``supported``), state only part of it
(``partially_supported``), state the opposite (``contradicted``: a negation, another modality,
number, date or actor, a dropped condition; ``CheckedClaim.contradiction`` quotes that sentence), or
say nothing that carries it (``not_found``). Reports saved before said ``unsupported`` for the
last two; they read back as ``not_found``."""
Status = Literal["supported", "flagged", "contradicted", "not_found"]
Mark = Literal["accepted", "rejected", "needs_work"]
MARKS: dict[str, str] = {"accepted": "accepted", "rejected": "rejected", "needs_work": "needs work"}

REFUSAL_TEXT: dict[str, str] = {
    "no_evidence": "no relevant evidence was retrieved",
    "not_answered": "evidence was retrieved but it does not answer the question",
    "term_missing": "a key term of the question is never mentioned in the corpus",
    "writer_refused": "the writer refused after reading the sources",
    "all_unsupported": "every claim of the drafted answer failed verification",
    "bad_question": "the question cannot be processed",
}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


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


class Relevance(BaseModel):
    """Does the answer address the question: does it hold the asked kind of answer (a date, a
    duration, an amount, a list of bodies, yes/no, ...) about the asked focus? Separate from whether
    each claim is supported: a verbatim quote of a side provision is supported and irrelevant."""

    addressed: bool
    kind: str = ""
    """The kind of answer the question asks for (``duration``, ``amount``, ``yes_no``, ...)."""
    focus: str = ""
    """What the question is about, e.g. ``retention period for CCTV footage``."""
    reason: str = ""
    """Why not, in the reader's words: ``the sources describe notified bodies but state no fee``."""
    claims: list[bool] = Field(default_factory=list)
    """Per claim (same order as ``Report.claims``): does this claim carry the asked kind about the focus."""
    method: str = ""


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
    """One text the claims were checked against, cited as ``[n]``: a retrieved chunk of a stored
    unit (ask) or a given source, whole (verify: ``unit_id`` is the source id, ``start`` 0)."""

    n: int
    chunk_id: str
    unit_id: str
    part: str | None = None
    label: str
    """Display label: ``Annex III(4)``, ``Article 3(65)``, or the source id."""
    heading: str = ""
    doc_id: str
    document: str = ""
    page: int | None = None
    start: int
    """Offsets of the chunk in the stored unit text."""
    end: int
    text: str
    score: float = 0.0
    direct: bool = True
    path: str = ""
    """Reference path for hop hits: ``annex-3(4) ← article-6(2)``."""
    followed_from: str | None = None
    """The label of the source whose reference led here (``Article 6(2)``); always one of the sources."""
    reference: str = ""
    """How that source writes the reference that led here (``Annex III``), or the reference to another part of
    its own unit that it was read through (``paragraph 1``, whose own reference led here)."""
    named: str = ""
    """The reference as the question wrote it when the question names this source (``Annex III``)."""
    unit_sha256: str = ""
    pages: list[tuple[int, int]] = Field(default_factory=list)
    """Where the pages of a paged document (PDF) begin in the unit text, as ``(offset, page)``, from the page
    ``start`` is on to the last that begins before ``end``; empty when unpaged (then :attr:`page` is all there
    is). A quote's page is read from it (:meth:`page_at`): a chunk that starts on page 6 may quote page 7."""

    @classmethod
    def given(cls, n: int, source_id: str, text: str, pages: Sequence[int] = ()) -> Source:
        """A verify source: the whole text, which is also the text its offsets refer to; ``pages``: the offsets
        where pages 1, 2, ... begin when the text was read from a paged document."""
        marks = [(at, i) for i, at in enumerate(pages, start=1)]
        return cls(n=n, chunk_id=source_id, unit_id=source_id, label=source_id, doc_id=source_id, start=0,
                   end=len(text), text=text, unit_sha256=sha256(text), page=1 if marks else None, pages=marks)

    def page_at(self, offset: int) -> int | None:
        """The page that unit offset ``offset`` is on (:attr:`page` when the source has no page marks)."""
        return page_in(self.pages, offset, self.page)

    def span_pages(self, start: int, end: int) -> dict[str, int | None]:
        """``page`` and ``page_end`` of a quote at unit offsets ``[start, end)``, as :class:`ClaimAnchor` takes
        them (``page_end`` only when the quote crosses a page break)."""
        first, last = self.page_at(start), self.page_at(max(start, end - 1))
        return {"page": first, "page_end": last if last != first else None}


class ClaimAnchor(BaseModel):
    """Where a claim is supported: ``text[start:end] == quote`` for the stored unit (or given source)."""

    source: int
    """The ``n`` of the :class:`Source` holding the quote."""
    unit_id: str
    part: str | None = None
    doc_id: str = ""
    page: int | None = None
    """The page the quote begins on (PDF sources)."""
    page_end: int | None = None
    """The page it ends on when that is another (a quote across a page break); ``None`` otherwise."""
    quote: str
    start: int
    end: int
    score: float
    method: str
    threshold: float
    unit_sha256: str = ""
    flags: list[str] = Field(default_factory=list)

    @property
    def where_on_pages(self) -> str:
        """``page 7``, ``pages 6–7`` across a break, or ``""`` for an unpaged source."""
        if not self.page:
            return ""
        return f"pages {self.page}–{self.page_end}" if self.page_end else f"page {self.page}"


class Atom(BaseModel):
    """One atomic part of a claim and where it is anchored (a claim checked whole is its own atom)."""

    text: str
    supported: bool = False
    anchor: ClaimAnchor | None = None
    reasons: list[str] = Field(default_factory=list)
    """What the scorer says of the span: ``quoted verbatim``, ``amount 35 000 000 not in the quoted span``."""


class CheckedClaim(BaseModel):
    text: str
    cited: list[int] = Field(default_factory=list)
    """The source numbers the answer's markers give for this claim."""
    line: int | None = None
    """Line of the answer the claim starts on (verify)."""
    supported: bool
    verdict: Verdict
    contradiction: ClaimAnchor | None = None
    """With ``verdict == "contradicted"``: the source sentence that states otherwise, at exact offsets."""
    flags: list[str] = Field(default_factory=list)
    """Drift flags (``number_mismatch`` ...) and ``wrong_source`` when the marker names a source
    that does not hold the support."""
    reasons: list[str] = Field(default_factory=list)
    atoms: list[Atom] = Field(default_factory=list)
    anchor: ClaimAnchor | None = None
    """The claim's anchor: its own, or its best-scoring atom's."""

    @field_validator("verdict", mode="before")
    @classmethod
    def _legacy_verdict(cls, v: Any) -> Any:  # before three-way verdicts, "not supported" was one value
        return "not_found" if v == "unsupported" else v

    @field_validator("atoms", mode="before")
    @classmethod
    def _atom_texts(cls, v: Any) -> Any:  # reports saved before atoms had anchors listed their texts
        return [{"text": a} if isinstance(a, str) else a for a in v] if isinstance(v, list) else v

    @property
    def status(self) -> Status:
        """``flagged`` when supported with drift flags, or only partly supported."""
        if self.verdict in ("contradicted", "not_found"):
            return self.verdict
        return "flagged" if self.verdict == "partially_supported" or self.flags else "supported"


class Review(BaseModel):
    claim: int
    """1-based claim number."""
    verdict: Mark
    comment: str = ""
    reviewer: str
    at: str = Field(default_factory=lambda: utcnow().isoformat(timespec="seconds"))


class Report(BaseModel):
    """An ask or verify run; ``id`` is set once it is saved in the reports database."""

    kind: Literal["ask", "verify"]
    id: str = ""
    question: str = ""
    corpus: str = ""
    corpus_version: str = ""
    refused: bool = False
    reason: str = ""
    """Why it refused (empty when it answered)."""
    reason_code: RefusalCode | None = None
    answer: str = ""
    claims: list[CheckedClaim] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    gate: GateDecision | None = None
    relevance: Relevance | None = None
    """Whether the answer addresses the question (ask runs; ``None``: not checked, never a pass)."""
    trace: list[TraceEvent] = Field(default_factory=list)
    models: dict[str, str] = Field(default_factory=dict)
    """``embedder``, ``scorer``, ``writer``, ``judge``, ``decomposer``: ids of what ran."""
    threshold: float | None = None
    """The scorer's calibrated threshold (each anchor repeats the one it was judged by)."""
    settings: dict[str, Any] = Field(default_factory=dict)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    created_at: str = Field(default_factory=lambda: utcnow().isoformat())
    notes: list[str] = Field(default_factory=list)
    """Visible notes such as ``LLM unreachable: fell back to the extractive writer``."""
    reviews: list[Review] = Field(default_factory=list)
    """Every reviewer mark, oldest first; the latest per claim overrides the automatic verdict."""

    @property
    def checked(self) -> int:
        return len(self.claims)

    @property
    def unsupported(self) -> int:
        return sum(not c.supported for c in self.claims)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verified_fraction(self) -> float:
        """The share of claims the automatic support check supports; not the run's headline
        (:meth:`assessment`), and unchanged by reviewer marks. ``verify --fail-under`` compares it."""
        return round(sum(c.supported for c in self.claims) / len(self.claims), 4) if self.claims else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """Answered, with claims, every one supported (the automatic support check alone; the headline is
        :meth:`assessment`, which also weighs quotes, relevance and reviewer marks)."""
        return not self.refused and bool(self.claims) and all(c.supported for c in self.claims)

    @property
    def title(self) -> str:
        if self.kind == "ask":
            return _title(self.question)
        plain = re.sub(r"<\s*/?\s*cite\b[^>]*>", "", self.answer).strip()
        return _title(plain.splitlines()[0] if plain else "(empty answer)")

    @property
    def latest_reviews(self) -> dict[int, Review]:
        return {r.claim: r for r in self.reviews}

    def assessment(self) -> Assessment:
        """The honest state of the run: faithfulness, relevance and support checked separately, the
        reviewers' latest marks on top (:mod:`anchor_core.assessment`). What every summary headlines."""
        from anchor_core.assessment import assess, checks

        return assess(checks(self), self.latest_reviews)

    def source(self, n: int) -> Source | None:
        return next((s for s in self.sources if s.n == n), None)

    def where(self, c: CheckedClaim) -> str:
        """The unit label (ask) or source id (verify) holding a claim's quote."""
        a = c.anchor
        if a is None:
            return ""
        s = self.source(a.source)
        return s.label if s else (f"{a.unit_id}({a.part})" if a.part else a.unit_id)

    def path(self, c: CheckedClaim) -> str:
        """The reference path that led to the claim's source (ask hop hits), else empty."""
        s = self.source(c.anchor.source) if c.anchor else None
        return s.path if s else ""


def _title(text: str, width: int = 90) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def from_legacy(kind: str, data: dict[str, Any], *, run_id: str = "", reviews: list | None = None) -> Report:
    """A report saved before ask and verify shared this record: an ask report (the same fields) or a
    verify run ``{"report": {...}, "sources": {id: text}}``."""
    if kind == "ask":
        return Report.model_validate({**data, "kind": "ask", "id": run_id, "reviews": reviews or []})
    rep, texts = data.get("report", data), data.get("sources", {})
    sources = [Source.given(n, sid, texts.get(sid, "")) for n, sid in enumerate(rep.get("sources", {}), 1)]
    for s in sources:
        s.unit_sha256 = rep["sources"][s.unit_id]
    number = {s.unit_id: s.n for s in sources}
    claims = []
    for c in rep.get("claims", []):
        atoms = []
        for a in c.get("atoms", []):
            q = a.get("anchor")
            sid = a.get("source_id") or ""
            anchor = None if q is None else ClaimAnchor(
                source=number.get(sid, 0), unit_id=sid, quote=q["quote"], start=q["start"], end=q["end"],
                score=q["score"], method=q["method"], threshold=q["threshold"], flags=q.get("flags", []),
                unit_sha256=rep["sources"].get(sid, ""))
            atoms.append(Atom(text=a["text"], supported=a.get("supported", False), anchor=anchor))
        found = [a.anchor for a in atoms if a.anchor is not None]
        claims.append(CheckedClaim(
            text=c["text"], line=c.get("line"), cited=[number[i] for i in c.get("cite_ids", []) if i in number],
            supported=c["verdict"] == "supported", verdict=c["verdict"], reasons=[c.get("reason", "")],
            flags=sorted({f for a in found for f in a.flags}), atoms=atoms,
            anchor=max(found, key=lambda a: a.score) if found else None))
    return Report(kind="verify", id=run_id, answer=rep.get("answer", ""), claims=claims, sources=sources,
                  models={"scorer": rep.get("scorer", ""), "embedder": rep.get("embedder") or "none"},
                  threshold=rep.get("threshold"), created_at=rep.get("created_at", utcnow().isoformat()),
                  notes=[rep["note"]] if rep.get("note") else [], reviews=reviews or [])
