"""Render a :class:`~anchor_core.report.Report` as CLI text, Markdown, JSON, HTML or PDF, and read
any export back. The CLI, the dashboard and the reports database all render through here.

Every export format carries the complete record as JSON (the JSON export is it; Markdown holds it
in an HTML comment at the end, HTML in a ``<script type="application/json">`` element, PDF as an
attached file ``anchor-report.json``), so :func:`read_export` restores the run — quotes, offsets,
text hashes, scores, thresholds, gate signals, model ids, corpus version and every reviewer mark —
from whichever file was kept. The human part of each format shows the same facts. Every text of a
run is escaped on the way out (:func:`~anchor_core.safe.md_escape`, :func:`html.escape`,
:func:`~anchor_core.safe.json_for_html`): a source sentence holding ``<script>`` or
``![x](http://…)`` shows as those characters.

>>> data = export(report, "pdf")                # doctest: +SKIP
>>> read_export(data).claims[0].anchor.quote    # doctest: +SKIP
'AI systems referred to in Annex III shall be considered to be high-risk.'
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from anchor_core.assessment import Assessment, ClaimState
from anchor_core.errors import AnchorError
from anchor_core.models import utcnow
from anchor_core.report import MARKS, CheckedClaim, Report, from_legacy
from anchor_core.safe import json_for_html, md_code, md_escape
from anchor_core.text import count

FORMAT = "anchor-report"
FORMAT_VERSION = 2
"""2: the record is the report itself (one kind for ask and verify); 1: ``{"run": {"ask"|"verify": …}}``."""
FORMATS: dict[str, tuple[str, str]] = {
    "markdown": ("md", "text/markdown"),
    "json": ("json", "application/json"),
    "html": ("html", "text/html"),
    "pdf": ("pdf", "application/pdf"),
}
SUFFIXES = {"." + ext: fmt for fmt, (ext, _) in FORMATS.items()}
STATUS_MARK = {"supported": "✅ supported", "flagged": "⚠️ flagged", "contradicted": "⛔ contradicted",
               "not_found": "❌ not found"}
STATE_MARK = {"verified": "✅", "unconfirmed": "⚠️", "not_verified": "❌", "refused": "⛔"}
REVIEW_MARK = {"rejected": "🚫", "needs_work": "✏️"}
_MD_OPEN, _MD_CLOSE = "<!-- anchor-report-json", "-->"
_FONT_CANDIDATES = [Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
                    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
                    Path("/Library/Fonts/DejaVuSans.ttf"), Path("C:/Windows/Fonts/DejaVuSans.ttf")]


class ExportError(AnchorError):
    pass


def payload(report: Report) -> dict[str, Any]:
    """The exported record: the report, and beside it the assessment its headline comes from (derived
    from the report, so reading an export back recomputes it rather than trusting it)."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION,
            "exported_at": utcnow().isoformat(timespec="seconds"), **report.model_dump(mode="json"),
            "assessment": report.assessment().model_dump(mode="json")}


def to_json(report: Report) -> str:
    return json.dumps(payload(report), ensure_ascii=False, indent=2)


def _embedded_json(report: Report) -> str:
    # No ``<``, ``>`` or ``&`` in it: the record can never close the comment or script holding it.
    return json_for_html(payload(report))


def filename(report: Report, fmt: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", report.title.lower()).strip("-")[:40] or report.kind
    run_id = re.sub(r"[^A-Za-z0-9_-]+", "", report.id)[:64] or "run"  # an imported id may hold anything
    return f"anchor-{report.kind}-{slug}-{run_id}.{FORMATS[fmt][0]}"


def format_for(path: Path) -> str:
    """The export format a file name asks for (``.md``, ``.html``, ``.pdf``; JSON otherwise)."""
    return SUFFIXES.get(path.suffix.lower(), "json")


def export(report: Report, fmt: str) -> bytes:
    """The report in ``fmt`` (``markdown``, ``json``, ``html`` or ``pdf``) as bytes ready to save."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    if fmt == "pdf":
        return to_pdf(report)
    if fmt == "markdown":
        return to_markdown(report).encode()
    return (to_json(report) if fmt == "json" else to_html(report)).encode()


# -- the facts every format shows -------------------------------------------------------------

_CITE_TAG = re.compile(r"<\s*/?\s*cite\b[^>]*>", re.I)
_SOURCE_MARK = re.compile(r"(\[\d+(?:,\s*\d+)*\])[ \t]+(?=\S)")


def answer_segments(r: Report) -> list[tuple[str, int | None]]:
    """The answer as a reader sees it, in order: ``(text, claim number)`` where the text is claim
    ``n``'s own sentence and ``(text, None)`` between claims. ``<cite>`` tags are dropped (the claim
    markers take their place) and an answer made of several quotes gets one paragraph per quote:
    each line of an ask answer outside a quotation (the extractive writer puts one quote per line)
    becomes a paragraph, and so does the text after a source marker such as ``[5]`` followed by
    more text on the same line (answers saved before quotes had their own lines). A claim whose
    text is not found in the answer (it was reworded when split) gets no segment; it is listed
    with the claims.

    >>> answer_segments(report)                    # doctest: +SKIP
    [('Logging is required.', 1), (' [2]', None)]
    """
    text = _CITE_TAG.sub("", r.answer).strip()
    if r.kind == "ask":
        text = _SOURCE_MARK.sub(lambda m: m.group(1) + "\n\n", _line_paragraphs(text))
    out: list[tuple[str, int | None]] = []
    at = 0
    for i, c in enumerate(r.claims, 1):
        claim = c.text.strip()
        pos = text.find(claim, at) if claim else -1
        if pos < 0:
            continue
        if pos > at:
            out.append((text[at:pos], None))
        out.append((claim, i))
        at = pos + len(claim)
    if at < len(text):
        out.append((text[at:], None))
    return out


def _line_paragraphs(text: str) -> str:
    """Every line break outside a “quotation” becomes a paragraph break; a quote's own line breaks
    (RFC text keeps them) stay, so the quote is still the stored characters."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "“":
            depth += 1
        elif ch == "”" and depth:
            depth -= 1
        out.append("\n\n" if ch == "\n" and depth == 0 else ch)
    return re.sub(r"\n{3,}", "\n\n", "".join(out))


def plain_answer(r: Report) -> str:
    """The answer's text with a marker ``(claim 1)`` after each claim, for the document formats."""
    return "".join(f"{t} (claim {n})" if n else t for t, n in answer_segments(r))



def header(r: Report, a: Assessment | None = None) -> list[tuple[str, str]]:
    rows = [("run", r.id or "not saved"), ("kind", r.kind), ("created", r.created_at)]
    if r.kind == "ask":
        rows.append(("corpus", f"{r.corpus} (version {r.corpus_version or 'unknown'})"))
    rows.append(("models", ", ".join(f"{k} {v}" for k, v in r.models.items() if v) or "—"))
    if r.threshold is not None:
        rows.append(("threshold", f"{r.threshold:.2f} (the scorer's calibrated support threshold)"))
    if r.settings:
        rows.append(("settings", ", ".join(f"{k}={v}" for k, v in r.settings.items())))
    if r.gate:
        g = r.gate
        th = ", ".join(f"{k} {v:.2f}" for k, v in g.thresholds.items())
        rows.append(("gate", f"{g.verdict}, evidence score {g.score:.2f}{' (' + th + ')' if th else ''}: {g.reason}"
                     + (f" (judge {g.judge})" if g.judge else "")))
        if g.signals:
            rows.append(("gate signals", ", ".join(f"{k} {_num(v)}" for k, v in g.signals.items())))
    if r.kind == "verify":
        rows.append(("sources", ", ".join(f"{s.label} sha256 {s.unit_sha256[:16]}…" for s in r.sources) or "—"))
    n = len(r.claims)
    a = a or r.assessment()  # the headline itself stands above these rows in every format
    if not r.refused:
        rows += [("quotes", a.faithfulness.text), ("relevance", a.relevance.text), ("support", a.support.text)]
    latest = r.latest_reviews
    if n:
        counts = {v: sum(m.verdict == v for m in latest.values()) for v in MARKS}
        rows.append(("review", f"{len(latest)} of {n} claims reviewed: "
                     + ", ".join(f"{c} {MARKS[v]}" for v, c in counts.items())))
    return rows


def _num(v: Any) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def claim_mark(s: ClaimState) -> str:
    """A claim's badge: the reviewer's rejection or request for work over the automatic verdict,
    an acceptance beside it."""
    return f"{REVIEW_MARK.get(s.review or '', STATUS_MARK[s.status].split()[0])} {s.label}"


def claim_notes(a: Assessment, i: int) -> list[str]:
    """What the quote and relevance checks say of claim ``i`` when it is not a plain pass."""
    s, out = a.claims[i - 1], []
    if s.verbatim is False:
        out.append("quote check: the quote is NOT verbatim at its offsets in the text kept with the run")
    elif s.verbatim is None and i in a.faithfulness.not_rechecked:
        out.append("quote check: not re-checked (the text at those offsets is not in the record)")
    if s.addresses is False:
        out.append("relevance: this claim does not carry the answer the question asks for")
    return out


def contradiction_line(r: Report, c: CheckedClaim) -> str:
    k = c.contradiction
    if k is None:
        return ""
    s = r.source(k.source)
    return f"{s.label if s else k.unit_id}, characters {k.start}–{k.end}"


def anchor_line(r: Report, c: CheckedClaim) -> str:
    a = c.anchor
    if a is None:
        return "no supporting sentence found"
    where = [r.where(c)]
    if a.page:
        where.append(a.where_on_pages)
    where.append(f"characters {a.start}–{a.end}")
    where.append(f"score {a.score:.2f} ({a.method}, threshold {a.threshold:.2f})")
    return ", ".join(where)


def _atom_lines(r: Report, c: CheckedClaim) -> list[str]:
    """A claim split into atoms: where each part is anchored."""
    if len(c.atoms) < 2:
        return []
    out = []
    for t in c.atoms:
        a = t.anchor
        s = r.source(a.source) if a else None
        where = (f"{s.label if s else a.unit_id} [{a.start}:{a.end}] score {a.score:.2f} ({a.method}): “{a.quote}”"
                 if a else "no supporting sentence")
        out.append(f"part “{t.text}” {'supported' if t.supported else 'not supported'} → {where}")
    return out


def history(r: Report, claim: int) -> list[str]:
    return [f"{MARKS[m.verdict]} by {m.reviewer} at {m.at}{': ' + m.comment if m.comment else ''}"
            for m in r.reviews if m.claim == claim]


def _cites(r: Report, c: CheckedClaim) -> str:
    labels = [s.label for n in c.cited if (s := r.source(n))]
    return f" [{', '.join(labels)}]" if r.kind == "verify" and labels else ""


RECHECK_NOTE = ("To re-check: each quote must equal the stored text of its unit (ask) or source (verify) at "
                "[start, end), and that text's SHA-256 must equal the hash given. The complete record is "
                "embedded in this file: `anchor recheck FILE` reads it back, as do `anchor reports import` and the "
                "dashboard's Reports page (Import).")


# -- CLI text ---------------------------------------------------------------------------------


def to_text(r: Report) -> str:
    """The CLI rendering: answer, verification line, sources, what it did."""
    out: list[str] = []
    if r.refused:
        out.append(f"Refused: {r.reason}")
    else:
        out.append(r.answer)
        a = r.assessment()
        out.append(f"{a.headline} ({count(r.checked, 'statement')} checked)")
        out.append(f"  quotes: {a.faithfulness.text} · relevance: {a.relevance.text} · support: {a.support.text}")
        for i, c in enumerate(r.claims, 1):
            cs = a.claims[i - 1]
            if not c.supported or c.flags or cs.review or cs.verbatim is False or cs.addresses is False:
                why = "; ".join(c.reasons[:2]) or ", ".join(c.flags)
                out.append(f"  ! claim {i} {cs.label}" + (f": {why}" if why else ""))
                if c.contradiction is not None:
                    out.append(f"    contradicted by {contradiction_line(r, c)}: “{c.contradiction.quote}”")
                out += [f"    {x}" for x in claim_notes(a, i)]
    if r.sources:
        out.append("sources")
        for s in r.sources:
            where = (f" {s.document}" if s.document else "") + (f" p.{s.page}" if s.page else "")
            follow = (f" (followed from {s.followed_from})" if s.followed_from else
                      f" (named in the question: {s.named})" if s.named else "")
            snippet = " ".join(s.text.split())[:90]
            out.append(f"  [{s.n}] {s.label:<16}{where} score {s.score:.2f}{follow}  {snippet}…")
    if r.trace:
        out.append("what it did")
    for e in r.trace:
        out.append(f"  {e.stage}: {e.message}")
    for n in r.notes:
        out.append(f"  note: {n}")
    return "\n".join(out)


# -- Markdown ---------------------------------------------------------------------------------


def to_markdown(r: Report, *, record: bool = True) -> str:
    """The report as Markdown, every text from the run escaped; ``record=False`` leaves out the embedded
    record (for reading in a terminal)."""
    m = md_escape
    a = r.assessment()
    out = [f"# {m(r.title, inline=True)}", "", f"**{STATE_MARK[a.state]} {m(a.headline, inline=True)}**", ""]
    out += [f"- **{k}**: {m(v, inline=True)}" for k, v in header(r, a)]
    out.append("")
    if r.refused:
        out += ["## Refused", "", f"{m(r.reason)} ({md_code(str(r.reason_code))})", ""]
    else:
        out += ["## Answer", "", m(plain_answer(r)), ""]
    if r.claims:
        out += ["## Claims", ""]
        for i, c in enumerate(r.claims, 1):
            out.append(f"{i}. {m(claim_mark(a.claims[i - 1]), inline=True)} — {m(c.text, inline=True)}"
                       f"{m(_cites(r, c))}")
            out.append(f"   - anchor: {m(anchor_line(r, c), inline=True)}")
            if c.anchor is not None:
                out.append(f"   - quote: “{m(c.anchor.quote, inline=True)}”")
                out.append(f"   - document sha256: {md_code(c.anchor.unit_sha256 or 'unknown')}")
            if c.contradiction is not None:
                out.append(f"   - contradicted by: {m(contradiction_line(r, c), inline=True)}: "
                           f"“{m(c.contradiction.quote, inline=True)}”")
            out += [f"   - {m(x, inline=True)}" for x in claim_notes(a, i)]
            path = r.path(c)
            if path and ("←" in path or "→" in path):
                out.append(f"   - reference path: {m(path, inline=True)}")
            if c.flags:
                out.append(f"   - flags: {m(', '.join(c.flags), inline=True)}")
            out += [f"   - {m(x, inline=True)}" for x in c.reasons + _atom_lines(r, c)]
            out += [f"   - review: {m(h, inline=True)}" for h in history(r, i)] or ["   - review: not reviewed"]
        out.append("")
    if r.sources:
        out += ["## Retrieved sources" if r.kind == "ask" else "## Sources", ""]
        for s in r.sources:
            via = (f", followed from {s.followed_from}" if s.followed_from else
                   f", named in the question: {m(s.named, inline=True)}" if s.named else "")
            page = f", page {s.page}" if s.page else ""
            score = f", score {s.score:.3f}" if r.kind == "ask" else ""
            out.append(f"- \\[{s.n}\\] **{m(s.label, inline=True)}**{m(page)}{score}"
                       f"{m(via, inline=True)}: {m(' '.join(s.text.split())[:240])}")
        out.append("")
    if r.trace or r.notes:
        out += ["## What it did", ""]
        out += [f"- {m(e.stage)}: {m(e.message, inline=True)}" + (f" ({m(e.decision)})" if e.decision else "")
                for e in r.trace]
        out += [f"- note: {m(n, inline=True)}" for n in r.notes]
        out.append("")
    if record:
        out += ["---", "", m(RECHECK_NOTE), "", _MD_OPEN, _embedded_json(r), _MD_CLOSE, ""]
    return "\n".join(out)


# -- HTML -------------------------------------------------------------------------------------

_CSS = ("body{font-family:system-ui,sans-serif;margin:2em auto;max-width:62em;color:#1d2330;line-height:1.45}"
        "dl{display:grid;grid-template-columns:9em 1fr;gap:.2em .8em}dt{font-weight:600;color:#555}"
        ".claim{border:1px solid #dde;border-radius:6px;padding:.6em .9em;margin:.7em 0}"
        ".supported .st{color:#17692e}.flagged .st{color:#9a6200}.contradicted .st{color:#a11}"
        ".not_found .st{color:#a11}"
        "blockquote{margin:.4em 0;padding:.3em .7em;border-left:4px solid #f2c744;background:#fffbe8}"
        "small,.meta{color:#555}.review{background:#f3f5fa;padding:.3em .6em;border-radius:4px;margin:.2em 0}"
        ".refused{border:2px solid #a11;padding:.6em 1em;border-radius:6px}"
        ".rejected .st,.needs_work .st{color:#a11;font-weight:600}"
        ".contradiction{border-left-color:#a11;background:#fdeeee}"
        ".headline{font-size:1.15em;font-weight:600;padding:.5em .8em;border-radius:6px;background:#fdeeee;color:#a11}"
        ".headline.verified{background:#e9f6ec;color:#17692e}.headline.unconfirmed{background:#fff6e0;color:#9a6200}")


def to_html(r: Report) -> str:
    e = html.escape
    a = r.assessment()
    parts = [f"<h1>{e(r.title)}</h1><p class='headline {a.state}'>{e(STATE_MARK[a.state])} {e(a.headline)}</p><dl>"]
    parts += [f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in header(r, a)]
    parts.append("</dl>")
    if r.refused:
        parts.append(f"<div class='refused'><h2>Refused</h2><p>{e(r.reason)} "
                     f"<small>({e(str(r.reason_code))})</small></p></div>")
    else:
        paras = "".join(f"<p>{e(p.strip())}</p>" for p in plain_answer(r).split("\n\n") if p.strip())
        parts.append(f"<h2>Answer</h2>{paras}")
    if r.claims:
        parts.append("<h2>Claims</h2>")
    for i, c in enumerate(r.claims, 1):
        q, path, st = c.anchor, r.path(c), a.claims[i - 1]
        quote = (f"<blockquote>{e(q.quote)}</blockquote><small>{e(anchor_line(r, c))}<br>document sha256 "
                 f"<code>{e(q.unit_sha256 or 'unknown')}</code>{'<br>reference path ' + e(path) if path else ''}"
                 "</small>") if q is not None else "<p><em>no supporting sentence found</em></p>"
        if c.contradiction is not None:
            quote += (f"<p>contradicted by {e(contradiction_line(r, c))}:</p>"
                      f"<blockquote class='contradiction'>{e(c.contradiction.quote)}</blockquote>")
        reasons = "".join(f"<li>{e(x)}</li>" for x in claim_notes(a, i) + c.reasons + _atom_lines(r, c))
        flags = f"<p>flags: {e(', '.join(c.flags))}</p>" if c.flags else ""
        hist = "".join(f"<div class='review'>{e(h)}</div>" for h in history(r, i)) or \
            "<div class='review'>not reviewed</div>"
        parts.append(f"<div class='claim {c.status}{' ' + st.review if st.review else ''}'><p><strong>{i}.</strong> "
                     f"{e(c.text)}{e(_cites(r, c))} <span class='st'>{e(claim_mark(st))}</span></p>{quote}{flags}"
                     f"<ul>{reasons}</ul>"
                     f"{hist}</div>")
    if r.sources:
        parts.append(f"<h2>{'Retrieved sources' if r.kind == 'ask' else 'Sources'}</h2><ol>")
        for s in r.sources:
            via = (f" — followed from {e(s.followed_from)}" if s.followed_from else
                   f" — named in the question: {e(s.named)}" if s.named else "")
            score = f" score {s.score:.3f}" if r.kind == "ask" else ""
            parts.append(f"<li value='{s.n}'><strong>{e(s.label)}</strong>{score}{via}"
                         f"<div class='meta'>{e(' '.join(s.text.split())[:400])}</div></li>")
        parts.append("</ol>")
    if r.trace or r.notes:
        parts.append("<h2>What it did</h2><ul>")
        parts += [f"<li>{e(t.stage)}: {e(t.message)}</li>" for t in r.trace]
        parts += [f"<li>note: {e(n)}</li>" for n in r.notes]
        parts.append("</ul>")
    parts.append(f"<hr><p class='meta'>{e(RECHECK_NOTE)}</p>")
    parts.append(f"<script type='application/json' id='anchor-report'>{_embedded_json(r)}</script>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{e(r.title)}</title><style>{_CSS}</style>"
            f"</head><body>{''.join(parts)}</body></html>\n")


# -- PDF --------------------------------------------------------------------------------------


def _font_path() -> Path | None:
    return next((p for p in _FONT_CANDIDATES if p.exists()), None)


def to_pdf(r: Report, *, font: Path | None | str = "auto") -> bytes:
    """A designed PDF (title page, verdict summary, a section per claim with the quote highlighted in
    its context, page numbers) with the record attached as ``anchor-report.json``; see
    :mod:`anchor_core.report_pdf`."""
    from anchor_core.report_pdf import to_pdf as pdf

    return pdf(r, font=font)


# -- reading back -----------------------------------------------------------------------------


def from_record(data: Any, what: str = "the record") -> Report:
    """The report in a parsed JSON record: an export of any version, or a bare report that an older
    Anchor printed (``anchor ask --json`` / ``--output x.json``, ``anchor verify --format json``)."""
    if not isinstance(data, dict):
        raise ExportError(f"{what} is not an Anchor report (a JSON object was expected)")
    fmt = data.get("format")
    try:
        if fmt is None and data.get("kind") in ("ask", "verify") and "claims" in data:
            return Report.model_validate(data)  # a bare record: same fields, ask reports of every version
        if fmt is None and "claims" in data and "verified_fraction" in data and "answer" in data:
            return from_legacy("verify", data)
        if fmt != FORMAT:
            raise ExportError(f"{what} is not an Anchor report export (no \"format\": \"{FORMAT}\" record)")
        version = data.get("format_version", 1)
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise ExportError(f"{what} was written by a newer Anchor (format version {version}); "
                              "upgrade Anchor to read it")
        if version >= 2:
            return Report.model_validate({k: v for k, v in data.items() if k not in ("format", "format_version",
                                                                                      "exported_at", "assessment")})
        run = data.get("run")
        if not isinstance(run, dict) or run.get("kind") not in ("ask", "verify") or not isinstance(
                run.get(run["kind"]), dict):
            raise ValueError("no ask or verify record in the run")
        return from_legacy(run["kind"], run[run["kind"]], run_id=run.get("id", ""), reviews=run.get("reviews"))
    except (ValueError, KeyError, TypeError) as err:
        raise ExportError(f"{what} holds a damaged report record: {str(err).splitlines()[0]}") from err


def _loads(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ExportError(f"{what} holds damaged JSON (line {err.lineno}: {err.msg})") from err


def read_export(data: bytes | str, *, name: str = "the file") -> Report:
    """The report stored in an export of any format (detected from the content)."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if raw.startswith(b"%PDF"):
        return from_record(_loads(_pdf_attachment(raw, name), name), name)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ExportError(f"{name} is neither a PDF nor UTF-8 text; give an Anchor export (.json, .md, .html, .pdf)"
                          ) from err
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return from_record(_loads(stripped, name), name)
    # The record is the last element of the file: an earlier look-alike can only be text of the run.
    found = re.findall(r"<script type='application/json' id='anchor-report'>(.*?)</script>", text, re.S)
    if not found:
        found = re.findall(re.escape(_MD_OPEN) + r"\s*(.*?)\s*" + re.escape(_MD_CLOSE), text, re.S)
    if not found:
        raise ExportError(f"{name} holds no embedded Anchor report; was it exported by Anchor and left unedited?")
    return from_record(_loads(found[-1], name), name)


def _pdf_attachment(raw: bytes, name: str) -> str:
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        files = PdfReader(io.BytesIO(raw)).attachments
        content = files.get("anchor-report.json")
    except (PdfReadError, ValueError, KeyError) as err:
        raise ExportError(f"{name} is a damaged PDF: {err}") from err
    if not content:
        raise ExportError(f"{name} is a PDF without the attached anchor-report.json; it was not exported by Anchor")
    return content[0].decode("utf-8")
