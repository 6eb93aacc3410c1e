"""Cross-references in EU legislative text: ``Article 6(2)``, ``Articles 8 to 15``,
``Annex III, point 4``, ``point 4 of Annex III``, ``Section A of Annex VIII``.

References to other acts (``Article 9(1) of Regulation (EU) 2016/679``, ``Article 16 TFEU``)
are kept with no target so that they are counted as unresolved rather than silently
mistaken for a provision of this act.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from anchor_core.models import Container, Reference, Unit
from ingest.base import part_at

ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def roman_to_int(numeral: str) -> int:
    total, prev = 0, 0
    for ch in reversed(numeral.upper()):
        value = ROMAN[ch]
        total = total - value if value < prev else total + value
        prev = max(prev, value)
    return total


_NUM = r"\d+[a-z]?(?:\(\d+\))*"
_ARTICLES = re.compile(
    rf"\bArticles?\s+(?P<items>{_NUM}(?:(?:\s*,\s*|\s+(?:and|or|to)\s+)(?!point|first|second|third){_NUM})*)"
    r"(?P<tail>(?:\s*,\s*(?:first|second|third|fourth|fifth)\s+subparagraph)?"
    r"(?:\s*,?\s*points?\s+\([a-z0-9]+\)(?:\s*(?:,|and|or|to)\s*\([a-z0-9]+\))*)?)"
)
_ANNEXES = re.compile(
    r"\bAnnex(?:es)?\s+(?P<items>[IVXLC]+(?:(?:\s*,\s*|\s+(?:and|or|to)\s+)[IVXLC]+)*)\b"
    r"(?:\s*,\s*(?:(?:point|Section)\s+(?P<part>[0-9A-Z]+)))?"
)
_PART_OF_ANNEX = re.compile(r"\b(?:point|Section)\s+(?P<part>[0-9A-Z]+)\s+of\s+Annex\s+(?P<annex>[IVXLC]+)\b")
# What follows a reference to another act's provision.
_EXTERNAL = re.compile(
    r"(?:\s*(?:,|and|or|to)\s*\(\d+\))*"
    r"\s*(?:,\s*(?:first|second|third|fourth)\s+subparagraph\s*,?)?\s*"
    r"(?:of\s+(?:Regulation|Directive|Decision|Protocol|Council|the\s+Charter|the\s+Treaty|that\s+"
    r"(?:Regulation|Directive|Decision)|those\s+|the\s+(?:Convention|Agreement))|TFEU|TEU\b)"
)
# "paragraph 3" points at another paragraph of the same article; "paragraph 1 of Article 10"
# at a paragraph of another one.
_PARAGRAPHS = re.compile(
    r"\bparagraphs?\s+(?P<items>\d+(?:(?:\s*,\s*|\s+(?:and|or|to)\s+)\d+)*)(?![\d(])"
    r"(?:\s+of\s+(?:(?P<this>this\s+Article)|Article\s+(?P<article>\d+[a-z]?)))?"
)
_ITEM = re.compile(r"(\d+[a-z]?)((?:\(\d+\))?)")
_RANGE_CAP = 40


def _article_items(items: str) -> list[tuple[str, str | None]]:
    """``"8 to 15"`` → articles 8..15; ``"6(2) and 7"`` → (6, "2"), (7, None)."""
    out: list[tuple[str, str | None]] = []
    tokens = re.split(r"\s*(,|\band\b|\bor\b|\bto\b)\s*", items)
    pending_range = False
    for tok in tokens:
        if tok in {",", "and", "or", ""}:
            continue
        if tok == "to":
            pending_range = True
            continue
        m = _ITEM.match(tok)
        if not m:
            continue
        num, par = m.group(1), (m.group(2)[1:-1] if m.group(2) else None)
        if pending_range and out and out[-1][0].isdigit() and num.isdigit():
            start = int(out[-1][0])
            for n in range(start + 1, min(int(num), start + _RANGE_CAP) + 1):
                out.append((str(n), None))
            pending_range = False
            continue
        pending_range = False
        out.append((num, par))
    return out


def _annex_items(items: str) -> list[int]:
    numerals = re.findall(r"[IVXLC]+", items)
    values = [roman_to_int(n) for n in numerals]
    if " to " in items and len(values) == 2 and values[0] < values[1]:
        return list(range(values[0], values[1] + 1))
    return values


def extract_references(unit: Unit) -> list[Reference]:
    """All explicit references in the unit's text and title, with offsets and (unresolved) targets.
    A reference to a chapter or section comes with ``container`` set and no target; expand it
    with :func:`ingest.containers.expand`."""
    refs = _extract(unit, unit.text, in_title=False) + _containers(unit, unit.text, in_title=False)
    if unit.title:
        refs += _extract(unit, unit.title, in_title=True) + _containers(unit, unit.title, in_title=True)
    return refs


_ROMANS = r"[IVXLC]+(?:(?:\s*,\s*|\s+(?:and|or|to)\s+)[IVXLC]+)*"
_DIGITS = r"\d+(?:(?:\s*,\s*|\s+(?:and|or|to)\s+)\d+)*"
# "Chapters I and II", "Chapter III, Section 2", "Chapter III Section 4", "Chapter V, Sections 2 and 3"
_CHAPTERS = re.compile(rf"\bChapters?\s+(?P<chapters>{_ROMANS})\b(?:,?\s+Sections?\s+(?P<sections>{_DIGITS})\b)?")
# "Section 2 of this Chapter", "Sections 2 and 3 of Chapter V", and a bare "Section 2" (of this chapter)
_SECTIONS = re.compile(rf"\bSections?\s+(?P<sections>{_DIGITS})\b(?![.(]\d)"
                       r"(?:\s+of\s+(?:(?P<this>this\s+Chapter)|Chapter\s+(?P<chapter>[IVXLC]+)\b))?")
_THIS = re.compile(r"\b[Tt]his\s+(?P<kind>Chapter|Section|Title|Part)\b")


def _numbers(items: str, numeral: bool) -> list[str]:
    """``"I and II"`` → I, II; ``"2 to 4"`` → 2, 3, 4 (numerals stay numerals)."""
    found = re.findall(r"[IVXLC]+" if numeral else r"\d+", items)
    values = [roman_to_int(n) if numeral else int(n) for n in found]
    if re.search(r"\bto\b", items) and len(values) == 2 and 0 < values[1] - values[0] <= _RANGE_CAP:
        values = list(range(values[0], values[1] + 1))
    return [int_to_roman(v) if numeral else str(v) for v in values]


def int_to_roman(n: int) -> str:
    """``n`` in upper-case roman numerals.

    >>> int_to_roman(14), int_to_roman(2024)
    ('XIV', 'MMXXIV')
    """
    out = ""
    for value, digits in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                          (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out += digits
            n -= value
    return out


def _external_at(text: str, pos: int) -> bool:
    """True when what follows ``pos`` names another act (``, of Regulation (EU) 2019/1020``)."""
    return bool(_EXTERNAL.match(text, pos + len(text[pos:]) - len(text[pos:].lstrip(" ,"))))


def _containers(unit: Unit, text: str, *, in_title: bool) -> list[Reference]:
    return container_references(text, src_unit=unit.unit_id, within=unit.containers, in_title=in_title,
                                part_of=None if in_title else (lambda at: part_at(unit, at)))


def container_references(text: str, *, src_unit: str, within: Sequence[Container] = (), in_title: bool = False,
                         part_of: Callable[[int], str | None] | None = None) -> list[Reference]:
    """References to chapters and sections of this act written in ``text``, one per container
    named, each with ``container`` set to the container id (``chapter-iii-section-2``) and no
    target yet (:func:`ingest.containers.expand` makes them references to the members). "this
    Chapter" and a bare "Section 2" are read against ``within``, the containers the text sits in
    (none for a question); a container of another act is not a reference of this act.

    >>> [(r.raw, r.container) for r in container_references("What do Chapters I and II cover?", src_unit="q")]
    [('Chapters I and II', 'chapter-i'), ('Chapters I and II', 'chapter-ii')]
    """
    if "Chapter" not in text and "Section" not in text and "his Title" not in text and "his Part" not in text:
        return []  # most units name no container; the scans below are the slow part of loading
    own: dict[str, Container] = {c.kind: c for c in within}
    chapter = own.get("chapter")
    found: list[tuple[int, int, list[str]]] = []
    for m in _CHAPTERS.finditer(text):
        chapters = [f"chapter-{n.lower()}" for n in _numbers(m.group("chapters"), numeral=True)]
        if m.group("sections"):
            ids = [f"{chapters[-1]}-section-{n}" for n in _numbers(m.group("sections"), numeral=False)]
        else:
            ids = chapters
        found.append((m.start(), m.end(), ids))
    for m in _SECTIONS.finditer(text):
        if m.group("chapter"):
            base = f"chapter-{m.group('chapter').lower()}"
        elif chapter is not None:
            base = chapter.id
        else:
            continue
        found.append((m.start(), m.end(), [f"{base}-section-{n}" for n in _numbers(m.group("sections"), False)]))
    for m in _THIS.finditer(text):
        mine = own.get(m.group("kind").lower())
        if mine is not None:
            found.append((m.start(), m.end(), [mine.id]))
    refs: list[Reference] = []
    end_of_last = -1
    # The longest reading at each place wins: "Section 2 of this Chapter" over its "this Chapter".
    for start, end, ids in sorted(found, key=lambda f: (f[0], f[0] - f[1])):
        if start < end_of_last:
            continue
        end_of_last = end
        if _external_at(text, end):
            continue
        for cid in dict.fromkeys(ids):
            refs.append(Reference(src_unit=src_unit, src_part=part_of(start) if part_of else None,
                                  start=start, end=end, raw=text[start:end], in_title=in_title, container=cid))
    return refs


def _extract(unit: Unit, text: str, *, in_title: bool) -> list[Reference]:
    refs: list[Reference] = []

    def add(start: int, end: int, dst_unit: str | None, dst_part: str | None) -> None:
        refs.append(Reference(src_unit=unit.unit_id, src_part=None if in_title else part_at(unit, start),
                              start=start, end=end, raw=text[start:end], dst_unit=dst_unit, dst_part=dst_part,
                              in_title=in_title))

    for m in _ARTICLES.finditer(text):
        if _EXTERNAL.match(text, m.end()):
            add(m.start(), m.end(), None, None)
            continue
        for num, par in _article_items(m.group("items")):
            add(m.start(), m.end(), f"article-{num}", par)

    if unit.kind == "article":
        for m in _PARAGRAPHS.finditer(text):
            rest = text[m.end():m.end() + 40]
            if m.group("article") is None and re.match(r"\s*,?\s*(?:first|second|third)?\s*(?:subparagraph)?\s*,?\s*"
                                                       r"(?:points?\s+\([a-z0-9]+\)\s*,?\s*)?of\s+(?!this)", rest):
                continue  # "paragraph 2 of Regulation ..." or "of Annex": not a paragraph of this article
            if m.group("article") and _EXTERNAL.match(text, m.end()):
                add(m.start(), m.end(), None, None)
                continue
            target = f"article-{m.group('article')}" if m.group("article") else unit.unit_id
            for num, _ in _article_items(m.group("items")):
                add(m.start(), m.end(), target, num)

    covered: list[tuple[int, int]] = []
    for m in _PART_OF_ANNEX.finditer(text):
        if _EXTERNAL.match(text, m.end()):
            continue
        add(m.start(), m.end(), f"annex-{roman_to_int(m.group('annex'))}", m.group("part"))
        covered.append((m.start(), m.end()))
    for m in _ANNEXES.finditer(text):
        if any(s <= m.start() < e for s, e in covered):
            continue
        if _EXTERNAL.match(text, m.end()):
            add(m.start(), m.end(), None, None)
            continue
        numbers = _annex_items(m.group("items"))
        part = m.group("part") if len(numbers) == 1 else None
        for n in numbers:
            add(m.start(), m.end(), f"annex-{n}", part)
    return refs
