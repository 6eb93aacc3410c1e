from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchor_core.normalize import find_in_original, locate, normalize


def _source_of(original: str, needle: str) -> str:
    n = normalize(original)
    at = n.text.index(needle)
    a, b = n.to_original(at, at + len(needle))
    return original[a:b]


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("ﬁnal ﬂow eﬀect oﬃce baﬄe", "final flow effect office baffle"),
        ("the “provider’s” duty", 'the "provider\'s" duty'),
        ("regu\u00adlation", "regulation"),
        ("regu\u00ad\nlation", "regulation"),
        ("the regu-\nlation applies", "the regulation applies"),
        ("a high-\nrisk system", "a high-risk system"),
        ("non-\nbinding and co-\nordinated", "non-binding and co-ordinated"),
        ("the Member-\nStates", "the Member-States"),
        ("Regulation (EU) 2016-\n679", "Regulation (EU) 2016-679"),
        ("wrapped\nline  and\ttab\u00a0nbsp", "wrapped line and tab nbsp"),
        ("para one.\n\n\npara two", "para one.\n\npara two"),
        ("page\n\x0c\nbreak", "page\n\nbreak"),
        ("zero\u200bwidth and\u200e mark", "zerowidth and mark"),
        ("the end.Next one", "the end. Next one"),
        ("e.g.The and U.S.Army", "e.g.The and U.S.Army"),
        ("windows\r\nline", "windows line"),
    ],
)
def test_normalisations(original: str, expected: str) -> None:
    assert normalize(original).text == expected


def test_hyphen_follows_the_texts_own_spelling() -> None:
    # "decision-making" is written with a hyphen elsewhere, so the broken one keeps it.
    assert "decision-making" in normalize("decision-making. The decision-\nmaking process").text
    # "cooperation" is written joined elsewhere, so the prefix rule gives way.
    assert normalize("cooperation. The co-\noperation").text.endswith("The cooperation")


def test_maps_hyphenated_word_back_to_both_lines() -> None:
    assert _source_of("the regu-\nlation applies", "regulation") == "regu-\nlation"
    assert _source_of("the regu-\nlation applies", "lation applies") == "lation applies"
    assert _source_of("a high-\nrisk system", "high-risk") == "high-\nrisk"


def test_maps_ligature_and_whitespace_outward() -> None:
    assert _source_of("the ﬁnal text", "fi") == "ﬁ"
    assert _source_of("the ﬁnal text", "i") == "ﬁ"
    assert _source_of("one  \n  two", "one two") == "one  \n  two"
    assert _source_of("one  \n  two", "two") == "two"


def test_removed_characters_are_covered_only_inside_the_span() -> None:
    original = "ab\u00adcd"
    n = normalize(original)
    assert n.text == "abcd"
    assert n.to_original(0, 4) == (0, 5)
    assert n.to_original(2, 4) == (3, 5)  # the soft hyphen at the edge is left out
    assert n.to_original(0, 2) == (0, 2)


def test_inserted_space_maps_to_the_position_between() -> None:
    original = "the end.Next one"
    n = normalize(original)
    space = n.text.index(". ") + 1
    assert n.to_original(space, space + 1, context=False) == (8, 8)
    a, b = n.to_original(space, space + 1)
    assert " " in normalize(original[a:b]).text
    assert _source_of(original, "Next one") == "Next one"
    assert _source_of(original, "end. Next") == "end.Next"


def test_empty_and_invalid_spans() -> None:
    n = normalize("a\tb")
    assert n.to_original(1, 1) == (1, 1)
    assert n.to_original(3, 3) == (3, 3)
    with pytest.raises(ValueError, match="outside"):
        n.to_original(2, 9)
    with pytest.raises(ValueError, match="outside"):
        n.to_original(2, 1)


def test_find_in_original_strips_and_checks_the_source() -> None:
    original = "first line\n  second line"
    n = normalize(original)
    at = n.text.index(" second")
    a, b = find_in_original(original, n, at, at + len(" second"))
    assert original[a:b] == "second"
    with pytest.raises(ValueError, match="different text"):
        find_in_original("other text", n, 0, 2)


def test_locate_finds_quote_across_pdf_artefacts() -> None:
    original = "The provider shall keep the docu-\nmentation for ten\u00a0years.Next comes oﬃcial text."
    a, b = locate(original, "keep the documentation for ten years.")
    assert original[a:b] == "keep the docu-\nmentation for ten\u00a0years."
    a, b = locate(original, "official text")
    assert original[a:b] == "oﬃcial text"
    assert locate(original, "not in there") is None
    assert locate(original, "  ") is None


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------

_PIECES = [
    "regu",
    "lation",
    "high",
    "risk",
    "non",
    "co",
    "Member",
    "States",
    "2016",
    "end",
    "Next",
    "the",
    "AI",
    "ﬁ",
    "ﬂ",
    "ﬃ",
    "\u00ad",
    "-",
    "-\n",
    "- \n  ",
    "\u00ad\n",
    "‘",
    "’",
    "“",
    "”",
    " ",
    " ",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\n \n",
    "\t",
    "\u00a0",
    "\u200b",
    "\u200e",
    "\r\n",
    "\x0c",
    ".",
    ". ",
    "!",
    "?",
    ",",
    "(a)",
    "e.g.",
    "x",
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts, st.data())
def test_every_span_maps_to_an_original_span_that_normalises_to_contain_it(text: str, data) -> None:
    n = normalize(text)
    length = len(n.text)
    spans = [(s, e) for s in range(length + 1) for e in range(s, length + 1)]
    if len(spans) > 60:
        spans = data.draw(st.lists(st.sampled_from(spans), min_size=60, max_size=60))
    for s, e in spans:
        a, b = n.to_original(s, e)
        assert 0 <= a <= b <= len(text)
        assert n.text[s:e] in normalize(text[a:b], lexicon=n.lexicon).text, (s, e, a, b)
        ta, tb = n.to_original(s, e, context=False)
        assert a <= ta <= tb <= b


_plain = st.text(alphabet=st.sampled_from(list("abcXYZ09,;:()'\"/")), min_size=1, max_size=20)


@settings(max_examples=50, deadline=None)
@given(st.lists(_plain, max_size=12))
def test_text_without_artefacts_maps_to_identical_offsets(words: list[str]) -> None:
    text = " ".join(words)
    n = normalize(text)
    assert n.text == text
    for s in range(len(text) + 1):
        for e in range(s, min(len(text), s + 6) + 1):
            assert n.to_original(s, e) == (s, e)
