"""The generic files adapter over ``tests/data/files``.

The fixture folder holds two markdown files in ``policies/`` that link to each other and to
``expenses.txt`` (CRLF line endings, numbered headings), ``policies-travel.txt`` whose slug
collides with ``policies/travel.md``, an empty ``empty.md`` and a ``notes.pdf`` to ignore.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from anchor_core.errors import AdapterError
from anchor_core.models import ParsedCorpus, Unit
from ingest import get_adapter
from ingest.files import FilesAdapter

DATA = Path(__file__).resolve().parents[1] / "data" / "files"


@pytest.fixture(scope="module")
def corpus() -> ParsedCorpus:
    return FilesAdapter().load(DATA)


def unit(corpus: ParsedCorpus, unit_id: str) -> Unit:
    return next(u for u in corpus.units if u.unit_id == unit_id)


def refs_from(corpus: ParsedCorpus, unit_id: str) -> list[tuple[str, str | None, str | None, str | None]]:
    return [(r.raw, r.src_part, r.dst_unit, r.dst_part) for r in corpus.references if r.src_unit == unit_id]


def test_registered_under_its_name():
    adapter = get_adapter("files")
    assert isinstance(adapter, FilesAdapter) and adapter.needs_path


def test_one_document_and_unit_per_file(corpus):
    ids = ["expenses", "policies-handbook", "policies-travel", "policies-travel-2"]
    assert [u.unit_id for u in corpus.units] == ids
    assert [d.doc_id for d in corpus.documents] == ids
    assert {u.kind for u in corpus.units} == {"file"}
    assert all(u.doc_id == u.unit_id for u in corpus.units)
    assert all(len(d.sha256) == 64 for d in corpus.documents)


def test_skips_other_extensions_and_empty_files(caplog):
    with caplog.at_level(logging.WARNING, logger="ingest.files"):
        FilesAdapter().load(DATA)
    assert "notes.pdf" in caplog.text and "empty.md" in caplog.text


def test_heading_and_title(corpus):
    travel = unit(corpus, "policies-travel")
    assert travel.heading == "travel"
    assert travel.title == "Travel policy"
    assert unit(corpus, "expenses").title == ""
    assert unit(corpus, "policies-travel-2").heading == "policies-travel"
    titles = ["expenses", "Staff handbook", "Travel policy", "policies-travel"]
    assert [d.title for d in corpus.documents] == titles


def test_text_is_kept_with_unix_newlines(corpus):
    expenses = unit(corpus, "expenses")
    assert "\r" not in expenses.text
    assert expenses.text == (DATA / "expenses.txt").read_bytes().decode("utf-8").replace("\r\n", "\n")
    assert unit(corpus, "policies-travel").text == (DATA / "policies" / "travel.md").read_text("utf-8")


def test_markdown_headings_become_nested_parts(corpus):
    travel = unit(corpus, "policies-travel")
    assert [(p.label, p.title) for p in travel.parts] == [
        ("Travel policy", "Travel policy"), ("1", "Scope"), ("2", "Booking"),
        ("2.1", "Limits"), ("2.2", "Approvals"),
    ]
    part = {p.label: p for p in travel.parts}
    assert travel.part_text("2").startswith("## 2 Booking\n")
    assert travel.part_text("2.1").startswith("### 2.1 Limits\n")
    assert part["2"].start <= part["2.1"].start < part["2.1"].end <= part["2.2"].start
    assert part["2.2"].end == part["2"].end
    assert part["Travel policy"].start == 0 and part["Travel policy"].end == len(travel.text.rstrip())
    assert "# a comment in a code block" in travel.part_text("2.1")  # not a heading of its own
    handbook = unit(corpus, "policies-handbook")
    assert handbook.part_text("Leave").startswith("## Leave\n")


def test_numbered_text_headings_become_parts(corpus):
    expenses = unit(corpus, "expenses")
    assert [(p.label, p.title) for p in expenses.parts] == [
        ("1", "Scope"), ("2", "Claims"), ("2.1", "Receipts"), ("2.2", "Approval"),
    ]
    assert expenses.part_text("2.1").startswith("2.1 Receipts\n")
    assert expenses.part_text("2.2").endswith("2. The manager approves it.")  # list items stay inside


def test_section_references_point_into_the_same_file(corpus):
    assert refs_from(corpus, "expenses") == [("Section 2.2", "2.1", "expenses", "2.2")]
    assert refs_from(corpus, "policies-travel-2") == [("Section 1", None, "policies-travel-2", "1")]


def test_links_point_at_other_files(corpus):
    assert refs_from(corpus, "policies-travel") == [
        ("Section 2.1", "1", "policies-travel", "2.1"),
        ("section 2.1", "2.1", "policies-travel", "2.1"),
        ("Section 9", "2.1", None, None),
        ("[expenses procedure](../expenses.txt)", "Travel policy", "expenses", None),
        ("[the handbook](handbook.md#leave)", "Travel policy", "policies-handbook", None),
    ]
    assert refs_from(corpus, "policies-handbook") == [
        ("[the travel policy](travel.md)", "Leave", "policies-travel", None),
        ("[missing file](gone.md)", "Leave", None, None),
    ]


def test_reference_offsets_match_the_text(corpus):
    text = {u.unit_id: u.text for u in corpus.units}
    assert corpus.references
    for r in corpus.references:
        assert text[r.src_unit][r.start:r.end] == r.raw


def test_a_single_file_may_be_given(corpus):
    pc = FilesAdapter().load(DATA / "policies" / "travel.md")
    assert [u.unit_id for u in pc.units] == ["travel"]
    # the handbook is not part of this corpus, so the link to it stays unresolved
    assert [r.dst_unit for r in pc.references if r.raw.startswith("[the handbook")] == [None]


def test_missing_path():
    with pytest.raises(AdapterError, match="needs a folder"):
        FilesAdapter().load(None)
    with pytest.raises(AdapterError, match="does not exist"):
        FilesAdapter().load(DATA / "nowhere")


def test_empty_folder(tmp_path):
    with pytest.raises(AdapterError, match="no .txt or .md files"):
        FilesAdapter().load(tmp_path)
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4\n")
    with pytest.raises(AdapterError, match="no .txt or .md files"):
        FilesAdapter().load(tmp_path)


def test_only_empty_files(tmp_path):
    (tmp_path / "a.md").write_text("", encoding="utf-8")
    (tmp_path / "b.txt").write_text("  \n\n", encoding="utf-8")
    with pytest.raises(AdapterError, match="no text"):
        FilesAdapter().load(tmp_path)


def test_non_utf8_file_among_good_ones(tmp_path):
    shutil.copytree(DATA, tmp_path / "docs")
    (tmp_path / "docs" / "latin1.txt").write_bytes("Caf\u00e9 policy\n".encode("latin-1"))
    with pytest.raises(AdapterError, match=r"latin1\.txt is not UTF-8"):
        FilesAdapter().load(tmp_path / "docs")


def test_slugs_are_unique(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.md").write_text("# One\n", encoding="utf-8")
    (tmp_path / "a-b.txt").write_text("Two\n", encoding="utf-8")
    (tmp_path / "A B.md").write_text("Three\n", encoding="utf-8")
    ids = [u.unit_id for u in FilesAdapter().load(tmp_path).units]
    assert sorted(ids) == ["a-b", "a-b-2", "a-b-3"]
