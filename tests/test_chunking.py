from anchor_core.chunking import chunk_unit
from tests.conftest import unit


def test_structural_chunks_follow_parts_and_carry_the_heading():
    u = unit("article-6", "1. First paragraph about scope.\n2. Second paragraph about Annex III.", heading="Article 6",
             title="Classification",
             parts=[("1", "1. First paragraph about scope."), ("2", "2. Second paragraph about Annex III.")])
    chunks = chunk_unit(u, min_chars=0)
    assert [c.part for c in chunks] == ["1", "2"]
    for c in chunks:
        assert u.text[c.start:c.end] == c.text
        assert c.embed_text.startswith("Article 6. Classification.")


def test_long_part_is_split_at_line_ends_never_mid_sentence():
    lines = [f"({chr(97 + i)}) point number {i} says something rather long about obligations." for i in range(12)]
    text = "1. Lead in:\n" + "\n".join(lines)
    u = unit("article-9", text, parts=[("1", text)])
    chunks = chunk_unit(u, max_chars=200)
    assert len(chunks) > 3
    for c in chunks:
        assert len(c.text) <= 200
        assert u.text[c.start:c.end] == c.text
        assert c.part == "1"
        assert c.text.endswith(".") or c.text.endswith(":")
    covered = "".join(c.text for c in chunks).replace("\n", "")
    assert covered == text.replace("\n", "")


def test_short_sibling_points_are_packed_under_their_parent():
    items = [f"{i}. Item {i}." for i in range(1, 6)]
    body = "Section A — Items\n" + "\n".join(items)
    u = unit("annex-8", body, kind="annex", parts=[("A", body)] + [(f"A.{i}", items[i - 1]) for i in range(1, 6)])
    chunks = chunk_unit(u)
    assert len(chunks) == 1
    assert chunks[0].part in {"A", "A.1"}


def test_top_level_paragraphs_are_never_packed():
    u = unit("article-6", "1. One.\n2. Two.\n3. Three.", parts=[("1", "1. One."), ("2", "2. Two."), ("3", "3. Three.")])
    assert [c.part for c in chunk_unit(u)] == ["1", "2", "3"]


def test_fixed_windows_overlap_and_cover_the_text():
    text = " ".join(f"word{i}" for i in range(600))
    u = unit("file-1", text)
    chunks = chunk_unit(u, "fixed", window=400, overlap=50)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for a, b in zip(chunks, chunks[1:]):
        assert b.start < a.end  # overlap
    assert all(c.lead == "" for c in chunks)
