"""A Markdown upload's footnotes are placed as Word's and HTML's are: after the paragraph that first refers to them,
numbered in the order a renderer numbers them, their marks left out of the text."""

from __future__ import annotations

from ingest.uploads.extract import extract_markdown

DOC = """# Agreement

2.1 The Customer shall pay each invoice
within 30 days of receipt.[^days] Late payments bear interest.[^late]

2.2 The Supplier may suspend the Services.[^days]

```
x = a[^days]
[^kept]: code is text
```

[^late]: Interest runs at 4% a year
    above the base rate.
[^days]: Business Days.
[^unused]: Never referred to.
"""


def test_footnotes_follow_the_paragraph_that_first_refers_to_them():
    ex = extract_markdown(DOC.encode())
    lines = [x for x in ex.text.splitlines() if x.strip()]
    assert lines == ["# Agreement",
                     "2.1 The Customer shall pay each invoice",
                     "within 30 days of receipt. Late payments bear interest.",
                     "Footnote 1: Business Days.",
                     "Footnote 2: Interest runs at 4% a year above the base rate.",
                     "2.2 The Supplier may suspend the Services.",  # referred to again: not repeated
                     "```", "x = a[^days]", "[^kept]: code is text", "```",
                     "[^unused]: Never referred to."]  # nothing refers to it: kept where it is
    assert [h.text for h in ex.headings] == ["Agreement"] and ex.text[ex.headings[0].start:].startswith("# Agreement")
    assert "2 footnotes" in ex.warnings[0]


def test_a_document_without_footnote_definitions_is_stored_as_written():
    doc = "# Notes\n\nSee [^1] and [link](x).\n"
    ex = extract_markdown(doc.encode())
    assert ex.text == doc and ex.warnings == []
