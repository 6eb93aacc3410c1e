"""Word's automatic numbering, rebuilt: the "1.", "2.1", "(a)" that Word draws before a paragraph but does not
store in its text.

A contract written in Word numbers its clauses with a list definition (``word/numbering.xml``), not with typed
digits, so ``paragraph.text`` reads "The Supplier shall ..." where the page shows "7.2 The Supplier shall ...".
Without the numbers no clause can be found by its number and "clause 7.2" in the text reaches nothing. This
module reads the definitions and counts as Word does:

- a paragraph is numbered by its own ``w:numPr`` or, failing that, by its style's (a "Heading 1" or "List
  Number" style linked to a list), following the style's ``basedOn`` chain; ``numId`` 0 switches numbering off;
- each list instance (``w:num``) points to an abstract definition whose levels give the start value, the format
  (decimal, letters, roman numerals, bullets) and the label template ("%1.%2");
- instances of one abstract definition continue one count unless an instance restarts it (``w:startOverride``);
  a level's count resets whenever a shallower level of the same list moves on;
- legal numbering (``w:isLgl``) writes every level of the label as a decimal.

Bullets and levels with no label give no number. What is not modelled (``w:lvlRestart``, numbering changed by
tracked revisions, fields such as SEQ and LISTNUM) numbers as the common case does; the upload says how many
paragraphs were numbered so a reviewer can compare with the document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ingest.eurlex_refs import int_to_roman

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


@dataclass(frozen=True)
class _Level:
    start: int
    fmt: str
    text: str
    legal: bool


def child_val(el: Any, tag: str) -> str | None:
    """The ``w:val`` of ``el``'s child ``w:{tag}`` (``None`` when either is missing)."""
    child = el.find(f"{_W}{tag}") if el is not None else None
    return None if child is None else child.get(f"{_W}val")


def int_or(text: str | None, default: int) -> int:
    """``text`` read as an integer, ``default`` when it is missing or not one (a Word or HTML attribute)."""
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def _letters(n: int) -> str:
    """Word's letter numbering: a..z, then aa..zz, aaa.. (the letter repeated), not a base-26 count."""
    if n <= 0:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def format_number(n: int, fmt: str) -> str:
    """``n`` written in Word's number format ``fmt`` ("decimal", "lowerLetter", "upperRoman", ...).

    >>> [format_number(3, f) for f in ("decimal", "lowerLetter", "upperLetter", "lowerRoman", "upperRoman")]
    ['3', 'c', 'C', 'iii', 'III']
    >>> format_number(27, "lowerLetter"), format_number(7, "decimalZero")
    ('aa', '07')
    """
    if fmt == "lowerLetter":
        return _letters(n)
    if fmt == "upperLetter":
        return _letters(n).upper()
    if fmt == "lowerRoman":
        return int_to_roman(n).lower()
    if fmt == "upperRoman":
        return int_to_roman(n)
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)  # decimal, and formats this module does not write (ordinals, other scripts) as digits


class WordNumbering:
    """The numbering of one Word document; :meth:`label` is called on its paragraphs in document order."""

    def __init__(self, document: Any) -> None:
        self._abstract: dict[str, dict[int, _Level]] = {}
        self._nums: dict[str, tuple[str, dict[int, int]]] = {}  # numId -> (abstractNumId, level -> start override)
        self._counts: dict[str, dict[int, int]] = {}  # per list: the current value of each level used so far
        self._style_num: dict[str, tuple[str, int] | None] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            root = None  # no numbering part: nothing is numbered
        if root is None:
            return
        for absn in root.findall(f"{_W}abstractNum"):
            levels = {}
            for lvl in absn.findall(f"{_W}lvl"):
                levels[int_or(lvl.get(f"{_W}ilvl"), 0)] = _Level(
                    int_or(child_val(lvl, "start"), 1), child_val(lvl, "numFmt") or "decimal",
                    child_val(lvl, "lvlText") or "",
                    lvl.find(f"{_W}isLgl") is not None and child_val(lvl, "isLgl") not in {"0", "false"})
            self._abstract[absn.get(f"{_W}abstractNumId") or ""] = levels
        for num in root.findall(f"{_W}num"):
            overrides = {}
            for ov in num.findall(f"{_W}lvlOverride"):
                start = child_val(ov, "startOverride")
                if start is not None:
                    overrides[int_or(ov.get(f"{_W}ilvl"), 0)] = int_or(start, 1)
            self._nums[num.get(f"{_W}numId") or ""] = (child_val(num, "abstractNumId") or "", overrides)

    def _from_style(self, style: Any) -> tuple[str, int] | None:
        seen = 0
        while style is not None and seen < 20:  # basedOn chains are short; a cycle must not hang the upload
            name = style.style_id
            if name in self._style_num:
                return self._style_num[name]
            ppr = style.element.pPr
            if ppr is not None and ppr.numPr is not None:
                found = self._num_pr(ppr.numPr)
                self._style_num[name] = found
                return found
            style, seen = style.base_style, seen + 1
        return None

    @staticmethod
    def _num_pr(num_pr: Any) -> tuple[str, int] | None:
        num_id = num_pr.numId.val if num_pr.numId is not None else None
        ilvl = num_pr.ilvl.val if num_pr.ilvl is not None else 0
        return (str(num_id), int(ilvl)) if num_id is not None else None

    def label(self, paragraph: Any) -> str:
        """The number Word draws before ``paragraph`` ("7.2", "(a)"), and counts it; "" when it has none."""
        ppr = paragraph._p.pPr
        own = self._num_pr(ppr.numPr) if ppr is not None and ppr.numPr is not None else None
        ref = own if own is not None else self._from_style(paragraph.style)
        if ref is None or ref[0] == "0" or ref[0] not in self._nums:
            return ""
        num_id, ilvl = ref
        abstract_id, overrides = self._nums[num_id]
        levels = self._abstract.get(abstract_id, {})
        level = levels.get(ilvl)
        if level is None:
            return ""
        key = f"num:{num_id}" if overrides else f"abstract:{abstract_id}"
        count = self._counts.setdefault(key, {})
        count[ilvl] = count[ilvl] + 1 if ilvl in count else overrides.get(ilvl, level.start)
        for deeper in [k for k in count if k > ilvl]:
            del count[deeper]
        if level.fmt in {"bullet", "none"} or not level.text:
            return ""
        text = level.text
        for k in range(9, -1, -1):  # %10 is not a Word placeholder; from the highest so "%1" never eats "%10"
            token = f"%{k + 1}"
            if token not in text:
                continue
            lv = levels.get(k)
            if lv is None:
                text = text.replace(token, "")
                continue
            value = count.get(k, overrides.get(k, lv.start))
            text = text.replace(token, format_number(value, "decimal" if level.legal else lv.fmt))
        return text.strip()
