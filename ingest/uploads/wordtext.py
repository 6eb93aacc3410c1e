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
(they are paragraphs of their own: :func:`text_boxes` reads them, stored after the paragraph). Tabs read as
spaces, breaks as spaces, a non-breaking hyphen as "-".

Footnotes and endnotes are in parts of their own; :class:`WordNotes` numbers their marks as Word does and gives
each note as a line to store after the paragraph or table row that refers to it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from anchor_core.text import note_line
from ingest.uploads.wordnum import child_val, format_number, int_or

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_GONE = frozenset({f"{_W}del", f"{_W}moveFrom", f"{_MC}Fallback"})
_BOX = f"{_W}txbxContent"
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
        if _inside(p, _GONE | {_BOX}, tc):
            continue
        parts.append(paragraph_text(p))
    return " ".join(" ".join(parts).split())


def _inside(node: Any, tags: frozenset[str], stop: Any) -> bool:
    """Whether ``node`` sits inside an element with one of ``tags`` below ``stop`` (deleted text, a fallback copy,
    a text box)."""
    a = node.getparent()
    while a is not None and a is not stop:
        if a.tag in tags:
            return True
        a = a.getparent()
    return False


def tracked_changes(body: Any) -> int:
    """How many tracked insertions, deletions and moves the document body holds."""
    return sum(1 for tag in (f"{_W}ins", f"{_W}del", f"{_W}moveTo", f"{_W}moveFrom") for _ in body.iter(tag))


_NOTE_REFS = {f"{_W}footnoteReference": "footnote", f"{_W}endnoteReference": "endnote"}


def text_boxes(el: Any) -> list[str]:
    """The text of the text boxes drawn in the paragraph or table row ``el``, one entry per paragraph, in document
    order: a box of DrawingML and its VML fallback copy are read once, a box inside a box with the outer one."""
    out: list[str] = []
    for box in el.iter(_BOX):
        if _inside(box, _GONE | {_BOX}, el):
            continue
        for p in box.iter(f"{_W}p"):
            if _inside(p, _GONE, box):
                continue
            text = " ".join(paragraph_text(p).split())
            if text:
                out.append(text)
    return out


class WordNotes:
    """The footnotes and endnotes of one Word document, numbered as Word numbers their marks.

    A note's text lives in its own part (``word/footnotes.xml``, ``word/endnotes.xml``); the body holds only a
    ``w:footnoteReference`` whose mark Word draws by counting: the n-th automatically marked note is number
    ``numStart + n - 1`` in the document's format (decimal for footnotes, lower-case roman numerals for endnotes,
    unless ``settings.xml`` says otherwise). A note with a custom mark (``w:customMarkFollows``) takes no number:
    its mark is the text that follows it in the body ("*"), and the note is labelled with that. Restarts per
    section or page (``w:numRestart``) are not modelled: marks count through the document.

    :meth:`after` is called on the body's paragraphs and table rows in document order and gives the lines to
    store after that block: "Footnote 2: Days here means Business Days." So a note stays with the clause that
    refers to it (a clause's qualification, a recital's Official Journal citation) instead of landing in the last
    section of the document, and a reference written in a note ("as defined in clause 1.1") is read as the
    clause's.
    """

    def __init__(self, document: Any) -> None:
        from docx.opc.constants import RELATIONSHIP_TYPE as RT  # noqa: N817 - python-docx's own name
        from docx.oxml import parse_xml

        self.texts: dict[str, dict[str, str]] = {"footnote": {}, "endnote": {}}
        self.formats = {"footnote": ("decimal", 1), "endnote": ("lowerRoman", 1)}
        self.count = {"footnote": 0, "endnote": 0}
        self.written = {"footnote": 0, "endnote": 0}
        self._seen: set[tuple[str, str]] = set()
        parts = {rel.reltype: rel.target_part for rel in document.part.rels.values() if not rel.is_external}
        for kind, reltype in (("footnote", RT.FOOTNOTES), ("endnote", RT.ENDNOTES)):
            part = parts.get(reltype)
            if part is None:
                continue
            try:
                root = parse_xml(part.blob)
            except Exception:  # noqa: BLE001 - a damaged notes part loses the notes, not the document
                continue
            for note in root.iter(f"{_W}{kind}"):
                if note.get(f"{_W}type") in ("separator", "continuationSeparator", "continuationNotice"):
                    continue
                text = " ".join(" ".join(paragraph_text(p) for p in note.iter(f"{_W}p")).split())
                self.texts[kind][note.get(f"{_W}id", "")] = text
        settings = document.settings.element
        for kind in self.formats:
            pr = settings.find(f"{_W}{kind}Pr")
            if pr is None:
                continue
            fmt, start = self.formats[kind]
            self.formats[kind] = (child_val(pr, "numFmt") or fmt, int_or(child_val(pr, "numStart"), start))

    def after(self, el: Any) -> list[str]:
        """The notes the paragraph or table row ``el`` refers to, each as one line ("Footnote 1: ..."), in the
        order of their marks; marks in deleted text count for nothing and give no line."""
        lines: list[str] = []
        for ref in el.iter(*_NOTE_REFS):
            if _inside(ref, _GONE, el):
                continue
            kind = _NOTE_REFS[ref.tag]
            if ref.get(f"{_W}customMarkFollows") in ("1", "true", "on"):
                mark = _custom_mark(ref)
            else:
                fmt, start = self.formats[kind]
                mark = format_number(start + self.count[kind], fmt)
                self.count[kind] += 1
            key = (kind, ref.get(f"{_W}id", ""))
            text = self.texts[kind].get(key[1], "")
            if not text or key in self._seen:
                continue
            self._seen.add(key)
            self.written[kind] += 1
            lines.append(note_line(kind, mark, text))
        return lines


def _custom_mark(ref: Any) -> str:
    """The mark typed after a custom-marked note reference: the text of the run that follows its own."""
    run = ref.getparent()
    nxt = run.getnext() if run is not None else None
    mark = " ".join(paragraph_text(nxt).split()) if nxt is not None else ""
    return mark or "*"
