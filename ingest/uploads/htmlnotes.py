"""Footnotes of an HTML page: the marks in the text and the notes they point to.

A page marks a note with a short superscript link to the note's place on the same page:

- pandoc: ``<a href="#fn1" class="footnote-ref"><sup>1</sup></a>``;
- Word's "Save as web page": ``<a href="#_ftn1"><sup>[1]</sup></a>``;
- EUR-Lex: ``<a href="#ntr1-L_...">(<span class="oj-super">1</span>)</a>``;
- a wiki: ``<sup><a href="#cite_note-1">[1]</a></sup>``;

and writes the notes together, usually at the end. Read as visible text, the mark is glued to the word before it
("within 30 days of receipt.2 Late payments") where it reads as a number of the sentence, and the notes form a
numbered list that the splitter takes for the last clause's paragraphs.

:func:`scan_notes` reads the page once and finds each mark (an in-page link whose text is a mark of at most a few
characters, "1", "[1]", "(iv)", "*", superscripted or named a note by its class or role) and its note (the block
holding the link's target, its own mark and back-link left out). The text extractor then leaves the marks out,
writes each note after the block that refers to it (:func:`anchor_core.text.note_line`: "Footnote 2: ..."), as Word
uploads do, and leaves the notes out where they stand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

# a note's mark: "1", "12", "iv", "a", "*", "†", with or without brackets or parentheses
_MARK = re.compile(r"[\[(]?\s*(?P<mark>\d{1,3}|[ivxlc]{1,6}|[a-zA-Z]|[*†‡§¶]{1,3})\s*[\])]?")
_NOTE_WORDS = ("note", "fn", "ftn", "footnote", "endnote", "cite", "reference")
_MAX_LINK = 8  # characters of a mark link's text
_MAX_NOTE = 3_000  # characters of a note; a longer target is a section, not a note
_ARROWS = re.compile(r"[\s↩︎↑^]+$")


@dataclass
class HtmlNotes:
    """The notes of one page, by the id its marks point to."""

    marks: dict[str, str] = field(default_factory=dict)
    """Target id → the mark the page draws ("1")."""
    texts: dict[str, str] = field(default_factory=dict)
    """Target id → the note's text."""
    hidden: set[int] = field(default_factory=set)
    """Indexes (in document order, counting the tags of ``blocks``) of the blocks that hold the notes: not written
    where they stand."""


@dataclass
class _Link:
    href: str
    kind: str
    block: int
    sup: bool
    parts: list[str] = field(default_factory=list)


class _Scan(HTMLParser):
    def __init__(self, blocks: set[str], skip: set[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.block_tags, self.skip_tags = blocks, skip
        self.n = -1
        self.skip = 0
        self.sup = 0
        self.open: list[tuple[str, int, list[str]]] = []  # open blocks: tag, index, text
        self.links: list[_Link] = []
        self.targets: dict[str, int] = {}  # id → index of the block that holds it
        self.text: dict[int, str] = {}
        self.found: list[tuple[_Link, str]] = []  # mark links and their text

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag in self.block_tags:
            self.n += 1
            if tag != "hr":
                self.open.append((tag, self.n, []))
        if tag in self.skip_tags:
            self.skip += 1
            return
        if self.links and tag != "a":  # what a link holds says what it is ("oj-super oj-note-tag")
            cls = a.get("class", "").lower()
            self.links[-1].kind += " " + cls
            self.links[-1].sup = self.links[-1].sup or "super" in cls
        ident = a.get("id") or (a.get("name", "") if tag == "a" else "")
        if ident and ident not in self.targets:
            # a note begins where its target is: a target after text of its block (a mark's own id, which a note's
            # back-link points to) is no note
            starts = not self.open or not "".join(self.open[-1][2]).strip()
            self.targets[ident] = self.open[-1][1] if self.open and starts else -1
        if tag == "sup":
            self.sup += 1
            if self.links:
                self.links[-1].sup = True
        elif tag == "a":
            kind = " ".join((a.get("class", ""), a.get("role", ""), a.get("epub:type", ""), a.get("id", ""))).lower()
            self.links.append(_Link(a.get("href", ""), kind, self.open[-1][1] if self.open else -1, self.sup > 0))

    def handle_endtag(self, tag):
        if tag in self.skip_tags:
            self.skip = max(0, self.skip - 1)
        elif tag == "sup":
            self.sup = max(0, self.sup - 1)
        elif tag == "a" and self.links:
            link = self.links.pop()
            text = " ".join("".join(link.parts).split())
            if link.href.startswith("#") and len(text) <= _MAX_LINK:
                self.found.append((link, text))  # a mark or a back-link: not part of the text around it
            else:
                self._add(text)
        if tag in self.block_tags and any(t == tag for t, _, _ in self.open):
            while self.open and self._close_block() != tag:
                pass

    def handle_data(self, data):
        if not self.skip:
            self._add(data)

    def _add(self, text: str) -> None:
        if self.links:
            self.links[-1].parts.append(text)
        elif self.open:
            self.open[-1][2].append(text)

    def _close_block(self) -> str:
        """Close the innermost open block: its text is kept by its index and read into its parent's."""
        tag, i, parts = self.open.pop()
        self.text[i] = " ".join("".join(parts).split())
        if self.open:
            self.open[-1][2].append(" " + self.text[i] + " ")
        return tag

    def close(self) -> None:
        super().close()
        while self.open:  # blocks the markup left open
            self._close_block()


def scan_notes(raw: str, blocks: set[str], skip: set[str]) -> HtmlNotes:
    """The notes of the page ``raw``; ``blocks`` and ``skip`` are the extractor's block and skipped tags (the block
    indexes of :attr:`HtmlNotes.hidden` count ``blocks`` as the extractor does)."""
    scan = _Scan(blocks, skip)
    scan.feed(raw)
    scan.close()
    out = HtmlNotes()
    for link, text in scan.found:
        target = link.href[1:]
        m = _MARK.fullmatch(text)
        at = scan.targets.get(target)
        if m is None or at is None or at < 0 or at == link.block or target in out.marks or link.block in out.hidden:
            continue  # not a mark, no note at its target, or a note's link back to its mark
        if not (link.sup or any(w in link.kind for w in _NOTE_WORDS)):
            continue  # a link that happens to be short ("#top", "A"), not a note's mark
        note = _ARROWS.sub("", scan.text.get(at, "")).strip()
        note = re.sub(rf"^[\[(]?\s*{re.escape(m.group('mark'))}\s*[\])]?[.:]?\s+", "", note)
        if not note or len(note) > _MAX_NOTE:
            continue
        out.marks[target], out.texts[target] = m.group("mark"), note
        out.hidden.add(at)
    return out
