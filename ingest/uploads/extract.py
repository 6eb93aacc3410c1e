"""Bytes of one uploaded file → the document text that is stored, with pages and heading hints.

Every extractor returns an :class:`Extracted`. For paged sources (PDF, text with form feeds
as written by ``pdftotext``) the text is repaired through :mod:`ingest.uploads.repair` and
``page_starts`` holds the offset where each page begins; other formats are stored as written
(Markdown, text) or as their visible text (HTML, Word), with no pages.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

from anchor_core.text import note_line
from ingest.uploads.detect import Format, decode_text
from ingest.uploads.errors import UploadError
from ingest.uploads.htmlnotes import HtmlNotes, scan_notes
from ingest.uploads.pdfnotes import Line, page_lines
from ingest.uploads.repair import Edit, repair_pages
from ingest.uploads.wordnum import WordNumbering, format_number, int_or
from ingest.uploads.wordtext import WordNotes, blocks, cell_text, paragraph_text, text_boxes, tracked_changes

log = logging.getLogger(__name__)


@dataclass
class Heading:
    """A heading the markup declares (``<h2>``, ``## ...``, a Word "Heading 2" paragraph)."""

    start: int
    level: int
    text: str


@dataclass
class Extracted:
    text: str
    page_starts: list[int] = field(default_factory=list)
    """Offsets where pages 1, 2, ... start; empty for unpaged formats."""
    headings: list[Heading] = field(default_factory=list)
    title: str = ""
    warnings: list[str] = field(default_factory=list)
    repairs: dict[str, int] = field(default_factory=dict)
    edits: list[Edit] = field(default_factory=list)
    """``(start, end, original)`` provenance of every repair (see :mod:`ingest.uploads.repair`)."""
    removed: list[str] = field(default_factory=list)
    blocks: bool = False
    """One line per block (a paragraph, a heading, a table row): HTML and Word, whose lines are never wrapped."""

    @property
    def pages(self) -> int:
        return len(self.page_starts)


def extract(fmt: Format, data: bytes) -> Extracted:
    """Extract the text of ``data`` read as ``fmt``.

    Raises:
        UploadError: the file cannot be read (corrupt, encrypted, no text layer, not UTF-8, ...).
    """
    ex = {"pdf": extract_pdf, "docx": extract_docx, "html": extract_html, "markdown": extract_markdown,
          "text": extract_text}[fmt](data)
    if not ex.text.strip():
        raise UploadError("no text found in the file: nothing to ingest")
    return ex


def _paged(pages: list[str], warnings: list[str], title: str = "", lines: list[list[Line] | None] | None = None
           ) -> Extracted:
    r = repair_pages(pages, lines)
    return Extracted(text=r.text, page_starts=r.page_starts, title=title, warnings=warnings,
                     repairs=dict(r.counts), edits=r.edits, removed=r.removed)


def extract_pdf(data: bytes) -> Extracted:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError

    warnings: list[str] = []
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                opened = bool(reader.decrypt(""))  # PasswordType.NOT_DECRYPTED is 0
            except DependencyError:
                opened = False
            if not opened:
                raise UploadError("the PDF is encrypted (password protected); remove the password, e.g. print it "
                                  "to a new PDF, and upload it again")
            warnings.append("the PDF is encrypted with an empty password; it was read without one")
        n = len(reader.pages)
    except UploadError:
        raise
    except (PdfReadError, FileNotDecryptedError, ValueError, KeyError, TypeError, AttributeError,
            IndexError, RecursionError, OSError, AssertionError) as err:
        raise UploadError(f"the PDF is damaged and cannot be read ({type(err).__name__}: {err}); "
                          "open and re-save it, or export it again") from None
    if n == 0:
        raise UploadError("the PDF has no pages (damaged or truncated file); export it again")
    texts: list[str] = []
    lines: list[list[Line] | None] = []
    failed: list[int] = []
    for i in range(n):
        try:
            text, page_info = page_lines(reader.pages[i])
        except Exception as err:  # noqa: BLE001 - pypdf raises many types on one broken page
            log.warning("page %d: text extraction failed: %s", i + 1, err)
            text, page_info = "", None
            failed.append(i + 1)
        texts.append(text)
        lines.append(page_info)
    empty = [i + 1 for i, t in enumerate(texts) if not t.strip() and i + 1 not in failed]
    if len(failed) == n:
        raise UploadError("the PDF is damaged: no page could be read; open and re-save it, or export it again")
    if len(empty) + len(failed) == n:
        raise UploadError(f"no text layer; run OCR first (all {n} page{'s' if n > 1 else ''} are images or drawings)")
    if failed:
        warnings.append(f"page{'s' if len(failed) > 1 else ''} {_pages(failed)} could not be read (damaged) "
                        "and are missing")
    if empty:
        warnings.append(f"page{'s' if len(empty) > 1 else ''} {_pages(empty)} ha{'ve' if len(empty) > 1 else 's'} "
                        "no text layer (scanned?); run OCR to include them")
    if b"%%EOF" not in data[-2048:]:
        warnings.append("the PDF has no end-of-file marker (truncated download?); its text may be incomplete")
    title = ""
    try:
        meta = reader.metadata
        title = str(meta.title).strip() if meta and meta.title else ""
    except Exception:  # noqa: BLE001 - a broken info dictionary only costs the title
        pass
    if title.lower() in ("untitled", "microsoft word", "") or title.lower().endswith((".doc", ".docx", ".pdf")):
        title = ""
    return _paged(texts, warnings, title, lines)


def _pages(nums: list[int]) -> str:
    shown = ", ".join(str(x) for x in nums[:10])
    return shown + (f" and {len(nums) - 10} more" if len(nums) > 10 else "")


def extract_text(data: bytes) -> Extracted:
    text = decode_text(data)
    if "\f" in text.strip("\f\n "):
        # pdftotext output: form feeds separate pages, which keep their numbers.
        return _paged(text.split("\f"), [])
    return Extracted(text=text.replace("\r\n", "\n").replace("\r", "\n"))


_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.M)
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1", re.M | re.S)


def extract_markdown(data: bytes) -> Extracted:
    text = decode_text(data).replace("\r\n", "\n").replace("\r", "\n")
    text, placed = _markdown_notes(text)
    in_code = _code_test(text)
    heads = [Heading(m.start(), len(m.group(1)), m.group(2).strip()) for m in _MD_HEADING.finditer(text)
             if not in_code(m.start())]
    title = next((h.text for h in heads if h.level == 1), "")
    warnings = [f"the document has {placed} footnote{'s' if placed > 1 else ''} ([^label]): each was stored on its "
                "own line after the paragraph that refers to it (\"Footnote 1: ...\"), numbered as a renderer "
                "numbers them, and its mark left out of the text"] if placed else []
    return Extracted(text=text, headings=heads, title=title, warnings=warnings)


_MD_NOTE_DEF = re.compile(r"^\[\^([^\]\s]+)\]:[ \t]*(.*)\n?((?:(?:[ \t]{2,}|\t).*\n?|[ \t]*\n(?=[ \t]{4}))*)", re.M)
_MD_NOTE_REF = re.compile(r"\[\^([^\]\s]+)\](?!:)")
# a line that ends a Markdown paragraph before it: blank, a heading, a list item, a quote, a fence, a table row
_MD_BLOCK_START = re.compile(r"^(?:[ \t]*$|#{1,6}[ \t]|[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]|>|```|~~~|\|)")


def _code_test(text: str) -> Callable[[int], bool]:
    """Whether an offset of ``text`` lies inside a code fence."""
    fenced = [m.span() for m in _FENCE.finditer(text)]
    return lambda at: any(a <= at < b for a, b in fenced)


def _markdown_notes(text: str) -> tuple[str, int]:
    """``text`` with its footnotes (``[^1]`` marks, ``[^1]: ...`` definitions) placed as Word and HTML uploads
    place theirs: each definition on its own line after the paragraph that first refers to it ("Footnote 1: ..."),
    numbered in the order of first reference as renderers number them, the marks left out (glued to a word, "30
    days[^2]" reads "2" as a number of the sentence). Marks and definitions inside code fences are text. Returns the
    text and the number of notes placed."""
    in_code = _code_test(text)
    notes = {m.group(1): " ".join((m.group(2) + " " + m.group(3)).split())
             for m in _MD_NOTE_DEF.finditer(text) if not in_code(m.start())}
    cited = {m.group(1) for m in _MD_NOTE_REF.finditer(text) if not in_code(m.start())}
    notes = {k: v for k, v in notes.items() if v and k in cited}  # a note nothing refers to stays where it is
    if not notes:
        return text, 0
    text = _MD_NOTE_DEF.sub(lambda m: m.group(0) if in_code(m.start()) or m.group(1) not in notes else "", text)
    in_code = _code_test(text)
    lines = text.split("\n")
    numbers: dict[str, int] = {}
    out: list[str] = []
    pending: list[str] = []
    at = 0
    for i, line in enumerate(lines):
        start, at = at, at + len(line) + 1
        if not in_code(start):
            for label in _MD_NOTE_REF.findall(line):
                if label in notes and label not in numbers:
                    numbers[label] = len(numbers) + 1
                    pending.append(label)
            line = _MD_NOTE_REF.sub(lambda m: "" if m.group(1) in notes else m.group(0), line)
        out.append(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if pending and (i + 1 == len(lines) or _MD_BLOCK_START.match(nxt)):
            out += [note_line("footnote", str(numbers[k]), notes[k]) for k in pending]
            pending = []
    return "\n".join(out), len(numbers)


_BLOCK = {"p", "div", "section", "article", "main", "aside", "blockquote", "pre", "ul", "ol", "li", "dl", "dt", "dd",
          "table", "tr", "form", "fieldset", "address", "figure", "figcaption", "hr", "h1", "h2", "h3", "h4", "h5",
          "h6", "header", "footer", "nav", "caption", "details", "summary"}
_SKIP = {"script", "style", "noscript", "template", "svg", "head", "iframe", "object"}


# the enumerator a layout table puts in a cell of its own before the text ("(a)", "1.", "(12)", "—"), as the EUR-Lex
# Official Journal lays out points, paragraphs and recitals
_LABEL_CELL = re.compile(r"[‘'\"“]?(?:\(?(?:\d{1,3}(?:\.\d{1,3})*|[a-z]{1,3}|[ivxlc]{1,6}|[A-Z])[.)]|"
                         r"\d{1,3}(?:\.\d{1,3})+|[—–•·-])")


def row_line(cells: list[str]) -> str:
    """One table row as one line: its cells joined by ``" | "`` (empty cells dropped), or, for a layout row of
    an enumerator cell and a text cell, the enumerator then the text.

    >>> row_line(["", "(a)", "providers placing AI systems on the market;"])
    '(a) providers placing AI systems on the market;'
    >>> row_line(["Service", "Fee (USD)"]), row_line(["(a)", "x", "y"])
    ('Service | Fee (USD)', '(a) | x | y')
    """
    kept = [c for c in (" ".join(c.split()) for c in cells) if c]
    if len(kept) == 2 and _LABEL_CELL.fullmatch(kept[0]):
        return f"{kept[0]} {kept[1]}"
    return " | ".join(kept)


@dataclass
class _Row:
    """A table row being read: its cells' text so far. ``flushed``: a table nested in one of its cells printed the
    row's first cells already; what follows the nested table is printed as text."""

    cells: list[list[str]] = field(default_factory=list)
    flushed: bool = False


class _HTMLText(HTMLParser):
    """Visible text with one line per block element and one line per table row; heading elements are
    remembered."""

    def __init__(self, notes: HtmlNotes | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.notes = notes or HtmlNotes()
        self.block_no = -1  # blocks started so far, counted as the note scan counts them
        self.hiding: list = []  # [tag, depth] while inside a block that holds notes (written elsewhere)
        self.in_mark = False  # inside a note's mark: its text is not written
        self.after_mark = False  # a mark was just left out: "Committee (1)," reads "Committee,"
        self.pending: list[str] = []  # notes the open block refers to, written after it
        self.placed: list[str] = []
        self.parts: list[str] = []
        self.size = 0
        self.skip = 0
        self.title = ""
        self.in_title = False
        self.heading: tuple[int, int] | None = None  # (level, start)
        self.headings: list[Heading] = []
        self.rows: list[_Row] = []  # the open rows, outermost first (tables nest)
        self.tables: list[int] = []  # per open table, how many rows were open outside it
        self.lists: list[list] = []  # per open list: [next number, type] for <ol>, [] for <ul>
        self.marker = ""  # the number a browser draws before the open <li>, written before its first words

    def _cell(self) -> list[str] | None:
        """The cell text goes to: the innermost open row's last cell, unless that row was flushed."""
        if self.rows and self.rows[-1].cells and not self.rows[-1].flushed:
            return self.rows[-1].cells[-1]
        return None

    def _newline(self) -> None:
        cell = self._cell()
        if cell is not None:
            if cell and not cell[-1].endswith(" "):
                cell.append(" ")  # a block inside a cell: the cell is still one line
            return
        if self.parts and not self.parts[-1].endswith("\n"):
            self._emit("\n")
        for target in self.pending:
            if target not in self.placed:
                self.placed.append(target)
                self._emit(note_line("footnote", self.notes.marks[target], self.notes.texts[target]) + "\n")
        self.pending = []

    def close(self) -> None:
        super().close()
        self._close_rows(0)  # rows, and the notes of a last block, that the markup left open
        self._newline()

    def _unspace(self) -> None:
        """Drop the space written before a mark that was left out, when punctuation follows the mark."""
        out = self._cell()
        out = self.parts if out is None else out
        if out and out[-1].endswith(" ") and not out[-1].endswith("\n "):
            out[-1] = out[-1][:-1]
            if out is self.parts:
                self.size -= 1

    def _emit(self, s: str) -> None:
        cell = self._cell()
        if cell is not None:
            cell.append(s)
            return
        self.parts.append(s)
        self.size += len(s)

    def _close_rows(self, keep: int) -> None:
        """Print and close the open rows beyond the first ``keep``."""
        while len(self.rows) > keep:
            row = self.rows.pop()
            if not row.flushed:
                self._flush_row(row)
            self._newline()

    def _flush_row(self, row: _Row) -> None:
        line = row_line(["".join(c) for c in row.cells])
        row.flushed = True
        if line:
            self._newline()
            self._emit(line)
            self._newline()

    def handle_starttag(self, tag, attrs):
        if tag in _BLOCK:
            self.block_no += 1
            if not self.hiding and self.block_no in self.notes.hidden and tag != "hr":
                self.hiding = [tag, 0]
        if self.hiding:
            if tag == self.hiding[0]:
                self.hiding[1] += 1
            return
        if tag == "a":
            target = (dict(attrs).get("href") or "")[1:]
            if target in self.notes.marks:
                self.in_mark = True
                self.pending.append(target)
                return
        if tag in _SKIP:
            self.skip += 1
            self.in_title = False
        elif tag == "title":
            self.in_title = True
        elif tag == "br":
            self._emit("\n")
        elif tag in ("td", "th"):
            if self.rows and not self.rows[-1].flushed:
                self.rows[-1].cells.append([])
        elif tag == "table":
            self._newline()
            self.tables.append(len(self.rows))
        elif tag == "tr":
            self._close_rows(self.tables[-1] if self.tables else 0)  # a row whose </tr> the markup left out
            if self._cell() is not None:  # a table inside a cell: the outer row so far is a line of its own
                self._flush_row(self.rows[-1])
            self.rows.append(_Row())
        elif tag in _BLOCK:
            self._newline()
            if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit() and self._cell() is None:
                self.heading = (int(tag[1]), self.size)
            a = dict(attrs)
            if tag == "ol":
                self.lists.append([int_or(a.get("start"), 1), a.get("type") or "1"])
            elif tag == "ul":
                self.lists.append([])
            elif tag == "li" and self.lists and self.lists[-1]:
                top = self.lists[-1]
                value = int_or(a.get("value"), top[0])
                top[0] = value + 1
                self.marker = _list_marker(value, top[1]) + " "

    def handle_endtag(self, tag):
        if self.hiding:
            if tag == self.hiding[0]:
                self.hiding[1] -= 1
                if self.hiding[1] == 0:
                    self.hiding = []
            return
        if tag == "a" and self.in_mark:
            self.in_mark = False
            self.after_mark = True
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "title":
            self.in_title = False
        elif tag == "tr":
            if self.rows and len(self.rows) > (self.tables[-1] if self.tables else 0):
                self._close_rows(len(self.rows) - 1)
        elif tag == "table":
            self._close_rows(self.tables.pop() if self.tables else 0)
            self._newline()
        elif tag in _BLOCK:
            if tag in ("ol", "ul") and self.lists:
                self.lists.pop()
            if tag == "li":
                self.marker = ""  # an empty item: its number is drawn with nothing after it
            if self.heading and tag == f"h{self.heading[0]}":
                level, start = self.heading
                text = "".join(self.parts)[start:].strip()
                if text:  # its position is found again in the cleaned text
                    self.headings.append(Heading(0, level, " ".join(text.split())))
                self.heading = None
            self._newline()

    def handle_data(self, data):
        if self.in_title:
            self.title += data
            return
        if self.skip or self.hiding or self.in_mark:
            return
        if self.after_mark and data[:1] in ",.;:)":
            self._unspace()
        self.after_mark = False
        text = re.sub(r"\s+", " ", data)
        if not text.strip() and (not self.parts or self.parts[-1].endswith(("\n", " "))):
            return
        if self.parts and self.parts[-1].endswith("\n"):
            text = text.lstrip()
        if self.marker and text.strip():
            text = self.marker + text.lstrip()
            self.marker = ""
        self._emit(text)


def _list_marker(n: int, kind: str) -> str:
    """The marker a browser draws for item ``n`` of an ``<ol type=kind>``: "3.", "c.", "C.", "iii.", "III."

    >>> [_list_marker(3, k) for k in ("1", "a", "A", "i", "I")]
    ['3.', 'c.', 'C.', 'iii.', 'III.']
    """
    fmt = {"a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman", "I": "upperRoman"}.get(kind, "decimal")
    return format_number(n, fmt) + "."


def extract_html(data: bytes) -> Extracted:
    raw = decode_text(data)
    try:
        parser = _HTMLText(scan_notes(raw, _BLOCK, _SKIP))
        parser.feed(raw)
        parser.close()
    except (AssertionError, ValueError) as err:  # malformed markup that the stdlib parser gives up on
        raise UploadError(f"the HTML could not be parsed ({err}); save the page again") from None
    text = "".join(parser.parts)
    # Trailing spaces before a newline are markup noise; remove them without moving headings
    # (headings are recomputed from their text, which is unique enough to find again).
    lines = [line.rstrip() for line in text.split("\n")]
    clean = "\n".join(lines).strip("\n") + "\n"
    heads: list[Heading] = []
    pos = 0
    for h in parser.headings:
        at = clean.find(h.text, pos)
        if at >= 0:
            heads.append(Heading(at, h.level, h.text))
            pos = at + len(h.text)
    title = " ".join(parser.title.split()) or next((h.text for h in heads if h.level == 1), "")
    warnings = []
    if parser.placed:
        n = len(parser.placed)
        warnings.append(f"the page has {n} footnote{'s' if n > 1 else ''}: each was stored on its own line after the "
                        "paragraph that refers to it (\"Footnote 1: ...\"), and its mark left out of the text (a "
                        "mark glued to a word reads as a number)")
    return Extracted(text=clean, headings=heads, title=title, warnings=warnings, blocks=True)


def extract_docx(data: bytes) -> Extracted:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.oxml.ns import qn

    try:
        d = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, OSError) as err:
        raise UploadError(f"the Word file is damaged and cannot be read ({err}); open and re-save it") from None
    except Exception as err:  # noqa: BLE001 - python-docx fails in many ways on a malformed package (bad XML parts)
        raise UploadError(f"the Word file is damaged and cannot be read ({type(err).__name__}); "
                          "open it in Word or LibreOffice and save it again") from None
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    numbering = WordNumbering(d)
    notes = WordNotes(d)
    lines: list[str] = []
    heads: list[Heading] = []
    pos = 0
    auto_numbered = boxed = 0

    def add(line: str) -> None:
        nonlocal pos
        lines.append(line)
        pos += len(line) + 1

    body = d.element.body
    for el in blocks(body):
        if el.tag.endswith("}p"):
            block = Paragraph(el, d._body)
            text = " ".join(paragraph_text(el).split())
            style = (block.style.name if block.style is not None else "") or ""
            label = numbering.label(block)  # counted even when the paragraph is empty, as Word counts it
            if text:
                if label:
                    auto_numbered += 1
                    text = f"{label} {text}"
                m = re.match(r"(?:Heading|Überschrift|Titre)\s*(\d)", style)
                if m or style == "Title":
                    heads.append(Heading(pos, int(m.group(1)) if m else 0, text))
                add(text)
            # what Word draws beside or below the paragraph: its text boxes, then the notes its marks refer to
            boxes = text_boxes(el)
            boxed += len(boxes)
            for line in boxes + notes.after(el):
                add(line)
        else:
            for row in Table(el, d._body).rows:
                trpr = row._tr.trPr
                if trpr is not None and trpr.find(qn("w:del")) is not None:
                    continue  # a row deleted with tracked changes
                cells: list[str] = []
                for cell in row.cells:
                    t = cell_text(cell._tc)
                    if not cells or cells[-1] != t:  # merged cells repeat their text
                        cells.append(t)
                line = row_line(cells)
                if line:
                    add(line)
                boxes = text_boxes(row._tr)
                boxed += len(boxes)
                for line in boxes + notes.after(row._tr):
                    add(line)
    warnings = []
    changes = tracked_changes(body)
    if changes:
        warnings.append(f"the document holds {changes} tracked changes: its text was read with them accepted "
                        "(insertions kept, deletions left out), as Word's 'No Markup' view shows it; accept or reject "
                        "them in Word and upload again to store another reading")
    if auto_numbered:
        warnings.append(f"{auto_numbered} paragraphs are numbered by Word's automatic numbering, which is not part "
                        "of their text: their numbers were rebuilt from the document's list definitions and written "
                        "before them (compare a few with the document)")
    placed = [f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in notes.written.items() if n]
    if placed:
        warnings.append(f"the document has {' and '.join(placed)}: each was stored on its own line after the "
                        "paragraph or table row that refers to it (\"Footnote 1: ...\"), where Word shows a mark")
    if boxed:
        warnings.append(f"{boxed} paragraphs of text boxes were stored after the paragraph each box is anchored to; "
                        "where a box stands on the page is not kept")
    title = (d.core_properties.title or "").strip() or next((h.text for h in heads if h.level <= 1), "")
    return Extracted(text="\n".join(lines) + "\n", headings=heads, title=title, warnings=warnings, blocks=True)

