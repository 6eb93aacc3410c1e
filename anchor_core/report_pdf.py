"""The PDF report: a document a reviewer can sign off, with the complete record attached.

Layout: a title page (what was asked or checked, the honest headline, a summary of the verdicts
with the reviewers' marks, one line per claim), then one section per claim (its verdict and mark,
the quote highlighted inside the text around it, where it is, the review history), then the
passages and a technical appendix (models, thresholds, gate signals, hashes, what the pipeline
did). Every page but the title page carries the run's title and "page n of N". The record is
attached as ``anchor-report.json`` (:func:`anchor_core.render.read_export` reads it back).

Uses DejaVu Sans when installed (full Unicode); otherwise Helvetica with typographic characters
transliterated (the attached JSON keeps the exact text either way).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from anchor_core.text import count

if TYPE_CHECKING:
    from anchor_core.report import CheckedClaim, Report

INK = (29, 35, 48)
MUTED = (96, 104, 118)
GREEN, AMBER, RED, BLUE = (23, 105, 46), (154, 98, 0), (161, 17, 17), (40, 60, 120)
STATE_COLOR = {"verified": GREEN, "unconfirmed": AMBER}
STATUS_COLOR = {"supported": GREEN, "flagged": AMBER, "contradicted": RED, "not_found": RED}
HIGHLIGHT = (255, 226, 122)
_LATIN1 = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "…": "...", "←": "<-",
                         "→": "->", "≥": ">=", "≤": "<=", "•": "-", "·": "-", "⟨": "<", "⟩": ">",
                         "\u00a0": " "})


def quote_context(r: Report, c: CheckedClaim, chars: int = 320) -> tuple[str, str, str] | None:
    """``(before, quote, after)``: the claim's quote inside the passage text kept with the run, with up
    to ``chars`` characters either side; None when the run does not hold the text at those offsets."""
    a = c.anchor
    s = r.source(a.source) if a is not None else None
    if a is None or s is None or not s.text:
        return None
    base = s.start if r.kind == "ask" else 0  # an ask passage is a window of the unit text
    lo, hi = a.start - base, a.end - base
    if lo < 0 or hi > len(s.text) or s.text[lo:hi] != a.quote:
        return None
    before, after = s.text[max(0, lo - chars):lo], s.text[hi:hi + chars]
    if lo > chars:
        before = "…" + before.split(" ", 1)[-1]
    if len(s.text) - hi > chars:
        after = after.rsplit(" ", 1)[0] + "…"
    return " ".join(before.split()) + " ", " ".join(a.quote.split()), " " + " ".join(after.split())


def settings_in_words(settings: dict) -> str:
    """An ask run's settings as a reviewer reads them (``5 passages, cross-references followed 1 step``)."""
    words = {"k": lambda v: count(int(v), "passage"),
             "hops": lambda v: f"cross-references followed {count(int(v), 'step')}" if v else "cross-references "
                                                                                         "not followed",
             "include_recitals": lambda v: "recitals included" if v else "recitals left out",
             "scorer": lambda v: f"claims checked by the {v} scorer",
             "writer": lambda v: f"answer written by: {v}",
             "groups": lambda v: f"access groups {', '.join(v)}" if v else ""}
    def other(k: str, v: object) -> str:
        return f"{k.replace('_', ' ')}: {'on' if v is True else 'off' if v is False else v}"

    out = [words[k](v) if k in words else other(k, v) for k, v in settings.items()]
    return ", ".join(o for o in out if o)


def to_pdf(r: Report, *, font: Path | None | str = "auto") -> bytes:
    from fpdf import FPDF

    from anchor_core.render import (
        RECHECK_NOTE,
        _font_path,
        anchor_line,
        claim_notes,
        contradiction_line,
        header,
        history,
        plain_answer,
        to_json,
    )

    a = r.assessment()
    font_file = _font_path() if font == "auto" else (Path(font) if font else None)

    class Report_(FPDF):
        def header(self) -> None:
            if self.page_no() == 1:
                return
            self.set_font(family, "", 8)
            self.set_text_color(*MUTED)
            self.cell(0, 5, t(_short(r.title, 95)), align="L")
            self.ln(8)

        def footer(self) -> None:
            self.set_y(-12)
            self.set_font(family, "", 8)
            self.set_text_color(*MUTED)
            self.cell(0, 5, t(f"Anchor report · run {r.id or 'not saved'}"), align="L")
            self.set_x(self.l_margin)
            self.cell(0, 5, f"page {self.page_no()} of {{nb}}", align="R")

    pdf = Report_(format="A4")
    pdf.set_margins(20, 18, 20)
    pdf.set_auto_page_break(True, margin=18)
    pdf.set_title(r.title)
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

    def para(text: str, size: float = 10, style: str = "", color: tuple[int, int, int] = INK, *,
             fill: tuple[int, int, int] | None = None, gap: float = 0.0, line: float = 0.5) -> None:
        pdf.set_font(family, style, size)
        pdf.set_text_color(*color)
        if fill:
            pdf.set_fill_color(*fill)
        pdf.multi_cell(0, size * line, t(text), align="L", new_x="LMARGIN", new_y="NEXT", fill=bool(fill),
                       padding=(2, 3) if fill else 0)
        if gap:
            pdf.ln(gap)

    def heading(text: str, size: float = 14) -> None:
        pdf.ln(2)
        para(text, size, "B", gap=1.5)

    # -- title page -------------------------------------------------------------------------
    pdf.add_page()
    pdf.ln(18)
    para("Anchor · answer report" if r.kind == "ask" else "Anchor · verification report", 10, color=MUTED, gap=3)
    para(r.title, 22, "B", line=0.48, gap=5)
    color = STATE_COLOR.get(a.state, RED)
    para(a.headline, 13, "B", (255, 255, 255), fill=color, gap=5, line=0.55)
    facts = [("Created", r.created_at[:19].replace("T", " ") + " UTC")]
    if r.kind == "ask":
        facts.append(("Corpus", f"{r.corpus} (version {r.corpus_version or 'unknown'})"))
    else:
        facts.append(("Sources", ", ".join(s.label for s in r.sources) or "none"))
    if not r.refused:
        facts += [("Quotes", a.faithfulness.text), ("Relevance", a.relevance.text), ("Support", a.support.text)]
    for k, v in facts:
        pdf.set_font(family, "B", 9.5)
        pdf.set_text_color(*MUTED)
        pdf.cell(28, 5.2, t(k))
        para(v, 9.5)
    if r.claims:
        pdf.ln(5)
        heading("Summary of verdicts", 12)
        statuses = ("supported", "flagged", "contradicted", "not_found")
        n = {s: sum(c.status == s for c in r.claims) for s in statuses}
        latest = r.latest_reviews
        marks = {m: sum(x.verdict == m for x in latest.values()) for m in ("accepted", "rejected", "needs_work")}
        pdf.set_font(family, "", 8.5)
        pdf.set_text_color(*INK)
        pdf.set_fill_color(255, 255, 255)  # the headline's fill must not colour the table's cells
        with pdf.table(col_widths=(1, 0.8, 1.25, 1.05, 1.05, 1, 1.15), text_align="CENTER", line_height=5.5,
                       headings_style=_style(family, MUTED)) as table:
            table.row([t(x) for x in ("supported", "flagged", "contradicted", "not found", "accepted",
                                      "rejected", "needs work")])
            table.row([str(n[s]) for s in statuses] + [str(marks[m]) for m in marks])
        pdf.ln(2)
        para(f"{count(len(latest), 'claim')} of {len(r.claims)} reviewed. A reviewer's mark overrides the "
             "automatic verdict wherever the run is summarised.", 8.5, color=MUTED, gap=3)
        pdf.set_font(family, "", 9)
        pdf.set_fill_color(255, 255, 255)
        with pdf.table(col_widths=(7, 62, 31), text_align=("CENTER", "LEFT", "LEFT"), line_height=4.6,
                       headings_style=_style(family, MUTED)) as table:
            table.row(["#", "claim", "verdict (reviewer's mark first)"])
            for i, c in enumerate(r.claims, 1):
                table.row([str(i), t(_short(c.text, 180)), t(a.claims[i - 1].label)])

    # -- the answer and one section per claim --------------------------------------------------
    pdf.add_page()
    if r.refused:
        heading("Not answered")
        para(f"Why: {r.reason}", 10.5, gap=2)
    else:
        heading("Answer")
        para(plain_answer(r), 10.5, gap=1)
        para("(claim n) marks where claim n ends; each claim has its own section below.", 8, color=MUTED, gap=2)
    for i, c in enumerate(r.claims, 1):
        s = a.claims[i - 1]
        if pdf.get_y() > pdf.h - 70:
            pdf.add_page()
        pdf.ln(3)
        pdf.set_draw_color(220, 224, 230)
        pdf.line(pdf.l_margin, pdf.get_y(), pdf.w - pdf.r_margin, pdf.get_y())
        pdf.ln(2)
        para(f"Claim {i}", 12.5, "B", gap=0.5)
        mark = RED if s.review in ("rejected", "needs_work") else STATUS_COLOR[c.status]
        para(s.label, 10, "B", mark, gap=1)
        para(c.text, 10.5, gap=2)
        ctx = quote_context(r, c)
        if c.anchor is None:
            para("No sentence in the sources supports this claim.", 9.5, color=RED, gap=1)
        elif ctx is None:
            para(f"“{c.anchor.quote}”", 10, fill=HIGHLIGHT, gap=1)
        else:
            before, quote, after = ctx
            if before.strip():
                para(before, 9, color=MUTED)
            para(quote, 10, fill=HIGHLIGHT)
            if after.strip():
                para(after, 9, color=MUTED)
            pdf.ln(1)
        if c.anchor is not None:
            para(f"Where: {anchor_line(r, c)}", 8.5, color=MUTED, gap=1)
        if c.contradiction is not None:
            para(f"The source says otherwise ({contradiction_line(r, c)}): “{c.contradiction.quote}”", 9.5,
                 color=RED, gap=1)
        for x in claim_notes(a, i) + ([f"check: {', '.join(f.replace('_', ' ') for f in c.flags)}"]
                                      if c.flags else []):
            para(x, 9, color=AMBER, gap=0.5)
        for x in c.reasons:
            para(f"– {x}", 8.5, color=MUTED)
        for h in history(r, i) or ["not reviewed yet"]:
            para(f"Review: {h}", 9, "B" if h != "not reviewed yet" else "", BLUE)

    # -- passages and the technical appendix ---------------------------------------------------
    if r.sources:
        pdf.add_page()
        heading("Passages found" if r.kind == "ask" else "Sources")
        for src in r.sources:
            where = ", ".join(x for x in (src.document, f"page {src.page}" if src.page else "") if x)
            via = f", reached from {src.followed_from}" if src.followed_from else ""
            para(f"[{src.n}] {src.label}" + (f" — {where}" if where else "") + via, 9.5, "B")
            para(_short(" ".join(src.text.split()), 420), 8.5, color=MUTED, gap=1.5)
    heading("Technical record")
    para("For re-checking the report; the complete run is attached to this PDF as anchor-report.json.", 8.5,
         color=MUTED, gap=1.5)
    for k, v in header(r, a):
        if k == "settings" and r.settings:
            v = settings_in_words(r.settings)
        para(f"{k}: {v}", 8.5, color=INK)
    for e in r.trace:
        para(f"{e.stage}: {e.message}", 8, color=MUTED)
    for note in r.notes:
        para(f"note: {note}", 8, color=MUTED)
    pdf.ln(2)
    para(RECHECK_NOTE, 8, color=MUTED)
    pdf.embed_file(bytes=to_json(r).encode(), basename="anchor-report.json", mime_type="application/json",
                   desc="the complete run: claims, quotes, offsets, hashes, scores, thresholds, models, reviews")
    return bytes(pdf.output())


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"


def _style(family: str, color: tuple[int, int, int]):
    from fpdf.fonts import FontFace

    return FontFace(family=family, emphasis="BOLD", color=color, fill_color=(243, 245, 250))
