"""Structure above the unit: containers recorded by the adapters and container references
expanded to their members (ingest/containers.py)."""

import pytest

from anchor_core.indexing import resolve_references
from anchor_core.models import Container, Reference
from ingest import get_adapter
from ingest.containers import FANOUT_LIMIT, containers_of, expand, heading_title, members
from ingest.eurlex_refs import extract_references
from tests.conftest import SHARED, unit


@pytest.fixture(scope="module")
def aiact():
    return get_adapter("aiact").load(None)


def _chapter(cid: str, label: str, title: str = "") -> Container:
    return Container(id=cid, kind="chapter" if "section" not in cid else "section", label=label, title=title)


def test_members_follow_unit_order_and_nesting():
    ch, sec = _chapter("chapter-iii", "Chapter III"), _chapter("chapter-iii-section-2", "Section 2")
    units = [unit("article-6", "a"), unit("article-8", "b"), unit("article-9", "c"), unit("annex-1", "d")]
    units[0].containers = [ch]
    units[1].containers = units[2].containers = [ch, sec]
    assert members(units) == {"chapter-iii": ["article-6", "article-8", "article-9"],
                              "chapter-iii-section-2": ["article-8", "article-9"]}
    assert set(containers_of(units)) == {"chapter-iii", "chapter-iii-section-2"}


def test_expand_makes_one_reference_per_member_and_leaves_the_rest():
    plain = Reference(src_unit="article-9", start=0, end=9, raw="Article 6", dst_unit="article-6")
    cref = Reference(src_unit="article-113", start=4, end=21, raw="Chapters I and II", container="chapter-ii")
    unknown = Reference(src_unit="article-113", start=30, end=40, raw="Chapter XX", container="chapter-xx")
    out = expand([plain, cref, unknown], {"chapter-ii": ["article-5", "article-5a"]})
    assert out[0] == plain
    assert [(r.dst_unit, r.container, r.raw, r.start) for r in out[1:3]] == [
        ("article-5", "chapter-ii", "Chapters I and II", 4), ("article-5a", "chapter-ii", "Chapters I and II", 4)]
    assert out[3] == unknown  # nothing to expand to: stays one unresolved reference


def test_fan_out_is_bounded():
    wide = {"chapter-x": [f"article-{i}" for i in range(FANOUT_LIMIT + 1)]}
    cref = Reference(src_unit="s", start=0, end=9, raw="Chapter X", container="chapter-x")
    assert expand([cref], wide) == [cref]
    assert len(expand([cref], wide, limit=FANOUT_LIMIT + 1)) == FANOUT_LIMIT + 1
    with pytest.raises(ValueError, match="at least 1"):
        expand([cref], wide, limit=0)


def test_capitals_headings_keep_the_words_the_text_writes_in_capitals():
    assert heading_title("PROHIBITED AI PRACTICES", {"AI"}) == "Prohibited AI practices"
    assert heading_title("GENERAL PROVISIONS", {"AI"}) == "General provisions"
    assert heading_title("Rights of the data subject", set()) == "Rights of the data subject"


def test_aiact_articles_sit_in_their_chapter_and_section(aiact):
    by_id = {u.unit_id: u for u in aiact.units}
    assert [c.display for c in by_id["article-5"].containers] == ["Chapter II — Prohibited AI practices"]
    assert [c.id for c in by_id["article-10"].containers] == ["chapter-iii", "chapter-iii-section-2"]
    assert by_id["article-10"].containers[1].title == "Requirements for high-risk AI systems"
    assert by_id["annex-3"].containers == [] and by_id["recital-1"].containers == []  # never invented
    held = members(aiact.units)
    assert held["chapter-ii"] == ["article-5"]
    assert held["chapter-iii-section-2"] == [f"article-{n}" for n in range(8, 16)]
    assert len(held["chapter-iii"]) == 44


def test_article_113_leads_back_from_article_5(aiact):
    """ "Chapters I and II shall apply from 2 February 2025": a backward lead from Article 5."""
    refs, _ = resolve_references(aiact.units, aiact.references)
    into5 = [r for r in refs if r.dst_unit == "article-5" and r.src_unit == "article-113"]
    assert [(r.raw, r.container, r.resolved) for r in into5] == [("Chapters I and II", "chapter-ii", True)]
    a113 = next(u for u in aiact.units if u.unit_id == "article-113")
    assert "2 February 2025" in a113.text[into5[0].start:into5[0].end + 40]


@pytest.mark.parametrize("text, expected", [
    ("the requirements set out in Chapter III, Section 2 apply", [("Chapter III, Section 2", "chapter-iii-section-2")]),
    ("Chapter III Section 4, Chapter V and", [("Chapter III Section 4", "chapter-iii-section-4"),
                                              ("Chapter V", "chapter-v")]),
    ("obligations in Sections 2 and 3 of Chapter V", [("Sections 2 and 3 of Chapter V", "chapter-v-section-2"),
                                                      ("Sections 2 and 3 of Chapter V", "chapter-v-section-3")]),
    ("set out in Section 2 of this Chapter or", [("Section 2 of this Chapter", "chapter-iii-section-2")]),
    ("the requirements set out in Section 2;", [("Section 2", "chapter-iii-section-2")]),
    ("laid down in this Chapter", [("this Chapter", "chapter-iii")]),
    ("as provided for in this Section", [("this Section", "chapter-iii-section-3")]),
    ("Chapters I and II shall apply", [("Chapters I and II", "chapter-i"), ("Chapters I and II", "chapter-ii")]),
    # another act's chapters are not this act's containers
    ("as set out in Chapter II of Regulation (EU) 2022/2065", []),
    ("Chapter III, Section 2, of that Regulation shall", []),
    ("Chapter VI of Regulation (EU) 2019/1020 shall apply", []),
    # annex sections are parts of an annex, not containers
    ("listed in Section A of Annex I", []),
])
def test_container_reference_grammar(text, expected):
    src = unit("article-16", text)
    src.containers = [_chapter("chapter-iii", "Chapter III"), _chapter("chapter-iii-section-3", "Section 3")]
    got = [(r.raw, r.container) for r in extract_references(src) if r.container]
    assert got == expected


def test_relative_references_need_a_container_to_be_relative_to():
    src = unit("annex-4", "the requirements set out in Section 2 and this Chapter", kind="annex")
    assert [r for r in extract_references(src) if r.container] == []


def test_aiact_gains_references_and_none_unresolved(aiact):
    refs, _ = resolve_references(aiact.units, aiact.references)
    container = [r for r in refs if r.container]
    assert container and all(r.resolved for r in container)
    written = {(r.src_unit, r.in_title, r.start, r.end) for r in container}
    assert len(written) >= 60  # "Chapter III, Section 2" alone is written over 30 times


@pytest.mark.skipif(not (SHARED / "corpora" / "gdpr").exists(), reason="shared GDPR corpus not present")
def test_gdpr_chapters_and_sections():
    parsed = get_adapter("gdpr").load(SHARED / "corpora" / "gdpr")
    by_id = {u.unit_id: u for u in parsed.units}
    assert [c.display for c in by_id["article-12"].containers] == [
        "Chapter III — Rights of the data subject", "Section 1 — Transparency and modalities"]
    refs, _ = resolve_references(parsed.units, parsed.references)
    assert any(r.container == "chapter-ix" and r.resolved for r in refs)


def test_adgm_passages_sit_in_the_chapters_sections_and_parts_the_source_heads():
    from ingest.adgm import AdgmAdapter
    from tests.ingest.test_adgm import DATA

    parsed = AdgmAdapter().load(DATA)
    by_pid = {(u.doc_id, u.meta["passage_id"]): u for u in parsed.units}
    rule = by_pid[("adgm-1", "3.2.1.(1)")]
    assert [(c.kind, c.label, c.title) for c in rule.containers] == [
        ("chapter", "Chapter 3", "Customers"), ("section", "Section 3.2", "Risk-based approach")]
    reg = by_pid[("adgm-2", "Part 6.Chapter 1.60.(1)")]
    assert [c.display for c in reg.containers] == ["Part 6 — Official List of Securities",
                                                   "Chapter 1 — Offer of Securities"]
    assert by_pid[("adgm-1", "1.")].containers == []  # a heading is not inside itself
    assert by_pid[("adgm-2", "Part 8.92.(1)")].containers[0].id != reg.containers[0].id
    held = members(parsed.units)
    assert len({c.id for u in parsed.units for c in u.containers}) == len(held)


def test_a_chunk_that_cites_a_container_carries_its_title_and_is_found_by_it(tmp_path):
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.indexing import ingest
    from anchor_core.models import Filters
    from anchor_core.stores.sqlite import SQLiteStore
    from tests.stores.contract import chaptered_corpus

    parsed = chaptered_corpus()
    inner = unit("article-6b", "The rules of this Chapter bind providers.")
    inner.containers = list(parsed.units[0].containers)
    said = unit("article-10", "The prohibited practice in Chapter II is a practice of record.")
    parsed.units += [inner, said]
    parsed.references += expand([Reference(src_unit="article-6b", start=13, end=25, raw="this Chapter",
                                           container="chapter-ii"),
                                 Reference(src_unit="article-10", start=28, end=38, raw="Chapter II",
                                           container="chapter-ii")], members(parsed.units))
    store = SQLiteStore(tmp_path / "a.db")
    ingest(store, HashEmbedder(), parsed, corpus="acts", adapter="test")
    lead = {u: store.unit_chunks("acts", u, Filters())[0].lead for u in ("article-5", "article-9", "article-6b")}
    assert lead["article-9"] == "article-9. (Chapter II — Prohibited practices)"
    assert lead["article-5"] == "article-5." and lead["article-6b"] == "article-6b."  # members and self: unchanged
    # a title whose words the chunk already has adds nothing
    assert store.unit_chunks("acts", "article-10", Filters())[0].lead == "article-10."
    # "practices" is written only in the chapter's title: the provision that cites the chapter is found by it
    hits = store.search_bm25("acts", ["practices"], 5, Filters())
    found = {store.get_chunks("acts", [h])[h].unit_id for h, _ in hits}
    assert found == {"article-9", "article-10"}  # Article 10 by its own words; no member by the title
    ingest(store, HashEmbedder(), parsed, corpus="flat", adapter="test", chunking="fixed")
    assert "Chapter II" not in store.unit_chunks("flat", "article-9", Filters())[0].lead


def test_a_question_naming_a_chapter_expands_to_its_articles(aiact):
    from ingest.eurlex_refs import container_references

    refs = container_references("Which practices does Chapter II prohibit?", src_unit="question")
    assert [(r.raw, r.container, r.dst_unit) for r in refs] == [("Chapter II", "chapter-ii", None)]
    assert [r.dst_unit for r in expand(refs, members(aiact.units))] == ["article-5"]
    assert container_references("What does this Chapter say?", src_unit="question") == []  # nothing to be in


def test_the_writer_is_told_the_titles_of_the_containers_a_unit_cites(tmp_path):
    """``cited_titles``: the span of "Chapter II" in the citing unit with the chapter's title; a unit's
    reference to the container it sits in ("this Chapter") gets none."""
    from anchor_core.ask.pipeline import cited_titles
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.indexing import ingest
    from anchor_core.stores.sqlite import SQLiteStore
    from tests.stores.contract import chaptered_corpus

    parsed = chaptered_corpus()
    inner = unit("article-6b", "The rules of this Chapter bind providers.")
    inner.containers = list(parsed.units[0].containers)
    parsed.units.append(inner)
    parsed.references += expand([Reference(src_unit="article-6b", start=13, end=25, raw="this Chapter",
                                           container="chapter-ii")], members(parsed.units))
    store = SQLiteStore(tmp_path / "a.db")
    ingest(store, HashEmbedder(), parsed, corpus="acts", adapter="test")
    units = store.get_units("acts", ["article-5", "article-6b", "article-9"])
    got = cited_titles(store, "acts", units, list(units))
    assert got == {"article-9": [(0, 10, "Chapter II — Prohibited practices")]}  # one span, not one per member
    assert units["article-9"].text[0:10] == "Chapter II"
    assert cited_titles(store, "acts", {}, []) == {}
    assert cited_titles(store, "acts", units, ["article-5"]) == {}  # only the units asked for
