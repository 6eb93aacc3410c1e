"""Extraction repair that keeps provenance.

A PDF's text layer is turned into the stored document text by a list of *edits* on the
extracted text: running headers, footers and page numbers are removed, words hyphenated
across a line break are re-joined, ligatures expanded, soft hyphens dropped and glued
sentences (``end.Next``) separated. Whether a line-end hyphen is kept (``high-risk``) or
dropped (``indem-nify``) is decided by :func:`anchor_core.normalize.normalize` with the
document's own lexicon, so uploads and claim anchoring agree on every such word.

The edits are kept as ``(start, end, original)`` triples in stored-text coordinates: the
stored ``text[start:end]`` replaced ``original`` of the extraction, so the extracted text can
always be rebuilt (:func:`original_text`) and every stored offset traced back. Page
boundaries are mapped through the same edits, so any stored span maps to its pages.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field

from anchor_core.normalize import build_lexicon, normalize
from ingest.uploads.pdfnotes import Line, NoteBlock, body_size, ends_sentence, inside, note_block, note_place, numbered

Edit = tuple[int, int, str]
"""``(start, end, replacement)`` on the input text, or ``(start, end, original)`` on the output."""

_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
_HYPHEN = re.compile(r"(?<=[^\W\d_])([-\u2010\u00ad])[ \t]*\n[ \t]*(?=[^\W\d_])")
_FIXES = re.compile(r"(?P<lig>[\ufb00-\ufb06])|(?P<soft>\u00ad)|(?P<glued>(?<=[a-z]{2}[.!?])(?=[A-Z][a-z]))")
_PAGE_NUMBER = re.compile(
    r"^(?:(?:page|p\.|seite|pagina)\s*)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:of|/|de|von)\s*\d{1,4})?$"
    r"|^[-–—]\s*\d{1,4}\s*[-–—]$", re.I)
_DIGITS = re.compile(r"\d+")
_PAGE_WORD = re.compile(r"(?:\bpage|\bp\.|\bpg\.?|\bseite|\bpagina|\bpágina|\bстр\.?|\bстраница)\s*$", re.I)
_OF_TOTAL = re.compile(r"^(?:of|/|de|von|из)\s*\d", re.I)
_SET_OFF_END = re.compile(r"(?:[|·•–—:-]|\s{2,}|\t)\s*$")
_SET_OFF_START = re.compile(r"^\s*(?:[|·•–—:-]|\s{2,}|\t)")
_BARE_NUMBER = re.compile(r"\d{1,4}|[ivxlc]{1,6}", re.I)
_SPACES = re.compile(r"\s+")
ZONE = 2
"""Lines at the top and at the bottom of a page that may be running headers or footers."""


@dataclass
class Repaired:
    """The stored text of a paged document and how it was made from the extraction."""

    text: str
    page_starts: list[int]
    """``page_starts[i]`` is the offset in :attr:`text` where page ``i + 1`` starts."""
    edits: list[Edit] = field(default_factory=list)
    """``(start, end, original)``: stored ``text[start:end]`` stands for ``original`` of the extraction."""
    counts: Counter = field(default_factory=Counter)
    removed: list[str] = field(default_factory=list)
    """Distinct running header/footer lines that were removed, one text each (digits aside), page
    numbers not listed; ``counts["header"]`` and ``counts["footer"]`` count every removed line."""


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, list[Edit]]:
    """Apply sorted, non-overlapping ``(start, end, replacement)`` edits; return the new text and
    the edits in new-text coordinates ``(start, end, original)``."""
    out: list[str] = []
    kept: list[Edit] = []
    pos = n = 0
    for s, e, repl in edits:
        out.append(text[pos:s])
        n += s - pos
        out.append(repl)
        kept.append((n, n + len(repl), text[s:e]))
        n += len(repl)
        pos = e
    out.append(text[pos:])
    return "".join(out), kept


def map_offset(edits: list[Edit], offset: int) -> int:
    """Where ``offset`` of the input text lands in the output of :func:`apply_edits` (``edits`` are
    the input-coordinate edits). An offset inside an edited region lands at the region's start."""
    shift = 0
    for s, e, repl in edits:
        if s >= offset:
            break
        if e > offset:
            return offset + shift - (offset - s)
        shift += len(repl) - (e - s)
    return offset + shift


def _map_offsets(edits: list[Edit], offsets: list[int]) -> list[int]:
    """:func:`map_offset` for many sorted offsets in one pass."""
    out, shift, k = [], 0, 0
    for off in offsets:
        while k < len(edits) and edits[k][1] <= off:
            s, e, repl = edits[k]
            shift += len(repl) - (e - s)
            k += 1
        if k < len(edits) and edits[k][0] < off < edits[k][1]:
            out.append(edits[k][0] + shift)
        else:
            out.append(off + shift)
    return out


def original_text(text: str, edits: list[Edit]) -> str:
    """Rebuild the extracted text from the stored text and its ``(start, end, original)`` edits."""
    out, pos = [], 0
    for s, e, orig in edits:
        out += [text[pos:s], orig]
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _signature(line: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", line.strip().lower()))


def _lines(page: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each non-blank line of the page, ``end`` past its newline if any."""
    out, pos = [], 0
    for line in page.splitlines(keepends=True):
        if line.strip():
            out.append((pos, pos + len(line)))
        pos += len(line)
    return out


def pages_needed(pages: int) -> int:
    """On how many pages a line must repeat, at the same position, to be a running header or footer.

    Every page of a document of up to three pages, else a strict majority (so a cover page or an
    appendix without the header does not keep it) and at least three pages: two pages agreeing
    by chance is plausible, three at the same line position is not. A one-page document has no
    running lines (returns more than its pages).
    """
    return pages + 1 if pages < 2 else pages if pages <= 3 else max(3, pages // 2 + 1)


def _counter_fits(line: str, m: re.Match[str]) -> bool:
    """Whether the number ``m`` of ``line`` sits where a running line puts its page number: the
    whole line (``- 7 -``), after a page word, before ``of 9``, or at either end of the line set
    off by ``|``, a dash, a colon or a wide gap (``Annual Report | 7``). ``Article 7`` or
    ``7. The tenant shall`` are body text even when their numbers happen to follow the pages."""
    before, after = line[:m.start()], line[m.end():]
    if _PAGE_NUMBER.match(line.strip()) or _PAGE_WORD.search(before) or _OF_TOTAL.match(after.strip()):
        return True
    if not after.strip():
        return bool(_SET_OFF_END.search(before))
    if not before.strip():
        return bool(_SET_OFF_START.match(after))
    return False


def _running(members: list[tuple[int, int, int, str]], need: int) -> list[tuple[int, int, int, str]]:
    """The lines of one ``(position, signature)`` group that are running lines: their numbers are
    the same on every page, except at most one that counts with the page (``Page 3 of 9`` then
    ``Page 4 of 9``) and sits where page numbers go; ``[]`` when fewer than ``need`` pages agree.
    ``members`` are ``(page index, start, end, line)``."""
    numbers = [[int(x) for x in _DIGITS.findall(line)] for _, _, _, line in members]
    slots = len(numbers[0])
    const = [Counter(ns[j] for ns in numbers).most_common(1)[0][0] for j in range(slots)]
    shift = [Counter(ns[j] - m[0] for ns, m in zip(numbers, members)).most_common(1)[0][0] for j in range(slots)]
    sample = members[0][3].strip()
    places = list(_DIGITS.finditer(sample))
    best: list[tuple[int, int, int, str]] = []
    for counter in [None, *(j for j in range(slots) if _counter_fits(sample, places[j]))]:
        fit = [m for m, ns in zip(members, numbers)
               if all(ns[j] - m[0] == shift[j] if j == counter else ns[j] == const[j] for j in range(slots))]
        if len(fit) > len(best):
            best = fit
    return best if len(best) >= need else []


def _roman(s: str) -> int:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
    return sum(-values[a] if values[a] < values.get(b, 0) else values[a] for a, b in zip(s, s[1:] + " "))


def furniture(pages: list[str]) -> list[list[tuple[int, int, str]]]:
    """Per page, the lines to drop as ``(start, end, kind)`` with kind ``header``/``footer``/``page``.

    A line is a running header (footer) when it sits at the same position, counted from the top
    (bottom) of the page within the first (last) :data:`ZONE` lines, on :func:`pages_needed`
    pages, the same text there except for a page number (see :func:`_running`). A line that
    looks like a page number (``7``, ``Page 7 of 9``, ``- vii -``) is dropped at a page edge
    (the first or last line left) when it says ``page`` or ``of 9``, or when its number keeps
    the same distance to the page's index as on another page. A body line that occurs once, or
    whose numbers change like body text does, is never dropped; a one-page document loses only
    a page number that ends it. Pages without text (scans, unreadable pages) are not counted.
    """
    lines = [_lines(page) for page in pages]
    n = sum(1 for ls in lines if ls)  # pages that failed to extract or are scans have no say
    drop: list[dict[tuple[int, int], str]] = [{} for _ in pages]
    groups: dict[tuple[str, int, str], list[tuple[int, int, int, str]]] = {}
    for i, (page, ls) in enumerate(zip(pages, lines)):
        for k in range(min(ZONE, len(ls))):
            for where, (a, b) in (("top", ls[k]), ("bottom", ls[-1 - k])):
                line = page[a:b]
                groups.setdefault((where, k, _signature(line)), []).append((i, a, b, line))
    need = pages_needed(n)
    for (where, _, _), members in groups.items():
        if len(members) < need:
            continue
        for i, a, b, line in _running(members, need):
            kind = "page" if _PAGE_NUMBER.match(line.strip()) else "header" if where == "top" else "footer"
            drop[i].setdefault((a, b), kind)
    # Page numbers that move or skip pages: the first and last line each page has left.
    edges: list[tuple[int, int, int, int]] = []  # page, start, end, number minus page index
    for i, (page, ls) in enumerate(zip(pages, lines)):
        left = [x for x in ls if x not in drop[i]]
        ends = left[-1:] if n == 1 else [*left[:1], *left[-1:]]
        for a, b in dict.fromkeys(x for x in ends if x in ls[:ZONE] or x in ls[-ZONE:]):
            line = page[a:b].strip()
            if not _PAGE_NUMBER.match(line):
                continue
            if n == 1 or not _BARE_NUMBER.fullmatch(line):  # "Page 7", "7 of 9", "- 7 -" say what they are
                drop[i][(a, b)] = "page"
            else:
                edges.append((i, a, b, (int(line) if line.isdigit() else _roman(line.lower())) - i))
    shared = Counter(off for *_, off in edges)
    for i, a, b, off in edges:
        if shared[off] >= 2:
            drop[i][(a, b)] = "page"
    return [sorted((a, b, kind) for (a, b), kind in d.items()) for d in drop]


def repair_pages(pages: list[str], lines: list[list[Line] | None] | None = None) -> Repaired:
    """Join the pages' extracted text into the stored text, removing page furniture and
    repairing extraction artefacts; see the module docstring. ``lines`` (PDF pages, from
    :func:`ingest.uploads.pdfnotes.page_lines`) gives each line's type size and height, so the
    notes printed at a page's foot are stored as note lines (:mod:`ingest.uploads.pdfnotes`)."""
    joined: list[str] = []
    starts: list[int] = []
    pos = 0
    for i, page in enumerate(pages):
        page = page.replace("\r\n", "\n").replace("\r", "\n")
        if i < len(pages) - 1 and not page.endswith("\n"):
            page += "\n"
        starts.append(pos)
        joined.append(page)
        pos += len(page)
    extracted = "".join(joined)
    drops = furniture(joined)
    moves = _note_moves(joined, drops, lines) if lines else {}
    while True:
        counts: Counter = Counter()
        removed: dict[str, str] = {}  # by signature: "Report | 1" and "Report | 2" are one running line
        stage1: list[Edit] = []
        for i, (start, page, page_drops) in enumerate(zip(starts, joined, drops)):
            block = moves[i][0] if i in moves else None
            marks = _body_marks(page_drops, block, lines[i]) if block and lines else []
            if marks:
                counts["note marks"] += len(marks)
            for a, b, kind in sorted([*page_drops, *([(block.start, block.end, "")] if block else []), *marks]):
                stage1.append((start + a, start + b, ""))
                if kind:
                    counts[kind] += 1
                if kind not in ("page", ""):
                    removed.setdefault(_signature(page[a:b]), page[a:b].strip())
            if block:
                counts["footnotes"] += len(block.notes)
        plain, _ = apply_edits(extracted, stage1)
        stage2 = _repairs(plain, counts)
        # Stage-2 edits are found on the furniture-free text; carry them to extraction coordinates
        # (a word hyphenated across a page break spans the removed footer and header) and merge.
        back = _Deletions(stage1)
        merged = _merge(stage1, [(back.to_extracted(s, True), back.to_extracted(e, False), r) for s, e, r in stage2])
        inserts = {i: _note_insert(joined[i], starts[i], block, at) for i, (block, at) in moves.items()}
        clash = {i for i, ins in inserts.items() if _overlaps(merged, ins)}
        if not clash:
            break
        moves = {i: m for i, m in moves.items() if i not in clash}  # such a page keeps its notes as printed
    merged = sorted([*merged, *inserts.values()], key=lambda x: (x[0], x[1]))
    text, edits = apply_edits(extracted, merged)
    page_starts = _map_offsets(merged, starts)
    return Repaired(text=text, page_starts=page_starts, edits=edits, counts=counts, removed=list(removed.values()))


def _note_moves(pages: list[str], drops: list[list[tuple[int, int, str]]], lines: list[list[Line] | None]
                ) -> dict[int, tuple[NoteBlock, int]]:
    """Per page index, the page's foot notes and where in the page they go (:mod:`ingest.uploads.pdfnotes`)."""
    body = body_size(lines, pages)
    out: dict[int, tuple[NoteBlock, int]] = {}
    blocks: dict[int, NoteBlock] = {}
    carried: tuple[str, int | None] | None = None
    for i, (page, page_lines) in enumerate(zip(pages, lines)):
        block = note_block(page, page_lines, body, drops[i], carried) if page_lines else None
        carried = None
        if block is None:
            continue
        blocks[i] = block
        mark, text = block.notes[-1]
        if not ends_sentence(text, 0, len(text)):  # the note goes on at the foot of the next page
            carried = numbered(mark)
        body_lines = _body_lines(page, drops[i])
        start = body_lines[0][0] if body_lines else len(page)
        continued = i > 0 and not _ends_page(pages[i - 1], drops[i - 1], blocks.get(i - 1))
        at = note_place(page, block, start, continued)
        if at is not None:
            out[i] = (block, at)
    return out


def _body_marks(drops: list[tuple[int, int, str]], block: NoteBlock, lines: list[Line] | None
                ) -> list[tuple[int, int, str]]:
    """The small note marks in the page's body whose notes ``block`` holds, as deletions ``(start, end, "")``."""
    named = {mark for mark, _ in block.notes}
    out = []
    for ln in lines or []:
        if ln.start >= block.start or inside(drops, ln.start):
            continue
        for a, b, mark in ln.marks:
            if mark in named:
                # a mark pypdf put on a line of its own goes with the line break before it, so the
                # sentence's two halves stay one paragraph
                out.append((ln.start - 1, ln.end, "") if ln.mark_only and ln.start > 0 else (a, b, ""))
    return out


def _body_lines(page: str, drops: list[tuple[int, int, str]], block: NoteBlock | None = None
                ) -> list[tuple[int, int]]:
    """The page's non-blank lines that are not furniture, and not ``block``'s notes or below them."""
    return [(a, b) for a, b in _lines(page) if not inside(drops, a) and (block is None or a < block.start)]


def _ends_page(page: str, drops: list[tuple[int, int, str]], block: NoteBlock | None) -> bool:
    """Whether the body of ``page`` (furniture and foot notes aside) ends a sentence."""
    body = _body_lines(page, drops, block)
    return not body or ends_sentence(page, body[0][0], body[-1][1])


def _note_insert(page: str, start: int, block: NoteBlock, at: int) -> Edit:
    """The edit (extraction coordinates) that puts ``block``'s note lines at ``at`` of the page: at a line's
    start they go in before it; after a sentence inside a line, the white space before ``at`` becomes a line
    break and the notes follow on their own lines."""
    if at == block.start or page[at - 1] == "\n":
        return (start + at, start + at, block.lines())
    ws = at
    while ws > 0 and page[ws - 1] in " \t":
        ws -= 1
    return (start + ws, start + at, "\n" + block.lines())


def _overlaps(edits: list[Edit], ins: Edit) -> bool:
    s, e, _ = ins
    return any((a < e and s < b) if s < e else a < s < b for a, b, _ in edits)


class _Deletions:
    """Maps offsets of the text with ``deletions`` applied back to the extracted text (bisect, O(log n))."""

    def __init__(self, deletions: list[Edit]) -> None:
        self.at: list[int] = []  # where each deletion sits in the reduced text
        self.shift: list[int] = []  # characters deleted up to and including it
        total = 0
        for s, e, _ in deletions:
            self.at.append(s - total)
            total += e - s
            self.shift.append(total)

    def to_extracted(self, offset: int, is_start: bool) -> int:
        """A start offset lands before deletions at that point, an end offset after them, so a
        span from ``a`` to ``b`` covers the lines deleted between."""
        k = (bisect_left if is_start else bisect_right)(self.at, offset)
        return offset + (self.shift[k - 1] if k else 0)


def _merge(deletions: list[Edit], fixes: list[Edit]) -> list[Edit]:
    """Drop deletions that fall inside a fix (the fix's original text holds them), then merge."""
    starts = [f[0] for f in fixes]
    out = []
    for d in deletions:
        k = bisect_right(starts, d[0]) - 1
        if k >= 0 and fixes[k][0] < fixes[k][1] and d[1] <= fixes[k][1]:
            continue
        out.append(d)
    return sorted(out + fixes, key=lambda x: (x[0], x[1]))


def _repairs(text: str, counts: Counter) -> list[Edit]:
    lexicon = build_lexicon(text)
    edits: list[Edit] = []
    for m in _HYPHEN.finditer(text):
        w1 = text[_word_start(text, m.start()):m.start()]
        w2_end = _word_end(text, m.end())
        w2 = text[m.end():w2_end]
        if m.group(1) == "\u00ad":
            keep = False
        else:
            keep = "-" in normalize(f"{w1}-\n{w2}", lexicon=lexicon).text
        edits.append((m.start(), m.end(), "-" if keep else ""))
        counts["hyphen kept" if keep else "dehyphenated"] += 1
    taken = [(s, e) for s, e, _ in edits]
    for m in _FIXES.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        kind = m.lastgroup
        if kind == "lig":
            edits.append((m.start(), m.end(), _LIGATURES[m.group()]))
            counts["ligatures"] += 1
        elif kind == "soft":
            edits.append((m.start(), m.end(), ""))
            counts["soft hyphens"] += 1
        else:
            edits.append((m.start(), m.start(), " "))
            counts["glued sentences"] += 1
    return sorted(edits, key=lambda x: (x[0], x[1]))


def _word_start(text: str, end: int) -> int:
    i = end
    while i > 0 and (text[i - 1].isalpha() or text[i - 1] in _LIGATURES):
        i -= 1
    return i


def _word_end(text: str, start: int) -> int:
    i = start
    while i < len(text) and (text[i].isalpha() or text[i] in _LIGATURES):
        i += 1
    return i
