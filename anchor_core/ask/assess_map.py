"""The topic map of ``anchor assess``: where in the law each topic is decided, read from the stored units.

A map (``data/assess_<corpus>.json``) names units, parts and points of the Regulation; this module
turns those names into :class:`Candidate` records cut from the stored unit text, each with the span
a reviewer sees quoted (``unit.text[start:end] == quote``) and the text the embedder compares with a
description. Points are found by the list structure of the text itself (lines that open with
``(a)``, ``(b)``... or ``(3)``, ``(4)``...; roman sub-points stay inside their point), so nothing
here knows a word of any provision.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from anchor_core.models import Unit

_ITEM = re.compile(r"^\(([a-z]{1,4}|\d{1,3})\)\s", re.M)
_ROMAN_NEXT = {"i": "ii", "v": "vi", "x": "xi"}
_ROMAN = re.compile(r"^(?=[ivxlc]+$)m*(c[md]|d?c{0,3})(x[cl]|l?x{0,3})(i[xv]|v?i{0,3})$")


@dataclass(frozen=True)
class Point:
    """A listed point of a text: ``label`` (``a``, ``3``), its whole span and its first line."""

    label: str
    start: int
    end: int
    line_end: int


@dataclass(frozen=True)
class Candidate:
    """One place a topic can be decided by: ``Annex III(4)(a)``, ``Article 50(1)``."""

    key: str
    """Short form the bench labels use: ``III.4(a)``, ``a`` (a point of Article 5(1)), ``1`` (Article 50(1))."""
    label: str
    unit_id: str
    part: str | None
    start: int
    end: int
    quote: str
    text: str
    """What the description is compared with (the point, with its area's title where it has one)."""


def load(corpus: str) -> dict[str, Any] | None:
    """The topic map shipped for ``corpus``, or ``None`` when there is none."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", corpus or ""):
        return None
    return _load(corpus)


@cache
def _load(corpus: str) -> dict[str, Any] | None:
    f = resources.files("anchor_core.ask") / "data" / f"assess_{corpus}.json"
    if not f.is_file():
        return None
    data: dict[str, Any] = json.loads(f.read_text(encoding="utf-8"))
    return data


def load_fit(corpus: str) -> dict[str, Any] | None:
    """The fitted thresholds for ``corpus`` (``data/assess_<corpus>_fit.json``), or ``None``."""
    if load(corpus) is None:
        return None
    f = resources.files("anchor_core.ask") / "data" / f"assess_{corpus}_fit.json"
    return json.loads(f.read_text(encoding="utf-8")) if f.is_file() else None


def points(text: str, start: int = 0, end: int | None = None) -> list[Point]:
    """The top-level listed points of ``text[start:end]``.

    A lettered list runs a, b, c...; an ``(i)`` that does not continue the letters (it follows
    ``(c)``, not ``(h)``) opens a roman sub-point, which stays inside its point.

    >>> [p.label for p in points("1. Lead:\\n(a) one;\\n(i) sub;\\n(ii) sub;\\n(b) two.")]
    ['a', 'b']
    """
    end = len(text) if end is None else end
    found: list[tuple[str, int]] = []
    items = [(m.group(1), m.start()) for m in _ITEM.finditer(text, start, end)]
    for i, (label, at) in enumerate(items):
        nxt = items[i + 1][0] if i + 1 < len(items) else ""
        if _ROMAN.match(label) and nxt and _ROMAN.match(nxt) and nxt == _ROMAN_NEXT.get(label):
            continue  # (i) followed by (ii): a roman sub-point even where (i) would continue the letters
        if found:
            prev = found[-1][0]
            if label.isdigit() != prev.isdigit():
                continue
            if not label.isdigit():
                follows = len(label) == 1 and len(prev) == 1 and ord(label) == ord(prev) + 1
                if not follows:
                    continue  # a roman sub-point, or a letter out of sequence: part of the current point
            elif int(label) != int(prev) + 1:
                continue
        elif not label.isdigit() and label != "a" and _ROMAN.match(label):
            continue
        found.append((label, at))
    out = []
    for i, (label, s) in enumerate(found):
        e = found[i + 1][1] if i + 1 < len(found) else end
        while e > s and text[e - 1] in "\n ":
            e -= 1
        nl = text.find("\n", s, e)
        out.append(Point(label, s, e, nl if nl != -1 else e))
    return out


def _first_line(text: str, start: int, end: int) -> int:
    nl = text.find("\n", start, end)
    return nl if nl != -1 else end


def part_span(unit: Unit, label: str | None) -> tuple[int, int]:
    if label is None:
        return 0, len(unit.text)
    for p in unit.parts:
        if p.label == label:
            return p.start, p.end
    raise KeyError(f"{unit.unit_id} has no part {label!r}")


def _area(unit: Unit, start: int, end: int) -> str:
    """The title line of a part (``4. Employment, workers' management ...:``) without its number."""
    line = unit.text[start:_first_line(unit.text, start, end)]
    return re.sub(r"^\s*[\dA-Z]+(?:\.\d+)*\.\s*", "", line).rstrip(":").strip()


def point_candidates(unit: Unit, part: str | None, key_of, label_of) -> list[Candidate]:
    """One candidate per listed point of ``unit``'s ``part``; the part itself when it lists none."""
    s, e = part_span(unit, part)
    pts = points(unit.text, s, e)
    if not pts:
        qe = _first_line(unit.text, s, e) if part is None else e
        return [Candidate(key_of(part, None), label_of(part, None), unit.unit_id, part, s, qe,
                          unit.text[s:qe], unit.text[s:e])]
    area = _area(unit, s, e) if part is not None and unit.kind == "annex" else ""
    out = []
    for p in pts:
        body = unit.text[p.start:p.end]
        out.append(Candidate(key_of(part, p.label), label_of(part, p.label), unit.unit_id, part, p.start,
                             p.line_end, unit.text[p.start:p.line_end], f"{area}: {body}" if area else body))
    return out


def find_point(unit: Unit, label: str) -> Point | None:
    return next((p for p in points(unit.text) if p.label == label), None)


def line_span(text: str, n: int) -> tuple[int, int]:
    """``[start, end)`` of the ``n``-th line (1-based) of ``text``."""
    s = 0
    for _ in range(n - 1):
        nl = text.find("\n", s)
        if nl == -1:
            raise KeyError(f"the text has fewer than {n} lines")
        s = nl + 1
    return s, _first_line(text, s, len(text))
