"""Notes printed at the foot of a PDF page are stored as note lines on their own page, out of the sentence
that runs over the page break, and the extraction can still be rebuilt from the stored text."""

from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from anchor_core.segment import split_sentences
from anchor_core.text import NOTE_LINE
from ingest.uploads.extract import extract
from ingest.uploads.pdfnotes import Line, NoteBlock, note_block, note_place
from ingest.uploads.pipeline import removed_summary
from ingest.uploads.repair import original_text, repair_pages
from tests.ingest.uploads.pdfs import contract_pdf, regulation_pdf


def _page_of(ex, offset: int) -> int:
    return max(i for i, s in enumerate(ex.page_starts) if s <= offset) + 1


def _raw(data: bytes) -> str:
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]
    return "".join(t if t.endswith("\n") or i == len(pages) - 1 else t + "\n" for i, t in enumerate(pages))


def test_a_sentence_over_a_page_break_is_whole_and_its_page_notes_stay_on_its_page():
    ex = extract("pdf", regulation_pdf())
    sentence = ("Each Member State shall appoint a single national accreditation\nbody, which shall assess the "
                "conformity of products that are\nplaced on the market in its territory.")
    at = ex.text.index(sentence)
    assert _page_of(ex, at) == 1 and _page_of(ex, at + len(sentence) - 1) == 2
    assert sentence.replace("\n", " ") in [s.text.replace("\n", " ") for s in split_sentences(ex.text)]
    note1 = ("Footnote 1: Regulation (EC) No 765/2008 of the European Parliament and of the Council of 9 July 2008 "
             "setting out the requirements for accreditation (OJ L 218, 13.8.2008, p. 30).\n")
    note2 = "Footnote 2: Directive 2014/53/EU on radio equipment (OJ L 153, 22.5.2014, p. 62).\n"
    # the notes go in before the sentence that runs over the break, after the sentences that mark them
    assert ex.text.index("2014/53/EU (2).\n" + note1 + note2 + "Each Member State") > 0
    assert _page_of(ex, ex.text.index(note1)) == _page_of(ex, ex.text.index(note2)) == 1
    assert len(NOTE_LINE.findall(ex.text)) == 5 and ex.repairs["footnotes"] == 5


def test_a_page_whose_body_ends_a_sentence_keeps_its_notes_at_its_foot_and_a_note_goes_on_over_two_pages():
    ex = extract("pdf", regulation_pdf())
    note3 = "of Directive 2001/95/EC (3).\nFootnote 3: Directive 2001/95/EC of the European Parliament and of the " \
            "Council of 3 December 2001 on general\nArticle 3\n"
    assert note3 in ex.text and _page_of(ex, ex.text.index("Footnote 3: Directive")) == 2
    tail = "(4).\nFootnote 3: product safety (OJ L 11, 15.1.2002, p. 4).\nFootnote 4: Regulation (EU) 2019/1020"
    assert tail in ex.text and _page_of(ex, ex.text.index("Footnote 3: product")) == 3


def test_small_print_without_a_mark_is_not_a_note_and_a_finished_note_does_not_go_on():
    ex = extract("pdf", regulation_pdf())
    assert ex.text.endswith("accredited bodies each year.\nSource: Commission staff working document, 2023.\n")
    assert "Footnote 4: Source" not in ex.text


def test_the_extracted_text_is_rebuilt_exactly_from_the_stored_text_and_its_edits():
    data = regulation_pdf()
    ex = extract("pdf", data)
    assert original_text(ex.text, ex.edits) == _raw(data)


def test_notes_set_as_large_as_the_body_and_documents_without_notes_are_left_as_they_were():
    same = extract("pdf", regulation_pdf(note_size=10))
    assert "Footnote" not in same.text and "(1) Regulation (EC) No 765/2008" in same.text
    contract = extract("pdf", contract_pdf())
    assert "Footnote" not in contract.text and "footnotes" not in contract.repairs


def test_the_upload_summary_says_notes_were_moved():
    ex = extract("pdf", regulation_pdf())
    said = removed_summary(ex.repairs, ex.removed)
    assert said.startswith("removed 4 page numbers, and stored 5 footnotes printed at the foot of a page")
    assert removed_summary({"footnotes": 1}, []).startswith("stored 1 footnote printed")


def _lines(text: str, sizes: list[float], ys: list[float]) -> list[Line]:
    out, pos = [], 0
    for part, size, y in zip(text.split("\n"), sizes, ys):
        out.append(Line(pos, pos + len(part), size, y))
        pos += len(part) + 1
    return out


def test_marks_must_count_up_so_a_wrapped_line_that_begins_with_a_number_stays_in_its_note():
    text = "Body text (1) that ends here (2).\n(1) See Article 5 of Directive\n12 of the Council.\n(2) OJ L 1.\n"
    lines = _lines(text, [10, 7, 7, 7], [700, 90, 81, 72])
    block = note_block(text, lines, 10, [])
    assert block is not None and block.notes == (("1", "See Article 5 of Directive 12 of the Council."),
                                                 ("2", "OJ L 1."))
    assert block.lines() == "Footnote 1: See Article 5 of Directive 12 of the Council.\nFootnote 2: OJ L 1.\n"


def test_small_lines_above_body_lines_or_without_a_body_are_not_notes():
    text = "(1) A small line set above the body.\nBody text.\n"
    assert note_block(text, _lines(text, [7, 10], [90, 700]), 10, []) is None  # not trailing
    text = "Body text.\n(1) Small, but printed higher than the body.\n"
    assert note_block(text, _lines(text, [10, 7], [100, 700]), 10, []) is None
    text = "(1) Only small print on this page.\n"
    assert note_block(text, _lines(text, [7], [90]), 10, []) is None


def test_a_page_whose_one_sentence_runs_over_both_breaks_keeps_its_notes_as_printed():
    text = "continued from the page before and going on to the\n(1) A note.\n"
    block = NoteBlock(text.index("(1)"), len(text), (("1", "A note."),))
    assert note_place(text, block, 0, continued=True) is None
    assert note_place(text, block, 0, continued=False) is None  # never the page's very start
    text = "Running head\nA sentence that begins here and goes on to the\n(1) A note.\n"
    block = NoteBlock(text.index("(1)"), len(text), (("1", "A note."),))
    assert note_place(text, block, len("Running head\n"), continued=False) == len("Running head\n")


WORD_STYLE = [(["Article 1", "The bodies notified under Directive 2014/53/EU^2 shall apply it within 30 days^3.",
                "Each Member State shall appoint a single body that"],
               ["^2 Directive 2014/53/EU on radio equipment.", "^3 Calendar days."]),
              (["is independent. A value of 10^6 units applies."], ["4 Unrelated note."])]


def test_raised_marks_as_word_prints_them_leave_the_sentence_and_its_numbers_whole():
    data = regulation_pdf(WORD_STYLE)
    ex = extract("pdf", data)
    # pypdf puts each raised mark on a line of its own; with its note at the page's foot it goes
    assert "Directive 2014/53/EU\n  shall apply it within 30 days\n ." in ex.text
    assert "Footnote 2: Directive 2014/53/EU on radio equipment.\nFootnote 3: Calendar days.\n" in ex.text
    assert ex.repairs["note marks"] == 2 and ex.repairs["footnotes"] == 2
    assert "10\n6\n" in ex.text  # a raised number with no note of that mark on the page (a power) stays
    assert "units applies.\n4 Unrelated note.\n" in ex.text  # small print whose mark the page never writes
    assert original_text(ex.text, ex.edits) == _raw(data)


def test_a_mark_set_against_its_notes_first_word_begins_the_note():
    text = "Body text under this Regulation5, ends here.6\n5Regulation (EU) 2019/1020 of the\nCouncil.\n" \
           "6Directive 2001/95/EC.\n"
    block = note_block(text, _lines(text, [10, 8, 8, 8], [700, 90, 81, 72]), 10, [])
    assert block is not None and block.notes == (("5", "Regulation (EU) 2019/1020 of the Council."),
                                                 ("6", "Directive 2001/95/EC."))


_BODY = ["Article 2", "The provider shall keep the logs (1) for", "six months. It shall inform the authority",
         "of any incident.", "1. Each Member State shall", "designate a body, other than a court."]
_FOOT = ["(1) OJ L 218, 13.8.2008, p. 30.", "1 Regulation (EU) 2019/1020 of the", "Council.", "2Directive 2001/95/EC.",
         "* Calendar days.", "Source: Eurostat, 2023.", "3", "product safety (OJ L 11, 15.1.2002, p. 4)."]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.lists(st.sampled_from(_BODY), min_size=0, max_size=5),
                          st.lists(st.sampled_from(_FOOT), min_size=0, max_size=4),
                          st.booleans()), min_size=1, max_size=5))
def test_any_pages_and_foot_lines_rebuild_the_extraction_and_keep_every_page(pages):
    texts: list[str] = []
    lines: list[list[Line] | None] = []
    for body, foot, known in pages:
        rows = [(t, 10.0, 700.0 - 14 * k) for k, t in enumerate(["Running head 2024", *body])]
        rows += [(t, 7.0, 90.0 - 9 * k) for k, t in enumerate(foot)] + [("Page", 9.0, 40.0)]
        text = "\n".join(t for t, _, _ in rows) + "\n"
        texts.append(text)
        got, pos = [], 0
        for t, size, y in rows:
            marks = ((pos, pos + 1, t),) if t.isdigit() and size < 9 else ()
            got.append(Line(pos, pos + len(t), size, y, marks))
            pos += len(t) + 1
        lines.append(got if known else None)
    r = repair_pages(texts, lines)
    assert original_text(r.text, r.edits) == "".join(texts)
    assert len(r.page_starts) == len(texts) and r.page_starts == sorted(r.page_starts)
    for note in NOTE_LINE.finditer(r.text):  # every note line sits on a page whose foot printed it
        page = max(i for i, s in enumerate(r.page_starts) if s <= note.start())
        assert any(t in texts[page] for t in _FOOT)


def test_a_lead_in_at_the_foot_of_a_page_keeps_its_points_and_the_notes_go_before_it():
    pages = [(["Article 5", "1. The provider shall keep the logs (1). The logs shall record the following:"],
              ["(1) OJ L 218, 13.8.2008, p. 30."]),
             (["(a) the period of each use;", "(b) the reference database."], [])]
    ex = extract("pdf", regulation_pdf(pages))
    assert "(1).\nFootnote 1: OJ L 218, 13.8.2008, p. 30.\nThe logs shall record the following:\n(a) the period" \
        in ex.text


def test_numbered_rows_set_small_that_the_body_never_refers_to_are_not_notes():
    pages = [(["Article 7", "The Member States reported the following numbers of bodies on 12.7.2024:"],
              ["1 Germany 120 bodies", "2 France 98 bodies", "3 Italy 75 bodies"])]
    ex = extract("pdf", regulation_pdf(pages))
    assert "Footnote" not in ex.text and "1 Germany 120 bodies\n2 France 98 bodies" in ex.text
