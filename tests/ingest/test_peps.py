"""The PEPs adapter over trimmed copies of PEP 8, 257 and 457 in ``tests/data/peps``.

The PEP 257 copy has two additions so that every reference form is covered: a
``Replaces: 3000`` header field and a paragraph with ``PEPs 8 and 257`` and
``:pep:`8#code-lay-out```.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anchor_core.errors import AdapterError
from anchor_core.models import ParsedCorpus, Unit
from ingest import get_adapter
from ingest.peps import PepsAdapter

DATA = Path(__file__).resolve().parents[1] / "data" / "peps"
REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "corpora" / "peps"


@pytest.fixture(scope="module")
def corpus() -> ParsedCorpus:
    return PepsAdapter().load(DATA)


def unit(corpus: ParsedCorpus, unit_id: str) -> Unit:
    return next(u for u in corpus.units if u.unit_id == unit_id)


def refs_from(corpus: ParsedCorpus, unit_id: str) -> list[tuple[str, str | None, str]]:
    return [(r.raw, r.dst_unit, r.dst_part) for r in corpus.references if r.src_unit == unit_id]


def test_registered_under_its_name():
    assert isinstance(get_adapter("peps"), PepsAdapter)


def test_one_document_and_unit_per_pep(corpus):
    assert [u.unit_id for u in corpus.units] == ["pep-8", "pep-257", "pep-457"]
    pep8 = unit(corpus, "pep-8")
    assert (pep8.kind, pep8.heading, pep8.title) == ("file", "PEP 8", "Style Guide for Python Code")
    doc = next(d for d in corpus.documents if d.doc_id == "pep-8")
    assert doc.meta == {"status": "Active", "type": "Process", "created": "05-Jul-2001"}
    assert doc.source.endswith("pep-0008.rst") and len(doc.sha256) == 64


def test_text_drops_header_and_adornments_but_keeps_paragraphs(corpus):
    text = unit(corpus, "pep-8").text
    assert text.startswith("Introduction\n\nThis document gives coding conventions")
    assert "Author:" not in text and "Post-History" not in text
    assert "====" not in text and "----" not in text and "~~~~" not in text
    assert "\n\n\n" not in text
    assert "the language itself.\n\nMany projects" in text


def test_sections_are_nested_parts_labelled_by_title(corpus):
    u = unit(corpus, "pep-8")
    labels = [p.label for p in u.parts]
    assert labels[:5] == ["Introduction", "A Foolish Consistency is the Hobgoblin of Little Minds",
                          "Code Lay-out", "Indentation", "Tabs or Spaces?"]
    assert "Names to Avoid" in labels and "Prescriptive: Naming Conventions" in labels
    for p in u.parts:
        assert p.title == p.label
        assert u.text[p.start:p.end].startswith(p.label + "\n")
    part = {p.label: p for p in u.parts}
    layout, indentation = part["Code Lay-out"], part["Indentation"]
    assert layout.start < indentation.start < indentation.end <= layout.end
    prescriptive = next(p for p in u.parts if p.label == "Prescriptive: Naming Conventions")
    avoid = next(p for p in u.parts if p.label == "Names to Avoid")
    assert prescriptive.start < avoid.start < avoid.end <= prescriptive.end
    # A sibling section ends where the next one starts, not inside it.
    tabs = next(p for p in u.parts if p.label == "Tabs or Spaces?")
    assert indentation.end < tabs.start


def test_overline_titles_are_sections(corpus):
    u = unit(corpus, "pep-457")
    assert [p.label for p in u.parts] == ["Overview", "Rationale"]
    assert u.text.startswith("Overview\n\nThis PEP proposes")


def test_reference_offsets_match_raw_text(corpus):
    assert corpus.references
    for r in corpus.references:
        assert unit(corpus, r.src_unit).text[r.start:r.end] == r.raw
        assert r.resolved is False


def test_reference_forms(corpus):
    refs8 = refs_from(corpus, "pep-8")
    assert (":pep:`257`", "pep-257", None) in refs8
    role = next(r for r in refs8 if r[1] == "pep-7")
    assert role[0].startswith(":pep:`style guidelines") and role[0].endswith("<7>`")
    # An anchor to a PEP outside the corpus keeps the unit-level target.
    assert (":pep:`policy section <3131#policy-specification>`", "pep-3131", None) in refs8

    refs257 = refs_from(corpus, "pep-257")
    assert ("PEPs 8 and 257", "pep-8", None) in refs257
    assert ("PEPs 8 and 257", "pep-257", None) in refs257
    assert (":pep:`8#code-lay-out`", "pep-8", "Code Lay-out") in refs257
    assert ("PEP 8", "pep-8", None) in refs257


def test_source_part_is_the_innermost_section(corpus):
    r = next(r for r in corpus.references if r.src_unit == "pep-8" and r.raw == ":pep:`3131`")
    assert r.src_part == "ASCII Compatibility"


def test_self_references_are_left_to_the_core(corpus):
    assert any(r.src_unit == r.dst_unit == "pep-257" for r in corpus.references)


def test_header_fields_make_no_references(corpus):
    assert not any(r.dst_unit == "pep-3000" for r in corpus.references)


def test_missing_path_is_an_adapter_error(tmp_path):
    with pytest.raises(AdapterError, match="needs a folder"):
        PepsAdapter().load(None)
    with pytest.raises(AdapterError, match="does not exist"):
        PepsAdapter().load(tmp_path / "nowhere")


def test_empty_folder_is_an_adapter_error(tmp_path):
    with pytest.raises(AdapterError, match=r"no \*\.rst files"):
        PepsAdapter().load(tmp_path)


def test_non_pep_file_is_named_in_the_error(tmp_path):
    (tmp_path / "pep-0008.rst").write_bytes((DATA / "pep-0008.rst").read_bytes())
    notes = tmp_path / "notes.rst"
    notes.write_text("Notes\n=====\n\nNot a PEP.\n", encoding="utf-8")
    with pytest.raises(AdapterError, match=r"notes\.rst is not a PEP"):
        PepsAdapter().load(tmp_path)


def test_unreadable_file_is_an_adapter_error(tmp_path):
    (tmp_path / "pep-0001.rst").write_bytes(b"PEP: 1\nTitle: \xff\xfe\n")
    with pytest.raises(AdapterError, match="not UTF-8"):
        PepsAdapter().load(tmp_path)


def test_real_corpus():
    if not REAL.is_dir():
        pytest.skip(f"{REAL} is absent")
    corpus = PepsAdapter().load(REAL)
    assert len(corpus.documents) == len(corpus.units) == 60
    assert all(u.parts for u in corpus.units)
    for r in corpus.references:
        assert unit(corpus, r.src_unit).text[r.start:r.end] == r.raw
    assert any(r.src_unit == "pep-257" and r.dst_unit == "pep-8" for r in corpus.references)
