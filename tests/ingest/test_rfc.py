"""The RFC adapter over trimmed copies of RFC 6749 and RFC 6750 in ``tests/data/rfc``.

The copies keep the real page layout (footers, form feeds, running headers, table of
contents). Two sentences were added so that every reference form is covered: ``Section
4.1.2`` in RFC 6749 and ``Section 5 of [RFC7515] and Section 5 of RFC 7515`` in RFC 6750.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anchor_core.errors import AdapterError
from anchor_core.models import ParsedCorpus, Unit
from ingest import get_adapter
from ingest.rfc import RfcAdapter

DATA = Path(__file__).resolve().parents[1] / "data" / "rfc"
REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "corpora" / "rfc"


@pytest.fixture(scope="module")
def corpus() -> ParsedCorpus:
    return RfcAdapter().load(DATA)


def unit(corpus: ParsedCorpus, unit_id: str) -> Unit:
    return next(u for u in corpus.units if u.unit_id == unit_id)


def refs_from(corpus: ParsedCorpus, unit_id: str) -> list[tuple[str, str | None, str | None]]:
    return [(r.raw, r.dst_unit, r.dst_part) for r in corpus.references if r.src_unit == unit_id]


def test_registered_under_its_name():
    assert isinstance(get_adapter("rfc"), RfcAdapter)


def test_one_document_and_unit_per_rfc(corpus):
    assert [u.unit_id for u in corpus.units] == ["rfc-6749", "rfc-6750"]
    u = unit(corpus, "rfc-6749")
    assert (u.kind, u.heading, u.title) == ("file", "RFC 6749", "The OAuth 2.0 Authorization Framework")
    assert unit(corpus, "rfc-6750").title == "The OAuth 2.0 Authorization Framework: Bearer Token Usage"
    doc = corpus.documents[0]
    assert doc.meta["category"] == "Standards Track" and doc.meta["date"] == "October 2012"
    assert doc.meta["obsoletes"] == "5849"
    assert doc.source.endswith("rfc6749.txt") and len(doc.sha256) == 64


def test_page_furniture_is_removed(corpus):
    for u in corpus.units:
        assert "\f" not in u.text
        assert "[Page" not in u.text
        assert "Standards Track    " not in u.text
        assert "OAuth 2.0                   October 2012" not in u.text
        assert "Bearer Token Usage          October 2012" not in u.text
        assert "\n\n\n" not in u.text
    text = unit(corpus, "rfc-6749").text
    assert ("\n\nThe OAuth 2.0 Authorization Framework\n\nAbstract\n\n"
            "The OAuth 2.0 authorization framework enables") in text
    # A paragraph split by a page break is whole again, with its indentation reduced by 3.
    assert "MUST NOT use the authorization code\n      more than once." in text
    # A break between paragraphs stays a paragraph break.
    assert "changing the third party's password.\n\no  Compromise" in text


def test_front_matter_opens_the_text_cell_by_cell(corpus):
    # the header's left column, then its right column (authors, organisations, date), then the title: each
    # line a cell of the source, so the publication date and the authors can be quoted as the RFC writes them
    assert unit(corpus, "rfc-6750").text.startswith(
        "Internet Engineering Task Force (IETF)\nRequest for Comments: 6750\nCategory: Standards Track\n"
        "ISSN: 2070-1721\nM. Jones\nMicrosoft\nD. Hardt\nIndependent\nOctober 2012\n\n"
        "The OAuth 2.0 Authorization Framework: Bearer Token Usage\n\nAbstract\n")
    u = unit(corpus, "rfc-6749")
    front = u.text[:u.text.index("\nAbstract\n")]
    assert "October 2012" in front.split("\n") and "Request for Comments: 6749" in front.split("\n")
    # the document records where its date and its authors are, for questions about them (anchor_core.ask.dated)
    doc = next(d for d in corpus.documents if d.doc_id == "rfc-6750")
    text = unit(corpus, "rfc-6750").text
    a, b = doc.meta["front"]["date"]
    assert text[a:b] == "October 2012" and doc.meta["front"]["label"] == "RFC 6750"
    assert [text[a:b] for a, b in doc.meta["front"]["authors"]] == doc.meta["front"]["author_names"] == \
        ["M. Jones", "D. Hardt"]
    # no part and no reference starts in the front matter
    assert min(p.start for p in u.parts) > len(front)
    assert all(r.start > len(front) for r in corpus.references)


def test_references_are_kept_without_a_table_of_contents(tmp_path):
    # an RFC with no table of contents (RFC 2119) once lost every reference: the whole text counted as one
    (tmp_path / "rfc9999.txt").write_text(
        "Network Working Group                                         A. Author\n"
        "Request for Comments: 9999                                    March 1997\n\n"
        "                       A Short Memo\n\n"
        "1. Introduction\n\n   This memo updates RFC 2119 as Section 3 describes.\n\n"
        "3. Details\n\n   Nothing more.\n", encoding="utf-8")
    refs = refs_from(RfcAdapter().load(tmp_path), "rfc-9999")
    assert ("RFC 2119", "rfc-2119", None) in refs and ("Section 3", "rfc-9999", "3") in refs


def test_numbered_sections_are_nested_parts(corpus):
    u = unit(corpus, "rfc-6749")
    assert [p.label for p in u.parts] == ["1", "1.1", "4", "4.1", "4.1.1", "4.1.2", "4.2", "12", "12.1",
                                          "A", "A.1"]
    for p in u.parts:
        body = u.text[p.start:p.end]
        assert body.startswith(f"Appendix {p.label}." if p.label == "A" else f"{p.label}.")
        assert p.title in body.split("\n", 1)[0]
    part = {p.label: p for p in u.parts}
    assert part["4.1.2"].title == "Authorization Response"
    assert part["A"].title == "Augmented Backus-Naur Form (ABNF) Syntax"
    assert part["4"].start < part["4.1"].start < part["4.1.2"].start < part["4.1.2"].end <= part["4.1"].end
    assert part["4.1"].end <= part["4"].end < part["12"].start
    assert u.part_text("4.1.2").endswith("left undefined by this\nspecification.")


def test_table_of_contents_is_not_parsed_as_sections(corpus):
    u = unit(corpus, "rfc-6749")
    toc = u.text.index("Table of Contents")
    assert all(p.start > toc for p in u.parts)
    assert len({p.label for p in u.parts}) == len(u.parts)
    # Nor does "Appendix A" in a contents line count as a reference.
    appendix_refs = [r for r in corpus.references if r.src_unit == u.unit_id and r.raw.startswith("Appendix")]
    assert appendix_refs and all(r.start > u.parts[0].start for r in appendix_refs)


def test_reference_offsets_match_raw_text(corpus):
    assert corpus.references
    for r in corpus.references:
        assert unit(corpus, r.src_unit).text[r.start:r.end] == r.raw
        assert r.resolved is False


def test_same_rfc_section_references(corpus):
    refs = refs_from(corpus, "rfc-6749")
    assert ("Section 4.1.2", "rfc-6749", "4.1.2") in refs
    assert ("Sections 10.3 and 10.16", "rfc-6749", "10.3") in refs
    assert ("Sections 10.3 and 10.16", "rfc-6749", "10.16") in refs
    assert ("Appendix B", "rfc-6749", "B") in refs
    # "Section 4.e of the Trust Legal Provisions" is not a section of this RFC.
    assert not any(r[0].startswith("Section 4") and r[2] == "4" for r in refs)
    r = next(r for r in corpus.references if r.raw == "Section 4.1.2")
    assert r.src_part == "4.1.1"


def test_references_to_other_rfcs(corpus):
    refs = refs_from(corpus, "rfc-6750")
    assert ("[RFC6749]", "rfc-6749", None) in refs
    assert ("Section 3.3 of [RFC6749]", "rfc-6749", "3.3") in refs
    assert ("Section 5 of [RFC7515]", "rfc-7515", "5") in refs
    assert ("Section 5 of RFC 7515", "rfc-7515", "5") in refs
    assert ("Section 2 of RFC 5741", "rfc-5741", "2") in refs
    assert ("Appendixes A.7 and A.8 of [RFC6749]", "rfc-6749", "A.7") in refs
    assert ("Appendixes A.7 and A.8 of [RFC6749]", "rfc-6749", "A.8") in refs
    # The "Section 5" of "Section 5 of [RFC7515]" is not also a reference to RFC 6750.
    assert not any(dst == "rfc-6750" and part == "5" for _, dst, part in refs)
    assert ("RFC 5849", "rfc-5849", None) in refs_from(corpus, "rfc-6749")


def test_reference_list_citations_are_recorded(corpus):
    u = unit(corpus, "rfc-6750")
    entries = [r for r in corpus.references if r.src_unit == u.unit_id and r.src_part == "7.1"]
    cited = {r.dst_unit for r in entries}
    assert {"rfc-2119", "rfc-2616", "rfc-2617", "rfc-6749", "rfc-7515"} <= cited
    # The entry's own "RFC 6749, October 2012" does not count twice.
    assert sum(r.dst_unit == "rfc-6749" for r in entries) == 1


def test_non_rfc_citations_have_no_target(corpus):
    refs = refs_from(corpus, "rfc-6749")
    assert ("Section 2.2 of [W3C.REC-xml-20081126]", None, None) in refs
    assert not any(raw == "[W3C.REC-xml-20081126]" for raw, _, _ in refs)


def test_missing_path_is_an_adapter_error(tmp_path):
    with pytest.raises(AdapterError, match="needs a folder"):
        RfcAdapter().load(None)
    with pytest.raises(AdapterError, match="does not exist"):
        RfcAdapter().load(tmp_path / "nowhere")


def test_empty_folder_is_an_adapter_error(tmp_path):
    with pytest.raises(AdapterError, match=r"no \*\.txt files"):
        RfcAdapter().load(tmp_path)


def test_non_rfc_file_is_named_in_the_error(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("Some notes\n\nNot an RFC.\n", encoding="utf-8")
    with pytest.raises(AdapterError, match=r"notes\.txt is not an RFC"):
        RfcAdapter().load(tmp_path)


def test_real_corpus():
    if not REAL.is_dir():
        pytest.skip(f"{REAL} is absent")
    corpus = RfcAdapter().load(REAL)
    assert len(corpus.documents) == len(corpus.units) == 15
    for u in corpus.units:
        assert len(u.parts) >= 5, u.unit_id
        assert "[Page" not in u.text and "\f" not in u.text
    assert "4.1.2" in {p.label for p in unit(corpus, "rfc-6749").parts}
    assert any(r.src_unit == "rfc-6750" and r.dst_unit == "rfc-6749" for r in corpus.references)
    for r in corpus.references:
        assert unit(corpus, r.src_unit).text[r.start:r.end] == r.raw
