"""The ADGM adapter over a two-document fixture in ``tests/data/adgm``.

Document 1 is a rulebook shaped like the AML Rulebook (PassageIDs ``1.1.1.(1)``,
``1.2.3.Guidance.1.``), document 2 a regulation shaped like FSMR (``Part 6.Chapter 1.60.(1)``).
Their passages hold one of each reference form the adapter resolves, some with the U+200E
marks of the real corpus.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from anchor_core.errors import AdapterError
from anchor_core.models import ParsedCorpus
from ingest import get_adapter
from ingest.adgm import AdgmAdapter, pid_key

DATA = Path(__file__).resolve().parents[1] / "data" / "adgm"
SHARED = Path("/work/shared/data")
REAL = SHARED / "corpora" / "adgm"
BENCH = SHARED / "bench" / "xrefrag"


def uid(doc: int, n: int) -> str:
    return f"{doc:08x}-0000-4000-8000-{n:012d}"


@pytest.fixture(scope="module")
def corpus() -> ParsedCorpus:
    return AdgmAdapter().load(DATA)


@pytest.fixture(scope="module")
def pids(corpus) -> dict[str, str]:
    """unit id -> "doc/PassageID", so expectations read like the source."""
    return {u.unit_id: f"{u.doc_id.removeprefix('adgm-')}/{u.meta['passage_id']}" for u in corpus.units}


def cites(corpus, pids, src: str) -> list[tuple[str, str | None]]:
    """(raw, target "doc/PassageID") for every reference made by passage ``src``."""
    src_uid = next(k for k, v in pids.items() if v == src)
    return [(r.raw, pids.get(r.dst_unit) if r.dst_unit else None)
            for r in corpus.references if r.src_unit == src_uid]


def test_registered_under_its_name():
    adapter = get_adapter("adgm")
    assert isinstance(adapter, AdgmAdapter) and adapter.needs_path


def test_documents_take_names_from_the_map(corpus):
    assert [(d.doc_id, d.title) for d in corpus.documents] == [
        ("adgm-1", "Anti-Money Laundering and Sanctions Rules and Guidance (AML)"),
        ("adgm-2", "FINANCIAL SERVICES AND MARKETS REGULATIONS 2015"),
    ]
    assert all(len(d.sha256) == 64 for d in corpus.documents)


def test_one_unit_per_non_empty_passage(corpus):
    raw = [p for f in sorted((DATA / "documents").glob("*.json")) for p in json.loads(f.read_text("utf-8"))]
    assert [u.unit_id for u in corpus.units] == [p["ID"] for p in raw if p["Passage"].strip()]
    assert len(corpus.units) == 33
    assert uid(1, 3) not in {u.unit_id for u in corpus.units}  # "1.1.1" is empty
    assert {u.kind for u in corpus.units} == {"passage"} and all(not u.parts for u in corpus.units)


def test_heading_title_and_text(corpus):
    u = next(u for u in corpus.units if u.unit_id == uid(1, 4))
    assert u.heading == "AML 1.1.1.(1)"
    assert u.title == "Jurisdiction"
    assert u.doc_id == "adgm-1"
    fsmr = next(u for u in corpus.units if u.unit_id == uid(2, 5))
    assert fsmr.heading == "FSMR Part 6.Chapter 1.60.(1)"
    assert fsmr.title == "General prohibitions and definitions. Exempt Offerors"
    assert "\u200e" not in fsmr.text and "section 58 (1)" in fsmr.text
    first = next(u for u in corpus.units if u.unit_id == uid(2, 1))
    assert first.text.startswith("Regulations to make provision")  # tidied


def test_path_may_be_the_documents_folder(corpus):
    again = AdgmAdapter().load(DATA / "documents")
    assert [d.title for d in again.documents] == [d.title for d in corpus.documents]
    assert again.references == corpus.references


def test_without_a_map_documents_are_named_by_number(tmp_path):
    shutil.copytree(DATA / "documents", tmp_path / "documents")
    pc = AdgmAdapter().load(tmp_path)
    assert [d.title for d in pc.documents] == ["ADGM document 1", "ADGM document 2"]
    assert pc.units[0].heading == "ADGM document 1 1."


def test_reference_offsets_match_the_text(corpus):
    text = {u.unit_id: u.text for u in corpus.units}
    assert corpus.references
    for r in corpus.references:
        assert text[r.src_unit][r.start:r.end] == r.raw
        assert r.src_part is None and r.dst_part is None


def test_no_reference_to_self(corpus, pids):
    assert all(r.src_unit != r.dst_unit for r in corpus.references)
    assert cites(corpus, pids, "1/1.3.3.(1)") == []  # "Rule 1.3.3(1)" inside 1.3.3.(1)


@pytest.mark.parametrize(("src", "expected"), [
    # "Subject to (2)": a sibling paragraph of the same rule
    ("1/1.1.1.(1)", [("(2)", "1/1.1.1.(2)")]),
    # Rule numbers, with a U+200E before one of them, and lists
    ("1/1.1.1.(2)", [("Rule 1.2.1", "1/1.2.1"), ("Rules 1.2.2", "1/1.2.2"), ("1.2.3", "1/1.2.3")]),
    # Rule 3.2.1(1) -> PassageID 3.2.1.(1); a section of another document named by abbreviation
    ("1/1.2.1", [("Rule 3.2.1(1)", "1/3.2.1.(1)"), ("section 60 of FSMR", "2/Part 6.Chapter 1.60.(1)")]),
    # chapters reach their first non-empty, non-heading passage
    ("1/1.2.2", [("Chapters 3", "1/3.1.1"), ("4", "1/4.1.1")]),
    # an empty rule (1.3.3) resolves to its first child; a range yields the rules inside it
    ("1/1.2.3", [("Rule 1.3.3", "1/1.3.3.(1)"), ("Rules 3.2.1", "1/3.2.1.(1)"),
                 ("Rules 3.2.1 to 3.2.3", "1/3.2.2"), ("3.2.3", "1/3.2.3")]),
    # "Guidance 2" of the same rule; "paragraph (2) of Rule 3.2.1"
    ("1/1.2.3.Guidance.1.", [("Guidance 2", "1/1.2.3.Guidance.2."),
                             ("paragraph (2) of Rule 3.2.1", "1/3.2.1.(2)")]),
    # unresolved: absent rule, and a rule of a law outside the corpus
    ("1/1.2.3.Guidance.2.", [("Rule 9.9.9", None), ("Rule 6 of the Commercial Licensing Regulations", None)]),
    # a bare "section 92(2)" in a rulebook is an FSMR section
    ("1/4.1.1", [("section 92(2)", "2/Part 8.92.(2)")]),
    # in a regulation: sections by number, "subsection (2)", "Chapter 1" of the current Part
    ("2/Part 6.Chapter 1.60.(1)", [("section 58 (1)", None),
                                   ("subsection (2)", "2/Part 6.Chapter 1.60.(2)")]),
    ("2/Part 6.Chapter 1.60.(2)", [("Chapter 1", "2/Part 6.Chapter 1.60.(1)"),
                                   ("Rule 1.2.1 of the AML Rulebook", "1/1.2.1")]),
    # a document abbreviation followed by a bare rule number
    ("2/Part 8.92.(2)", [("AML 3.2.2", "1/3.2.2")]),
])
def test_reference_forms(corpus, pids, src, expected):
    assert cites(corpus, pids, src) == expected


def test_unresolved_references_are_kept(corpus):
    assert sum(r.dst_unit is None for r in corpus.references) == 3
    assert len(corpus.references) == 23


@pytest.mark.parametrize(("pid", "key"), [
    ("1.2.1.(1)", "1.2.1(1)"), ("14.2.3.Guidance.10.", "14.2.3.guidance.10"),
    ("Part 6.Chapter 1.60.(1)", "60(1)"),
    ("PART 5.12.3.10", "12.3.10"), ("APP6.A6.2.4.(1)", "a6.2.4(1)"), ("58)", "58"),
    ("Schedule 1.Part 2.Chapter 1.5.(1)", "schedule1.5(1)"), ("Part 6", "part6"), ("3.2.1 (1)", "3.2.1(1)"),
])
def test_passage_ids_and_citations_normalise_alike(pid, key):
    assert pid_key(pid) == key


def test_missing_path():
    with pytest.raises(AdapterError, match="needs a folder"):
        AdgmAdapter().load(None)
    with pytest.raises(AdapterError, match="does not exist"):
        AdgmAdapter().load(DATA / "nowhere")


def test_empty_folder(tmp_path):
    with pytest.raises(AdapterError, match="no \\*.json files"):
        AdgmAdapter().load(tmp_path)


def test_non_utf8_file(tmp_path):
    shutil.copytree(DATA / "documents", tmp_path / "documents")
    (tmp_path / "documents" / "3.json").write_bytes(b'[{"Passage": "caf\xe9"}]')
    with pytest.raises(AdapterError, match="3.json is not UTF-8"):
        AdgmAdapter().load(tmp_path)


def test_not_a_passage_file(tmp_path):
    (tmp_path / "1.json").write_text('{"ID": "x"}', encoding="utf-8")
    with pytest.raises(AdapterError, match="1.json is not an ADGM passage file"):
        AdgmAdapter().load(tmp_path)


# ----------------------------------------------------------------------------- real corpus

# Measured on the RegNLP ADGM corpus (40 documents, 13,732 passages): edge recall 0.989 on
# XRefRAG dev (91/92) and 0.995 on train (427/429); the misses cite a neighbouring section.
REAL_UNITS = 13012
MIN_RECALL = {"dev": 0.96, "train": 0.97}


@pytest.fixture(scope="module")
def real() -> ParsedCorpus:
    if not (REAL / "documents").is_dir():
        pytest.skip(f"{REAL} is not available")
    t0 = time.perf_counter()
    pc = AdgmAdapter().load(REAL)
    assert time.perf_counter() - t0 < 20  # a few seconds normally; generous for busy machines
    return pc


def test_real_corpus_counts(real):
    assert len(real.documents) == 40
    assert len(real.units) == REAL_UNITS
    assert len({u.unit_id for u in real.units}) == REAL_UNITS
    text = {u.unit_id: u.text for u in real.units}
    assert all(text[r.src_unit][r.start:r.end] == r.raw for r in real.references)
    resolved = [r for r in real.references if r.dst_unit]
    assert len(resolved) > 0.9 * len(real.references)
    assert all(r.dst_unit in text for r in resolved)


@pytest.mark.parametrize("split", ["dev", "train"])
def test_real_corpus_edge_recall(real, split):
    bench = BENCH / f"XRefRAG-ADGM-ALL-{split}.jsonl"
    if not bench.is_file():
        pytest.skip(f"{bench} is not available")
    pairs = [json.loads(line) for line in bench.read_text("utf-8").splitlines() if line.strip()]
    edges = {(r.src_unit, r.dst_unit) for r in real.references if r.dst_unit}
    hits = sum((p["source_passage_id"], p["target_passage_id"]) in edges for p in pairs)
    assert hits / len(pairs) >= MIN_RECALL[split]
