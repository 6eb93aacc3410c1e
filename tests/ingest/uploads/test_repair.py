"""Extraction repair keeps provenance: furniture removed, words re-joined, pages mapped, the
extracted text rebuildable from the stored text and its edits."""

from ingest.uploads.extract import extract_text
from ingest.uploads.repair import original_text, repair_pages

PAGES = [
    "ACME Agreement - Confidential\n1. DEFINITIONS\nThe Supplier shall indem-\nnify the Customer.\n"
    "The work is high-\nrisk and the regu-\nPage 1 of 3\n",
    "ACME Agreement - Confidential\nlation applies. The ﬁling is due.Payment follows.\nMore text\nPage 2 of 3\n",
    "ACME Agreement - Confidential\nFinal page text.\nPage 3 of 3",
]


def test_furniture_hyphens_ligatures_and_glued_sentences():
    r = repair_pages(PAGES)
    assert r.text == ("1. DEFINITIONS\nThe Supplier shall indemnify the Customer.\nThe work is high-risk and the "
                      "regulation applies. The filing is due. Payment follows.\nMore text\nFinal page text.\n")
    assert r.removed == ["ACME Agreement - Confidential"]
    assert dict(r.counts) == {"header": 3, "page": 3, "dehyphenated": 2, "hyphen kept": 1, "ligatures": 1,
                              "glued sentences": 1}


def test_pages_map_into_the_stored_text_even_across_a_hyphenated_page_break():
    r = repair_pages(PAGES)
    assert r.page_starts[0] == 0
    assert r.text[r.page_starts[1]:].startswith("lation applies")  # "regu" is on page 1, "lation" on page 2
    assert r.text[r.page_starts[2]:].startswith("Final page text.")


def test_the_extraction_is_rebuilt_exactly_from_the_edits():
    r = repair_pages(PAGES)
    assert original_text(r.text, r.edits) == "".join(PAGES)
    word = r.text.index("regulation")
    covering = [e for e in r.edits if e[0] == word + len("regu")]
    assert covering and "Page 1 of 3" in covering[0][2] and "ACME" in covering[0][2]


def test_a_lone_page_has_no_running_lines_and_body_lines_are_kept():
    r = repair_pages(["Title line\nBody text that repeats.\n2\n"])
    assert r.text == "Title line\nBody text that repeats.\n" and dict(r.counts) == {"page": 1}
    same_body = [f"Intro {k}\nLine {k}a.\nA sentence.\nLine {k}b.\nEnd {k}\nClose {k}\n" for k in ("one", "two")]
    assert repair_pages(same_body).text == "".join(same_body)  # middle lines are never furniture


def test_text_with_form_feeds_is_paged_like_pdftotext_output():
    ex = extract_text(b"Header\nFirst page.\n1\n\fHeader\nSecond page.\n2\n")
    assert ex.pages == 2 and ex.text == "First page.\nSecond page.\n"
    assert ex.text[ex.page_starts[1]:] == "Second page.\n"


def _page(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def test_body_lines_at_the_edges_that_differ_only_in_digits_are_kept():
    pages = [_page("ACME Lease - Confidential", f"Clause {c} applies from day {d}.", "1. The tenant pays.",
                   f"{k}. The tenant shall allow access.", f"Article {k + 4}", f"Page {k} of 3")
             for k, (c, d) in enumerate([("4.1", 30), ("5.2", 60), ("6.3", 90)], start=1)]
    r = repair_pages(pages)
    assert dict(r.counts) == {"header": 3, "page": 3} and r.removed == ["ACME Lease - Confidential"]
    for page in pages:
        for line in page.splitlines()[1:-1]:
            assert line in r.text.splitlines(), line
    assert r.text.count("1. The tenant pays.") == 3  # the same body line on every page, but not at an edge


def test_running_lines_need_every_page_of_a_short_document_and_most_pages_of_a_long_one():
    two = [_page("Memo 7 | draft", "First body line."), _page("Memo 7 | draft", "Second body line.")]
    assert repair_pages(two).text == "First body line.\nSecond body line.\n"
    three = [_page("Memo", "One."), _page("Memo", "Two."), _page("Other", "Three.")]
    assert repair_pages(three).text == "".join(three)  # on 2 of 3 pages: kept
    cover = [_page("ANNUAL REPORT", "Cover page.")] + [_page(f"Annual Report 2023 | {k}", f"Body {w}.", f"Text {w}.")
                                                        for k, w in zip(range(2, 6), "bcde")]
    r = repair_pages(cover)  # on 4 of 5 pages, the page number counting up
    assert "Annual Report 2023" not in r.text and r.counts["header"] == 4 and r.removed == ["Annual Report 2023 | 2"]
    five = [_page("Draft", "Text a."), _page("Draft", "Text b.")] + [_page(f"Text {k}.", f"More {k}.") for k in "cde"]
    assert repair_pages(five).text == "".join(five)  # on 2 of 5 pages: not running


def test_page_numbers_only_where_page_numbers_go():
    moved = [_page("3", "Text one."), _page("Text two.", "4"), _page("Text three.", "5"), _page("6", "Text four.")]
    r = repair_pages(moved)
    assert r.text == "Text one.\nText two.\nText three.\nText four.\n" and dict(r.counts) == {"page": 4}
    years = [_page("Revenue by year", "2019"), _page("Costs by year", "2024"), _page("Staff", "Page 3")]
    r = repair_pages(years)
    assert "2019" in r.text and "2024" in r.text and "Page 3" not in r.text
    counted = [_page(f"{k}. The tenant shall pay.", f"Body {w}.") for k, w in zip((1, 2, 3), "abc")]
    assert repair_pages(counted).text == "".join(counted)
