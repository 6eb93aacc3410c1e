"""The designed PDF report and the answer as a reader sees it (claim markers, no <cite> tags)."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from anchor_core.render import answer_segments, plain_answer, read_export, to_html, to_markdown, to_pdf
from anchor_core.report_pdf import quote_context, settings_in_words
from anchor_core.reports import ReportStore
from anchor_core.scorers import make_scorer
from anchor_core.verify import verify_answer
from tests.test_reports_exports import TEXT, ask_report


@pytest.fixture
def rs(tmp_path):
    return ReportStore(tmp_path / "reports.db")


def pages(data: bytes) -> list[str]:
    return [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(data)).pages]


def test_pdf_has_a_title_page_a_verdict_summary_with_marks_and_a_section_per_claim(rs):
    run = rs.save(ask_report())
    rs.review(run.id, 2, "rejected", reviewer="Dana Reviewer", comment="nothing says so")
    run = rs.get(run.id)
    data = to_pdf(run)
    text = pages(data)
    title = text[0]
    assert title.startswith("Anchor · answer report How long are logs kept?")
    assert run.assessment().headline in title
    # supported, flagged, contradicted, not found, accepted, rejected, needs work
    assert "supported flagged contradicted not found accepted rejected needs work 1 0 0 1 0 1 0" in title
    assert "1 claim of 2 reviewed" in title and "rejected by Dana Reviewer" in title
    body = " ".join(text[1:])
    assert "Claim 1" in body and "Claim 2" in body
    # the quote inside the text around it: what comes before and after it in the passage
    assert "1. Providers shall keep logs --> for six months. 2. Deployers may <b>inform</b> users." in body
    assert "Review: rejected by Dana Reviewer" in body and "No sentence in the sources supports this claim." in body
    n = len(text)
    assert all(f"page {i} of {n}" in p for i, p in enumerate(text, 1))
    assert "k=5" not in " ".join(text)
    assert read_export(data) == run  # the record is still attached


def test_quote_context_is_the_passage_around_the_quote_or_nothing():
    r = ask_report()
    before, quote, after = quote_context(r, r.claims[0])
    assert before == "1. " and quote == "Providers shall keep logs --> for six months."
    assert after.strip().startswith("2. Deployers may")
    r.claims[0].anchor.start += 1  # offsets that no longer hold the quote: no context rather than a wrong one
    assert quote_context(r, r.claims[0]) is None


def test_settings_read_in_words():
    words = settings_in_words({"k": 5, "hops": 1, "include_recitals": False, "scorer": "learned", "gate": True})
    assert words == ("5 passages, cross-references followed 1 step, recitals left out, claims checked by the "
                     "learned scorer, gate: on")


def test_a_verify_answer_reads_as_text_with_claim_markers_in_every_document_format():
    answer = ('Providers shall keep logs for six months.<cite id="art12"/> '
              '<cite id="art12">Deployers may inform users.</cite>')
    r = verify_answer(answer, {"art12": TEXT}, scorer=make_scorer("lexical"))
    assert [n for _, n in answer_segments(r) if n] == [1, 2]
    plain = plain_answer(r)
    assert "cite" not in plain
    assert plain == "Providers shall keep logs for six months. (claim 1) Deployers may inform users. (claim 2)"
    assert plain in to_markdown(r, record=False).replace("\\", "")
    assert "&lt;cite" not in to_html(r).split("<script")[0]
    assert plain in " ".join(pages(to_pdf(r))[1].split())
