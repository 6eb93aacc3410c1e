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
