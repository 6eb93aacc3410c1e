import pytest

from anchor_core.errors import AdapterError
from anchor_core.indexing import resolve_references
from ingest import get_adapter
from ingest.eurlex import blocks_of, clean_block, parse_regulation
from ingest.eurlex_refs import extract_references, roman_to_int
from tests.conftest import SHARED, unit


@pytest.fixture(scope="module")
def aiact():
    return get_adapter("aiact").load(None)


def test_roman_numerals():
    assert [roman_to_int(n) for n in ("I", "III", "IV", "IX", "XIII", "XL")] == [1, 3, 4, 9, 13, 40]


def test_aiact_units(aiact):
    kinds = {}
    for u in aiact.units:
        kinds[u.kind] = kinds.get(u.kind, 0) + 1
    assert kinds == {"recital": 180, "article": 113, "annex": 13}
    by_id = {u.unit_id: u for u in aiact.units}
    a6 = by_id["article-6"]
    assert a6.title == "Classification rules for high-risk AI systems"
    assert [p.label for p in a6.parts] == [str(i) for i in range(1, 9)]
    assert a6.part_text("2").startswith("2. In addition to the high-risk AI systems referred to in paragraph 1")
    assert "(a) the AI system is intended to be used as a safety component" in a6.part_text("1")  # points ride along
    a3 = by_id["annex-3"]
    assert a3.heading == "Annex III" and a3.title == "High-risk AI systems referred to in Article 6(2)"
    assert a3.part_text("4").startswith("4. Employment, workers’ management")
    assert "to evaluate candidates" in a3.part_text("4")
    assert [p.label for p in by_id["annex-8"].parts][:2] == ["A", "A.1"]
    assert by_id["recital-1"].text.startswith("The purpose of this Regulation")
    assert "Done at Brussels" not in by_id["article-113"].text
    assert "HAVE ADOPTED" not in by_id["recital-180"].text


def test_aiact_text_is_unwrapped_and_clean(aiact):
    for u in aiact.units:
        assert "](" not in u.text and "  " not in u.text, u.unit_id
        assert "high- risk" not in u.text


def test_aiact_references(aiact):
    refs, dropped = resolve_references(aiact.units, aiact.references)
    by_src = {}
    for r in refs:
        by_src.setdefault(r.src_unit, []).append(r)
    a6 = {(r.dst_unit, r.dst_part, r.src_part) for r in by_src["article-6"] if not r.in_title}
    assert ("annex-3", None, "2") in a6
    title = [r for r in by_src["annex-3"] if r.in_title]
    assert [(r.dst_unit, r.dst_part) for r in title] == [("article-6", "2")]
    units = {u.unit_id: u for u in aiact.units}
    for r in refs:
        source = units[r.src_unit].title if r.in_title else units[r.src_unit].text
        assert source[r.start:r.end] == r.raw
    resolved = sum(r.resolved for r in refs)
    assert resolved > 500 and 50 < len(refs) - resolved < 150


def test_reference_forms():
    u = unit("article-99", "See Articles 8 to 10, Article 6(2), Annexes VI and VII, point 4 of Annex III and "
             "Article 9(1) of Regulation (EU) 2016/679 and Article 16 TFEU and Article 42(1) and (2) of Regulation X.")
    got = [(r.dst_unit, r.dst_part) for r in extract_references(u)]
    assert got[:5] == [("article-8", None), ("article-9", None), ("article-10", None), ("article-6", "2"),
                       (None, None)]
    assert ("annex-6", None) in got and ("annex-7", None) in got and ("annex-3", "4") in got
    assert ("article-16", None) not in got and ("article-42", "1") not in got
    assert got.count((None, None)) == 3


def test_gdpr_table_markup_is_cleaned():
    md = ("Whereas:\n\n(1) |  First recital.\n---|---\n\nHAVE ADOPTED THIS REGULATION:\n\nCHAPTER I\n\nGeneral\n\n"
          "Article 1\n\nSubject\n\n1\\. This lays down rules.\n\n2\\. It applies:\n\n(a) |  to a;  \n---|---  \n"
          "(b) |  to b, see [(4)](#ntr4-X) Article 2.  \n---|---  \n\nArticle 2\n\nScope\n\nText of two.\n")
    units = {u.unit_id: u for u in parse_regulation(md, "gdpr")}
    assert units["recital-1"].text == "First recital."
    a1 = units["article-1"]
    assert a1.text == "1. This lays down rules.\n2. It applies:\n(a) to a;\n(b) to b, see Article 2."
    assert [p.label for p in a1.parts] == ["1", "2"]


def test_wrapped_lines_are_joined_and_links_dropped():
    assert clean_block(["a high-", "risk system ([OJ L 1](./x/y-", "z)) here"]) == "a high-risk system (OJ L 1) here"
    assert blocks_of("a\nb\n\n\nc") == ["a b", "c"]


def test_errors(tmp_path):
    with pytest.raises(AdapterError, match="needs the markdown"):
        get_adapter("gdpr").load(None)
    (tmp_path / "x.md").write_text("nothing here")
    with pytest.raises(AdapterError, match="no 'Article N' headings"):
        get_adapter("gdpr").load(tmp_path)
    (tmp_path / "sub").mkdir()
    with pytest.raises(AdapterError, match="holds no .md"):
        get_adapter("gdpr").load(tmp_path / "sub")
    with pytest.raises(AdapterError, match="does not exist"):
        get_adapter("gdpr").load(tmp_path / "missing")


@pytest.mark.skipif(not (SHARED / "corpora" / "gdpr").exists(), reason="shared GDPR corpus not present")
def test_real_gdpr():
    parsed = get_adapter("gdpr").load(SHARED / "corpora" / "gdpr")
    kinds = {}
    for u in parsed.units:
        kinds[u.kind] = kinds.get(u.kind, 0) + 1
    assert kinds == {"recital": 173, "article": 99}
    a17 = next(u for u in parsed.units if u.unit_id == "article-17")
    assert a17.title.startswith("Right to erasure")
    assert "\n(b) the data subject withdraws consent" in a17.text
