"""Escaping untrusted text for Markdown and HTML (anchor_core.safe)."""

from __future__ import annotations

import html
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchor_core.safe import json_for_html, md_code, md_escape
from tests.payloads import PAYLOADS, RUN_ID, live_markup


def unescape(markdown: str) -> str:
    """What a CommonMark renderer shows for escaped text: backslash escapes, then entities."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_are_inert_and_read_the_same(payload):
    out = md_escape(payload)
    assert live_markup(out) == [] and "<" not in out and ">" not in out
    assert unescape(out) == payload


def test_legal_text_renders_unchanged():
    for text in ["Article 6(2)", "Annex III, point 4(a)", "EUR 35 000 000 or 7 % of turnover", "high_risk *AI*"]:
        assert unescape(md_escape(text)) == text
    assert md_escape("Article 6(2)") == r"Article 6\(2\)"


def test_line_starts_cannot_open_blocks():
    out = md_escape("intro\n# heading\n- item\n+ item\n1. item\n    indented code\n===\n> quote")
    lines = out.split("\n")
    assert lines[1].startswith("\\#") and lines[2].startswith("\\-") and lines[3].startswith("\\+")
    assert lines[4].startswith("1\\.") and lines[5] == "indented code" and lines[6].startswith("\\=")
    assert lines[7].startswith("&gt;")
    assert md_escape("a\n\nb", inline=True) == "a b"


def test_code_span_holds_anything():
    for text in ["plain", "a`b", "``x``", RUN_ID]:
        span = md_code(text)
        fence = re.match(r"`+", span).group()
        assert span.endswith(fence) and fence not in span[len(fence):-len(fence)]
        assert span[len(fence):-len(fence)].strip() == text.strip()
    assert "\n" not in md_code("a\n# b")


def test_json_for_html_cannot_close_its_element_and_reads_back():
    data = {"q": "</script><!-- --> & <b>", "n": [1, "\u2028"]}
    text = json_for_html(data)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == data


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab 1.\n\t") + list("\\`*_{}[]()#+-.!|~$<>&=:/'\"")), max_size=60))
def test_escaped_text_is_inert_and_lossless(text):
    out = md_escape(text)
    bare = re.sub(r"\\[!-/:-@\[-`{-~]", "", out)
    assert not re.search(r"[\\`*_{}\[\]()#!|~$<>]", bare)
    assert not re.search(r"^([-+=]|\d+\.|[ \t])", out, re.M)
    expected = re.sub(r"^[ \t]+", "", text, flags=re.M)  # leading indentation is dropped, nothing else
    assert unescape(out) == expected
