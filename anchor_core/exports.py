"""Export a saved run as Markdown, JSON, HTML or PDF, and read any of them back.

Every format carries the complete run as JSON (the JSON export is it; Markdown holds it in an
HTML comment at the end, HTML in a ``<script type="application/json">`` element, PDF as an
attached file ``anchor-report.json``), so :func:`read_export` restores the run — quotes,
offsets, document hashes, scores, thresholds, model ids, corpus version and every reviewer
mark — from whichever file a reviewer kept. The human part of each format shows the same facts.

>>> data = export(run, "pdf")                   # doctest: +SKIP
>>> read_export(data).claims[0].quote           # doctest: +SKIP
'AI systems referred to in Annex III shall be considered to be high-risk.'
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from anchor_core.errors import AnchorError
from anchor_core.models import utcnow
from anchor_core.reports import VERDICTS, ClaimView, SavedRun
from anchor_core.safe import json_for_html, md_code, md_escape

FORMAT = "anchor-report"
FORMAT_VERSION = 1
FORMATS: dict[str, tuple[str, str]] = {
    "markdown": ("md", "text/markdown"),
    "json": ("json", "application/json"),
    "html": ("html", "text/html"),
    "pdf": ("pdf", "application/pdf"),
}
STATUS_MARK = {"supported": "✅ supported", "flagged": "⚠️ flagged", "unsupported": "❌ unsupported"}
_MD_OPEN, _MD_CLOSE = "<!-- anchor-report-json", "-->"
_FONT_CANDIDATES = [Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
                    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
                    Path("/Library/Fonts/DejaVuSans.ttf"), Path("C:/Windows/Fonts/DejaVuSans.ttf")]


class ExportError(AnchorError):
    pass


def payload(run: SavedRun) -> dict[str, Any]:
    return {"format": FORMAT, "format_version": FORMAT_VERSION,
            "exported_at": utcnow().isoformat(timespec="seconds"), "run": run.model_dump(mode="json")}


def _json(run: SavedRun) -> str:
    return json.dumps(payload(run), ensure_ascii=False, indent=2)


def _embedded_json(run: SavedRun) -> str:
    # No ``<``, ``>`` or ``&`` in it: the record can never close the comment or script holding it.
    return json_for_html(payload(run))


def filename(run: SavedRun, fmt: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", run.title.lower()).strip("-")[:40] or run.kind
    run_id = re.sub(r"[^A-Za-z0-9_-]+", "", run.id)[:64] or "run"  # an imported id may hold anything
    return f"anchor-{run.kind}-{slug}-{run_id}.{FORMATS[fmt][0]}"


def export(run: SavedRun, fmt: str) -> bytes:
    """The run in ``fmt`` (``markdown``, ``json``, ``html`` or ``pdf``) as bytes ready to save."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    if fmt == "json":
        return _json(run).encode()
    if fmt == "markdown":
        return to_markdown(run).encode()
    if fmt == "html":
        return to_html(run).encode()
    return to_pdf(run)


# -- the facts every format shows -------------------------------------------------------------


def _header(run: SavedRun) -> list[tuple[str, str]]:
    rows = [("run", run.id), ("kind", run.kind), ("created", run.created_at)]
    if run.ask:
        a = run.ask
        rows += [("corpus", f"{a.corpus} (version {a.corpus_version or 'unknown'})")]
        rows += [("models", ", ".join(f"{k} {v}" for k, v in a.models.items()) or "—")]
        if a.settings:
            rows += [("settings", ", ".join(f"{k}={v}" for k, v in a.settings.items()))]
        if a.gate:
            g = a.gate
            th = ", ".join(f"{k} {v:.2f}" for k, v in g.thresholds.items())
            rows += [("gate", f"{g.verdict}, evidence score {g.score:.2f}{' (' + th + ')' if th else ''}: {g.reason}")]
    elif run.verify:
        r = run.verify.report
        rows += [("scorer", f"{r.scorer} (threshold {r.threshold:.2f})"), ("embedder", r.embedder or "none"),
                 ("sources", ", ".join(f"{k} sha256 {v[:16]}…" for k, v in r.sources.items()))]
    n = len(run.claims)
    supported = sum(c.status != "unsupported" for c in run.claims)
    rows.append(("result", "refused: " + (run.ask.reason if run.ask else "") if run.refused else
                 f"{run.verified_fraction:.0%} verified ({supported} of {n} claims anchored)"))
    latest = run.latest_reviews
    if n:
        counts = {v: sum(r.verdict == v for r in latest.values()) for v in VERDICTS}
        rows.append(("review", f"{len(latest)} of {n} claims reviewed: "
                     + ", ".join(f"{c} {VERDICTS[v]}" for v, c in counts.items())))
    return rows


def _anchor_line(c: ClaimView) -> str:
    if c.quote is None:
        return "no supporting sentence found"
    where = [c.source or c.unit_id]
    if c.page:
        where.append(f"page {c.page}")
    where.append(f"characters {c.start}–{c.end}")
    score = f"score {c.score:.2f} ({c.method}, threshold {c.threshold:.2f})" if c.score is not None else ""
    return ", ".join(where) + (f", {score}" if score else "")


def _history(run: SavedRun, claim: int) -> list[str]:
    return [f"{VERDICTS[r.verdict]} by {r.reviewer} at {r.at}{': ' + r.comment if r.comment else ''}"
            for r in run.reviews if r.claim == claim]


RECHECK_NOTE = ("To re-check: each quote must equal the stored text of its unit (ask) or source (verify) at "
                "[start, end), and that text's SHA-256 must equal the hash given. The complete record is "
                "embedded in this file; read it back with anchor_core.exports.read_export or the dashboard's "
                "Reports page (Import).")


# -- Markdown ---------------------------------------------------------------------------------


def to_markdown(run: SavedRun) -> str:
    """The run as Markdown. Every text from the run is escaped (:func:`md_escape`): a source sentence
    holding ``![x](http://…)`` or ``<script>`` shows as those characters in any viewer."""
    m = md_escape
    out = [f"# {m(run.title, inline=True)}", ""]
    out += [f"- **{k}**: {m(v, inline=True)}" for k, v in _header(run)]
    out.append("")
    if run.refused and run.ask:
        out += ["## Refused", "", f"{m(run.ask.reason)} ({md_code(str(run.ask.reason_code))})", ""]
    else:
        out += ["## Answer", "", m(run.answer.strip()), ""]
    if run.claims:
        out += ["## Claims", ""]
        for c in run.claims:
            out.append(f"{c.index}. {STATUS_MARK[c.status]} — {m(c.text, inline=True)}")
            out.append(f"   - anchor: {m(_anchor_line(c), inline=True)}")
            if c.quote is not None:
                out.append(f"   - quote: “{m(c.quote, inline=True)}”")
                out.append(f"   - document sha256: {md_code(c.doc_sha256 or 'unknown')}")
            if c.path and ("←" in c.path or "→" in c.path):
                out.append(f"   - reference path: {m(c.path, inline=True)}")
            if c.flags:
                out.append(f"   - flags: {m(', '.join(c.flags), inline=True)}")
            out += [f"   - {m(r, inline=True)}" for r in c.reasons]
            hist = _history(run, c.index)
            out += [f"   - review: {m(h, inline=True)}" for h in hist] or ["   - review: not reviewed"]
        out.append("")
    if run.ask and run.ask.sources:
        out += ["## Retrieved sources", ""]
        for s in run.ask.sources:
            via = f", followed from {s.followed_from}" if s.followed_from else ""
            page = f", page {s.page}" if s.page else ""
            out.append(f"- \\[{s.n}\\] **{m(s.label, inline=True)}**{m(page)}, score {s.score:.3f}"
                       f"{m(via, inline=True)}: {m(' '.join(s.text.split())[:240])}")
        out.append("")
    if run.ask and run.ask.trace:
        out += ["## What it did", ""]
        out += [f"- {m(e.stage)}: {m(e.message, inline=True)}" + (f" ({m(e.decision)})" if e.decision else "")
                for e in run.ask.trace]
        out += [f"- note: {m(n, inline=True)}" for n in run.ask.notes]
        out.append("")
    out += ["---", "", RECHECK_NOTE, "", _MD_OPEN, _embedded_json(run), _MD_CLOSE, ""]
    return "\n".join(out)


# -- HTML -------------------------------------------------------------------------------------

_CSS = ("body{font-family:system-ui,sans-serif;margin:2em auto;max-width:62em;color:#1d2330;line-height:1.45}"
        "dl{display:grid;grid-template-columns:9em 1fr;gap:.2em .8em}dt{font-weight:600;color:#555}"
        ".claim{border:1px solid #dde;border-radius:6px;padding:.6em .9em;margin:.7em 0}"
        ".supported .st{color:#17692e}.flagged .st{color:#9a6200}.unsupported .st{color:#a11}"
        "blockquote{margin:.4em 0;padding:.3em .7em;border-left:4px solid #f2c744;background:#fffbe8}"
        "small,.meta{color:#555}.review{background:#f3f5fa;padding:.3em .6em;border-radius:4px;margin:.2em 0}"
        ".refused{border:2px solid #a11;padding:.6em 1em;border-radius:6px}")


def to_html(run: SavedRun) -> str:
    e = html.escape
    parts = [f"<h1>{e(run.title)}</h1><dl>"]
    parts += [f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in _header(run)]
    parts.append("</dl>")
    if run.refused and run.ask:
        parts.append(f"<div class='refused'><h2>Refused</h2><p>{e(run.ask.reason)} "
                     f"<small>({e(str(run.ask.reason_code))})</small></p></div>")
    else:
        parts.append(f"<h2>Answer</h2><p>{e(run.answer.strip())}</p>")
    if run.claims:
        parts.append("<h2>Claims</h2>")
    for c in run.claims:
        quote = (f"<blockquote>{e(c.quote)}</blockquote><small>{e(_anchor_line(c))}<br>document sha256 "
                 f"<code>{e(c.doc_sha256 or 'unknown')}</code>{'<br>reference path ' + e(c.path) if c.path else ''}"
                 "</small>") if c.quote is not None else "<p><em>no supporting sentence found</em></p>"
        reasons = "".join(f"<li>{e(r)}</li>" for r in c.reasons)
        flags = f"<p>flags: {e(', '.join(c.flags))}</p>" if c.flags else ""
        hist = "".join(f"<div class='review'>{e(h)}</div>" for h in _history(run, c.index)) or \
            "<div class='review'>not reviewed</div>"
        parts.append(f"<div class='claim {c.status}'><p><strong>{c.index}.</strong> {e(c.text)} "
                     f"<span class='st'>{e(STATUS_MARK[c.status])}</span></p>{quote}{flags}<ul>{reasons}</ul>"
                     f"{hist}</div>")
    if run.ask and run.ask.sources:
        parts.append("<h2>Retrieved sources</h2><ol>")
        for s in run.ask.sources:
            via = f" — followed from {e(s.followed_from)}" if s.followed_from else ""
            parts.append(f"<li value='{s.n}'><strong>{e(s.label)}</strong> score {s.score:.3f}{via}"
                         f"<div class='meta'>{e(' '.join(s.text.split())[:400])}</div></li>")
        parts.append("</ol>")
    if run.ask and run.ask.trace:
        parts.append("<h2>What it did</h2><ul>")
        parts += [f"<li>{e(t.stage)}: {e(t.message)}</li>" for t in run.ask.trace]
        parts.append("</ul>")
    parts.append(f"<hr><p class='meta'>{e(RECHECK_NOTE)}</p>")
    parts.append(f"<script type='application/json' id='anchor-report'>{_embedded_json(run)}</script>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{e(run.title)}</title><style>{_CSS}</style>"
            f"</head><body>{''.join(parts)}</body></html>\n")


# -- PDF --------------------------------------------------------------------------------------


def _font_path() -> Path | None:
    return next((p for p in _FONT_CANDIDATES if p.exists()), None)


_LATIN1 = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "…": "...", "←": "<-",
                         "→": "->", "≥": ">=", "≤": "<=", "•": "-", "\u00a0": " "})


def to_pdf(run: SavedRun, *, font: Path | None | str = "auto") -> bytes:
    """A paginated PDF with the same facts as the HTML and the run attached as ``anchor-report.json``.

    Uses DejaVu Sans when installed (full Unicode); otherwise Helvetica with typographic characters
    transliterated (the attached JSON keeps the exact text either way)."""
    from fpdf import FPDF

    font_file = _font_path() if font == "auto" else (Path(font) if font else None)
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=15)
    pdf.set_title(run.title)
    pdf.set_creator("Anchor")
    if font_file is not None:
        pdf.add_font("body", "", str(font_file))
        bold = font_file.with_name(font_file.stem + "-Bold" + font_file.suffix)
        pdf.add_font("body", "B", str(bold if bold.exists() else font_file))
        family = "body"

        def t(s: str) -> str:
            return s
    else:
        family = "helvetica"

        def t(s: str) -> str:
            return s.translate(_LATIN1).encode("latin-1", "replace").decode("latin-1")

    def para(text: str, size: float = 10, style: str = "", color: tuple[int, int, int] = (29, 35, 48)) -> None:
        pdf.set_font(family, style, size)
        pdf.set_text_color(*color)
        pdf.multi_cell(0, size * 0.5, t(text), new_x="LMARGIN", new_y="NEXT")

    pdf.add_page()
    para(run.title, 16, "B")
    pdf.ln(2)
    for k, v in _header(run):
        para(f"{k}: {v}", 9, color=(80, 80, 80))
    pdf.ln(3)
    if run.refused and run.ask:
        para("Refused", 13, "B", (161, 17, 17))
        para(f"{run.ask.reason} ({run.ask.reason_code})")
    else:
        para("Answer", 13, "B")
        para(run.answer.strip())
    colors = {"supported": (23, 105, 46), "flagged": (154, 98, 0), "unsupported": (161, 17, 17)}
    if run.claims:
        pdf.ln(2)
        para("Claims", 13, "B")
    for c in run.claims:
        pdf.ln(1.5)
        para(f"{c.index}. [{c.status}] {c.text}", 10, "B", colors[c.status])
        para(f"anchor: {_anchor_line(c)}", 9, color=(80, 80, 80))
        if c.quote is not None:
            para(f"quote: \u201c{c.quote}\u201d", 9.5)
            para(f"document sha256: {c.doc_sha256 or 'unknown'}", 8, color=(100, 100, 100))
        if c.path:
            para(f"reference path: {c.path}", 8.5, color=(80, 80, 80))
        if c.flags:
            para(f"flags: {', '.join(c.flags)}", 9, color=colors["flagged"])
        for r in c.reasons:
            para(f"- {r}", 9, color=(80, 80, 80))
        for h in _history(run, c.index) or ["not reviewed"]:
            para(f"review: {h}", 9, "B" if h != "not reviewed" else "", (40, 60, 120))
    if run.ask and run.ask.sources:
        pdf.ln(2)
        para("Retrieved sources", 13, "B")
        for s in run.ask.sources:
            via = f", followed from {s.followed_from}" if s.followed_from else ""
            para(f"[{s.n}] {s.label} score {s.score:.3f}{via}: {' '.join(s.text.split())[:300]}", 8.5)
    pdf.ln(3)
    para(RECHECK_NOTE, 8, color=(100, 100, 100))
    pdf.embed_file(bytes=_json(run).encode(), basename="anchor-report.json", mime_type="application/json",
                   desc="the complete run: claims, quotes, offsets, hashes, scores, thresholds, models, reviews")
    return bytes(pdf.output())


# -- reading back -----------------------------------------------------------------------------


def _from_payload(data: Any, what: str) -> SavedRun:
    if not isinstance(data, dict) or data.get("format") != FORMAT or "run" not in data:
        raise ExportError(f"{what} is not an Anchor report export (no \"format\": \"{FORMAT}\" record)")
    if data.get("format_version", 0) > FORMAT_VERSION:
        raise ExportError(f"{what} was written by a newer Anchor (format version {data['format_version']}); "
                          "upgrade Anchor to read it")
    try:
        return SavedRun.model_validate(data["run"])
    except ValueError as err:
        raise ExportError(f"{what} holds a damaged report record: {str(err).splitlines()[0]}") from err


def _loads(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ExportError(f"{what} holds damaged JSON (line {err.lineno}: {err.msg})") from err


def read_export(data: bytes | str, *, name: str = "the file") -> SavedRun:
    """The run stored in an export of any format (detected from the content)."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if raw.startswith(b"%PDF"):
        return _from_payload(_loads(_pdf_attachment(raw, name), name), name)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ExportError(f"{name} is neither a PDF nor UTF-8 text; give an Anchor export (.json, .md, .html, .pdf)"
                          ) from err
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _from_payload(_loads(stripped, name), name)
    # The record is the last element of the file: an earlier look-alike can only be text of the run.
    found = re.findall(r"<script type='application/json' id='anchor-report'>(.*?)</script>", text, re.S)
    if not found:
        found = re.findall(re.escape(_MD_OPEN) + r"\s*(.*?)\s*" + re.escape(_MD_CLOSE), text, re.S)
    if not found:
        raise ExportError(f"{name} holds no embedded Anchor report; was it exported by Anchor and left unedited?")
    return _from_payload(_loads(found[-1], name), name)


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
