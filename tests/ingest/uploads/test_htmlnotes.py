"""An HTML page's footnotes are stored as Word's are: each after the paragraph that marks it, the mark left out of the
text (glued to a word it read as a number of the sentence), the notes not repeated where they stand."""

from __future__ import annotations

import pytest

from ingest.uploads.extract import extract_html

PANDOC = """<html><body>
<h2>2. Payment</h2>
<p>2.1 The Customer shall pay each invoice within 30 days of receipt.<a href="#fn1" class="footnote-ref" id="fnref1"
role="doc-noteref"><sup>1</sup></a> Late payments bear interest.</p>
<p>2.2 The Supplier may suspend the Services.</p>
<section id="footnotes" class="footnotes footnotes-end-of-document" role="doc-endnotes"><hr /><ol>
<li id="fn1"><p>Days here means Business Days.<a href="#fnref1" class="footnote-back" role="doc-backlink">↩︎</a></p></li>
</ol></section></body></html>"""

WORD = """<html><body>
<p class=MsoNormal>The Supplier shall deliver within 10 days<a href="#_ftn1" name="_ftnref1" title=""><span
class=MsoFootnoteReference><sup>[1]</sup></span></a>.</p>
<p class=MsoNormal>Risk passes on delivery.</p>
<div><br clear=all><hr align=left size=1 width="33%">
<div id=ftn1><p class=MsoFootnoteText><a href="#_ftnref1" name="_ftn1" title=""><span
class=MsoFootnoteReference>[1]</span></a> Working days, excluding public holidays.</p></div></div>
</body></html>"""

EURLEX = """<html><body>
<p class="oj-normal">Having regard to the opinion of the European Central Bank <a id="ntc2-L_X" href="#ntr2-L_X">(<span
class="oj-super oj-note-tag">2</span>)</a>,</p>
<table><tr><td><p class="oj-normal">(1)</p></td><td><p class="oj-normal">This Regulation applies from 2 August
2026.</p></td></tr></table>
<hr class="oj-note">
<p class="oj-note"><a id="ntr2-L_X" href="#ntc2-L_X">(<span class="oj-super">2</span>)</a>&nbsp;&nbsp;OJ C 115,
11.3.2022, p. 5.</p>
</body></html>"""

WIKI = """<html><body>
<p>The committee met 12 times in 2023.<sup id="cite_ref-1" class="reference"><a href="#cite_note-1">[1]</a></sup></p>
<ol class="references"><li id="cite_note-1"><span class="mw-cite-backlink"><a href="#cite_ref-1">^</a></span>
<span class="reference-text">Annual report 2023, p. 4.</span></li></ol>
</body></html>"""


@pytest.mark.parametrize("page, lines", [
    (PANDOC, ["2. Payment",
              "2.1 The Customer shall pay each invoice within 30 days of receipt. Late payments bear interest.",
              "Footnote 1: Days here means Business Days.",
              "2.2 The Supplier may suspend the Services."]),
    (WORD, ["The Supplier shall deliver within 10 days.", "Footnote 1: Working days, excluding public holidays.",
            "Risk passes on delivery."]),
    (EURLEX, ["Having regard to the opinion of the European Central Bank,", "Footnote 2: OJ C 115, 11.3.2022, p. 5.",
              "(1) This Regulation applies from 2 August 2026."]),
    (WIKI, ["The committee met 12 times in 2023.", "Footnote 1: Annual report 2023, p. 4."]),
], ids=["pandoc", "word-html", "eur-lex", "wiki"])
def test_a_page_s_footnotes_follow_the_paragraph_that_marks_them(page, lines):
    ex = extract_html(page.encode())
    assert ex.text.splitlines() == lines
    assert len(ex.warnings) == 1 and "footnote" in ex.warnings[0] and "mark left out" in ex.warnings[0]


def test_short_in_page_links_that_are_not_marks_stay_text():
    page = """<html><body><p>See <a href="#section-3" class="xref">3</a> and <a href="#a">A</a>.</p>
    <h2 id="section-3">3. Scope</h2><p id="a">This applies to A.</p><p><a href="#top">↑</a></p></body></html>"""
    ex = extract_html(page.encode())
    assert ex.text.splitlines() == ["See 3 and A.", "3. Scope", "This applies to A.", "↑"]
    assert ex.warnings == []


def test_a_mark_whose_target_is_inside_a_paragraph_is_not_a_note():
    # the target of a superscript link sits in the middle of a paragraph: that paragraph is text, not a note
    page = """<html><body><p>Rule one.<a href="#x"><sup>1</sup></a></p>
    <p>Long paragraph <a id="x"></a>with an anchor inside it.</p></body></html>"""
    ex = extract_html(page.encode())
    assert ex.text.splitlines() == ["Rule one.1", "Long paragraph with an anchor inside it."]
