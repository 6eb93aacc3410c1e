"""The text of a Word document as Word shows it with its tracked changes accepted ("No Markup").

python-docx's ``Paragraph.text`` reads the runs and hyperlinks directly under a paragraph, and
``Document.iter_inner_content`` the paragraphs and tables directly under the body. A document under negotiation
holds more than that, and the rest was lost without a word:

- text inserted with tracked changes sits in ``w:ins`` (and moved text in ``w:moveTo``): "The Supplier shall pay
  within 30 days after invoice" was stored as "The Supplier shall pay after invoice";
- paragraphs inside a content control (``w:sdt``, the fill-in fields of contract templates) or custom XML were
  skipped whole ("Governing law: England and Wales.");
- inline wrappers (``w:smartTag``, ``w:fldSimple``, an inline ``w:sdt``) hid the words inside them.

Here a paragraph's text is every ``w:t`` it holds in document order, except deleted or moved-away text
(``w:del``, ``w:moveFrom``: their words are ``w:delText`` or sit under them), the fallback copy of alternate
content (``mc:Fallback`` repeats the choice it stands for), and the paragraphs of text boxes drawn inside it
(they are paragraphs of their own). Tabs read as spaces, breaks as spaces, a non-breaking hyphen as "-".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_GONE = frozenset({f"{_W}del", f"{_W}moveFrom", f"{_MC}Fallback"})
_CONTAINERS = frozenset({f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml"})


def paragraph_text(p: Any) -> str:
    """The visible text of the ``w:p`` element ``p``, tracked insertions kept and deletions left out."""
    out: list[str] = []

    def walk(el: Any) -> None:
        for child in el:
            tag = child.tag
            if not isinstance(tag, str) or tag in _GONE or tag == f"{_W}p" or tag == f"{_W}pPr":
                continue  # comments and processing instructions, deleted text, a text box's own paragraphs
            if tag == f"{_W}t":
                out.append(child.text or "")
            elif tag in (f"{_W}tab", f"{_W}br", f"{_W}cr", f"{_W}ptab"):
                out.append(" ")
            elif tag == f"{_W}noBreakHyphen":
                out.append("-")
            else:
                walk(child)

    walk(p)
    return "".join(out)


def blocks(body: Any) -> Iterator[Any]:
    """The ``w:p`` and ``w:tbl`` elements of ``body`` in document order, those inside content controls and custom
    XML included."""
    for child in body:
        if child.tag in (f"{_W}p", f"{_W}tbl"):
            yield child
        elif child.tag in _CONTAINERS:
            yield from blocks(child)


def cell_text(tc: Any) -> str:
    """The text of the table cell ``tc``: its paragraphs (a nested table's too), one space between them."""
    parts = []
    for p in tc.iter(f"{_W}p"):
        if any(a.tag in _GONE or a.tag == f"{_W}txbxContent" for a in p.iterancestors() if a is not tc):
            continue
        parts.append(paragraph_text(p))
    return " ".join(" ".join(parts).split())


def tracked_changes(body: Any) -> int:
    """How many tracked insertions, deletions and moves the document body holds."""
    return sum(1 for tag in (f"{_W}ins", f"{_W}del", f"{_W}moveTo", f"{_W}moveFrom") for _ in body.iter(tag))
