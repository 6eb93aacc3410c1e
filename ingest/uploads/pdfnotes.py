"""Footnotes at the foot of a PDF page, found by their type size, and where they go in the stored text.

A PDF's text layer holds a page's footnotes where the page prints them: after the page's last body line.
When that line's sentence goes on to the next page (as most do in a regulation set in the Official
Journal), the notes sit inside the sentence, so it cannot be quoted, anchored or checked whole:
``"... the conformity of products (1) that are\\n(1) OJ L 218, 13.8.2008, p. 30.\\nsubject to ..."``.

Word, HTML and Markdown uploads store each note on its own ``Footnote N: text`` line after the text
that refers to it (:func:`anchor_core.text.note_line`); a PDF page's notes are stored the same way:

1. **Type size.** :func:`page_lines` reads each line's type size and height on the page from
   pypdf's text visitor (the visitor's pieces make up the extracted text exactly; a page where they
   do not is left as it is). The body size is the size most characters of the document are set in.
2. **The block.** :func:`note_block`: the page's last lines (running footers and page numbers aside)
   that are all set smaller than the body, lie below every body line, and begin with a note mark
   (``(1)``, ``1``, ``1)``, ``*``, ``†``, ``¹``, a mark set against the note's first word as in
   ``5Regulation``, or a raised mark that pypdf puts on a line of its own); a line that begins with
   the next number (or any mark, for symbols) begins the next note, any other line continues the one
   before. Marks must count up (``(3)`` after ``(2)``), so a wrapped line that begins with a number
   stays in its note. Small print that is not a note (a table's source line without a mark) is left
   where it is, and so is a page's last note when the next page's foot does not go on with it.
   The body must refer to one of the notes that begin on the page (``(2)``, a mark set small, or a
   mark set against the word before it), so a table's numbered rows set small are not notes.
   A note's reference mark in the body, set small after the word it marks (as Word prints it), is
   removed when the page's foot holds that note: pypdf puts it on a line of its own, which cuts the
   sentence, or glues it to the number before it (``2014/53/EU2``). A raised number with no such note
   on the page (a power, ``10⁶``) stays. A mark printed at full size (Typst's superscript glyphs)
   cannot be told from the text and stays too.
3. **The place.** :func:`note_place`: when the page's body ends a sentence the notes stay where
   they are, reformatted. When the last sentence goes on over the page break (or is a lead-in
   whose points go on), the notes move back to the start of that sentence, so the sentence is
   whole and every note stays on its own page (page numbers of quotes are read from the stored
   offsets). A page with one sentence that runs over both of its breaks keeps its notes where
   they are.

The move is two edits of :mod:`ingest.uploads.repair` (the block deleted where it was printed, the
note lines inserted), so the extracted text can still be rebuilt from the stored one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from anchor_core.segment import split_sentences
from anchor_core.text import note_line

SMALLER = 0.9
"""A note line is set at most this fraction of the body size (Official Journal: 7 pt notes, 9 pt body)."""
RAISED = 0.8
"""A note mark inside a line is set at most this fraction of the line's size (Word: 2/3)."""
_MARK_RUN = re.compile(r"\s*(\d{1,3}|[*†‡])\s*")
_MARK_ALONE = re.compile(r"\((\d{1,3})\)|(\d{1,3})|([*†‡§¶]{1,3})|([⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})")

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
# "(1) OJ L 218", "1 OJ L 218", "1) OJ", "* OJ", "¹ OJ", and a superscript mark set against its note's first word
# ("5Regulation (EU)", as LaTeX, Typst and some Word exports print it: upper case or a bracket must follow)
_MARK = re.compile(r"[ \t]*(?:\((?P<paren>\d{1,3}|\*{1,3})\)|(?P<num>\d{1,3})(?:\)?(?=[ \t])|(?=[A-Z(\"“‘']))"
                   r"|(?P<sym>[*†‡§¶]{1,3})|(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}))[ \t]*(?=\S)")
_ENDS_SENTENCE = re.compile(r"[.!?:;][\"'”’)\]]*$")


@dataclass(frozen=True)
class Line:
    """One line of a page's extracted text: ``page[start:end]`` (without its newline), the type size most of
    its characters are set in and the height of its baseline on the page."""

    start: int
    end: int
    size: float
    y: float
    marks: tuple[tuple[int, int, str], ...] = ()
    """Note marks set small in the line (``Directive 2014/53/EU²``, as Word prints a footnote reference):
    ``(start, end, mark)`` of each run of one to three digits or a note symbol set at most :data:`RAISED` of
    the text before it. pypdf often puts a raised mark on a line of its own (``2014/53/EU\\n2\\n shall``);
    either way it is removed when the page's foot holds a note with that mark, so it neither runs into
    the number before it nor cuts the sentence."""

    @property
    def mark_only(self) -> bool:
        """The line is one small note mark and nothing else."""
        return len(self.marks) == 1 and self.marks[0][0] - self.start <= 1 and self.end - self.marks[0][1] <= 1


def page_lines(page: Any) -> tuple[str, list[Line] | None]:
    """A pypdf page's extracted text and, when pypdf's visitor pieces make up that text exactly, its lines
    with their type size and height (None otherwise: the caller keeps the text and finds no notes)."""
    pieces: list[tuple[str, float, float]] = []

    def visit(text: str, cm: Any, tm: Any, _font: Any, size: Any) -> None:
        if not text:
            return
        try:
            scale = math.sqrt(abs(tm[0] * tm[3] - tm[1] * tm[2]) * abs(cm[0] * cm[3] - cm[1] * cm[2]))
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            pieces.append((text, float(size or 0) * scale, float(y)))
        except (TypeError, ValueError, IndexError):
            pieces.append((text, 0.0, 0.0))

    text = page.extract_text(visitor_text=visit) or ""
    if "".join(p[0] for p in pieces) != text:
        return text, None
    small: list[tuple[int, int, str]] = []  # note marks set small after larger text: (start, end, mark)
    at, before = 0, 0.0
    for piece, size, _ in pieces:
        m = _MARK_RUN.fullmatch(piece)
        if m and 0 < size <= before * RAISED:
            small.append((at + m.start(1), at + m.end(1), m.group(1)))
        elif piece.strip() and size > 0:
            before = size
        at += len(piece)
    per_line: list[Counter] = [Counter()]
    ys: list[float | None] = [None]
    for piece, size, y in pieces:
        for i, part in enumerate(piece.split("\n")):
            if i:
                per_line.append(Counter())
                ys.append(None)
            chars = sum(1 for ch in part if not ch.isspace())
            if chars and size > 0:
                per_line[-1][round(size, 1)] += chars
                if ys[-1] is None:
                    ys[-1] = y
    lines, pos = [], 0
    for counts, line_y, part in zip(per_line, ys, text.split("\n")):
        if counts:
            marks = tuple(x for x in small if pos <= x[0] and x[1] <= pos + len(part))
            lines.append(Line(pos, pos + len(part), counts.most_common(1)[0][0], line_y or 0.0, marks))
        pos += len(part) + 1
    return text, lines


def body_size(pages: list[list[Line] | None], texts: list[str]) -> float:
    """The type size most of the document's characters are set in (0.0 when no page says)."""
    weight: Counter = Counter()
    for lines, text in zip(pages, texts):
        for ln in lines or []:
            weight[ln.size] += len(text[ln.start:ln.end].strip())
    return weight.most_common(1)[0][0] if weight else 0.0


@dataclass(frozen=True)
class NoteBlock:
    """The notes printed at a page's foot: ``page[start:end]`` as extracted, and each note's mark and text."""

    start: int
    end: int
    notes: tuple[tuple[str, str], ...]

    def lines(self) -> str:
        """The stored note lines, one per note, each ending with a newline."""
        return "".join(note_line("footnote", mark, text) + "\n" for mark, text in self.notes)


def numbered(mark: str) -> tuple[str, int | None]:
    """A note mark and its number (None for a symbol: ``*``, ``†``), for :func:`_next`."""
    return mark, int(mark) if mark.isdigit() else None


def inside(spans: Iterable[Sequence[Any]], offset: int) -> bool:
    """Whether ``offset`` falls in one of the ``(start, end, ...)`` spans (running lines, a page's notes)."""
    return any(span[0] <= offset < span[1] for span in spans)


def _mark(line: str) -> tuple[str, int | None, int] | None:
    """``(mark, number or None for a symbol, where the note's text starts)`` when ``line`` begins with a mark."""
    m = _MARK.match(line)
    if not m:
        return None
    raw = m.group("paren") or m.group("num") or m.group("sym") or m.group("sup").translate(_SUPERSCRIPT)
    return (*numbered(raw), m.end())


def note_block(text: str, lines: list[Line], body: float, furniture: Sequence[Sequence[Any]],
               carried: tuple[str, int | None] | None = None) -> NoteBlock | None:
    """The notes at the foot of one page (module docstring, step 2), or None. ``furniture`` holds the
    ``(start, end, ...)`` of lines that are dropped as running headers, footers or page numbers (their
    ``end`` past the newline, as :mod:`ingest.uploads.repair` counts them); ``carried``: the mark and
    number of the previous page's last note, which a first small line with no mark goes on with (a
    note printed over two pages is stored as two lines with the same mark, each on its own page)."""
    if body <= 0:
        return None
    kept = [ln for ln in lines if not inside(furniture, ln.start) and text[ln.start:ln.end].strip()]
    first = len(kept)
    while first > 0 and 0 < kept[first - 1].size <= body * SMALLER:
        first -= 1
    # the run may begin with the raised mark of the body's last sentence ("... Article 5.\n4\n" then the notes)
    for start in (first, first + 1) if first < len(kept) and kept[first].mark_only else (first,):
        above = [ln for ln in kept[:start] if ln.size > body * SMALLER]
        small = kept[start:]
        if not small or not above:
            return None
        if max(ln.y for ln in small) >= min(ln.y for ln in above):  # small print inside the page, not at its foot
            return None
        if any(small[0].start < span[0] < small[-1].end for span in furniture):  # a page number between notes
            return None
        notes = _notes(text, small, carried)
        if notes and _referenced(text[:small[0].start], kept[:start], notes, carried):
            end = small[-1].end + (1 if text[small[-1].end:small[-1].end + 1] == "\n" else 0)
            return NoteBlock(small[0].start, end, notes)
    return None


def _referenced(body: str, lines: list[Line], notes: tuple[tuple[str, str], ...],
                carried: tuple[str, int | None] | None) -> bool:
    """Whether the page's body refers to one of the notes that begin on the page (a page's foot that only goes on
    with the note before needs no mark): ``(2)`` as the Official Journal writes it, a mark set small (Word), or a
    mark set against the word or stop before it (``Regulation5,``, ``delivery.5``). Small print at a page's foot
    whose "marks" the body never writes (a table's numbered rows set small) is no note."""
    own = [mark for k, (mark, _) in enumerate(notes) if not (k == 0 and carried is not None and mark == carried[0])]
    if not own:
        return True
    small = {mark for ln in lines for _, _, mark in ln.marks}
    for mark in own:
        if mark in small or f"({mark})" in body:
            return True
        # after a word or after a stop that ends one ("products.1"), never inside a number or date ("12.7.2024")
        if re.search(rf"(?:(?<=[^\W\d_]{{2}})|(?<=[^\d\s][).;:,’”])){re.escape(mark)}(?![\w/]|[.,]\d)", body):
            return True
    return False


def _notes(text: str, small: list[Line], carried: tuple[str, int | None] | None
           ) -> tuple[tuple[str, str], ...] | None:
    """The notes of a page's small last lines: each begins with a mark (on its first line or on a line of its own)
    that counts up from the one before; other lines go on with the note before. None when the lines are not that."""
    notes: list[list[Any]] = []  # [mark, number, [parts]]
    for ln in small:
        line = text[ln.start:ln.end]
        alone = _alone(line)
        m = (alone[0], alone[1], len(line)) if alone else _mark(line)
        if m is not None and notes and not _next(notes[-1][1], m[1]):
            if alone:  # a lone number that is not the next mark is no note's text
                return None
            m = None
        if m is not None:
            rest = line[m[2]:].strip()
            notes.append([m[0], m[1], [rest] if rest else []])
        elif notes:
            notes[-1][2].append(line.strip())
        elif carried is not None:  # the end of the previous page's last note
            notes.append([carried[0], carried[1], [line.strip()]])
        else:
            return None
    if not notes or any(not parts for _, _, parts in notes):
        return None
    return tuple((mark, _join(parts)) for mark, _, parts in notes)


def _alone(line: str) -> tuple[str, int | None] | None:
    """``(mark, number)`` when the line is a note mark alone (``1``, ``(1)``, ``*``, ``¹``): pypdf puts a raised mark
    on a line of its own, and its note's text on the next."""
    m = _MARK_ALONE.fullmatch(line.strip())
    if not m:
        return None
    return numbered(next(g for g in m.groups() if g).translate(_SUPERSCRIPT))


def _next(prev: int | None, this: int | None) -> bool:
    """Whether a mark numbered ``this`` can begin the note after one numbered ``prev`` (symbols: always)."""
    if this is None or prev is None:
        return this is None and prev is None
    return this == prev + 1


def _join(parts: list[str]) -> str:
    out = parts[0]
    for part in parts[1:]:
        if out.endswith("-") and out[-2:-1].isalpha() and part[:1].islower():
            out += part  # "high-" + "risk": the hyphen is kept, as the document printed it
        else:
            out += " " + part
    return out


def note_place(text: str, block: NoteBlock, body_start: int, continued: bool) -> int | None:
    """Where on the page (an offset of ``text``, the page's extracted text) the notes of ``block`` go: the
    block's own place when the body before it ends a sentence, else the start of the sentence that runs
    over the page break (module docstring, step 3); None when the page's only sentence runs over both its
    breaks (the block is then left as printed). ``body_start`` is where the page's body begins (after a
    running header); ``continued``: the page's first sentence began on the page before. The place is
    always the start of a line or a sentence after white space, never the page's very start."""
    sents = split_sentences(text[body_start:block.start])
    # a lead-in's colon ends its sentence, but its points go on over the page: the notes go before the lead-in
    if not sents or (_ENDS_SENTENCE.search(sents[-1].text) and not sents[-1].text.endswith(":")):
        return block.start
    for s in reversed(sents[1:] if continued else sents):
        at = body_start + s.start
        if at > 0 and text[at - 1].isspace():
            return at
    return None


def ends_sentence(text: str, start: int, end: int) -> bool:
    """Whether the body text ``text[start:end]`` ends a sentence (a page whose last sentence runs over the
    page break is followed by a page whose first sentence is that sentence's end)."""
    sents = split_sentences(text[start:end])
    return not sents or bool(_ENDS_SENTENCE.search(sents[-1].text))
