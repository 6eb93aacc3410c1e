"""Which page(s) of a paged source (PDF) a span of a stored unit comes from.

Uploaded PDF units carry ``unit.meta["pages"]``: ``[[offset, page], ...]``, the unit-relative
offset where each page starting inside the unit begins (the first entry is ``[0, first
page]``). Any half-open span ``[start, end)`` of ``unit.text`` therefore maps to its pages:

    >>> u = Unit(unit_id="c/7", doc_id="c", kind="section", heading="7", text="a" * 3000,
    ...          meta={"pages": [[0, 6], [1000, 7]]})
    >>> describe_span(u, 1204, 1289)
    'page 7, characters 1204–1289'
"""

from __future__ import annotations

from collections.abc import Iterable

from anchor_core.models import Unit


def page_in(marks: Iterable[Iterable[int]], offset: int, default: int | None = None) -> int | None:
    """The page that ``offset`` is on, given the ``(offset, page)`` marks where pages begin, in order; ``default``
    before the first mark (or with none)."""
    page = default
    for at, p in marks:
        if at > offset:
            break
        page = p
    return page


def page_at(unit: Unit, offset: int) -> int | None:
    """The page that character ``offset`` of ``unit.text`` is on; None for unpaged units."""
    return page_in(unit.meta.get("pages") or [], offset)


def marks_in(unit: Unit, start: int, end: int) -> list[tuple[int, int]]:
    """The unit's page marks that place the span ``[start, end)``: the page ``start`` is on and every page that
    begins before ``end`` (empty for unpaged units)."""
    marks = [(int(at), int(p)) for at, p in unit.meta.get("pages") or []]
    first = max((i for i, (at, _) in enumerate(marks) if at <= start), default=0)
    return [m for m in marks[first:] if m[0] < end]


def pages_of(unit: Unit, start: int, end: int) -> tuple[int, int] | None:
    """``(first page, last page)`` of the span ``[start, end)``; None for unpaged units."""
    if not 0 <= start <= end <= len(unit.text):
        raise ValueError(f"span ({start}, {end}) is outside {unit.unit_id}'s text of length {len(unit.text)}")
    first = page_at(unit, start)
    if first is None:
        return None
    return first, page_at(unit, max(start, end - 1)) or first


def describe_span(unit: Unit, start: int, end: int) -> str:
    """``page 7, characters 1204–1289`` (``pages 7–8, …`` across a break; no page part when unpaged).
    Character offsets are into ``unit.text``, as everywhere in Anchor."""
    pages = pages_of(unit, start, end)
    chars = f"characters {start}–{end}"
    if pages is None:
        return chars
    a, b = pages
    return f"page {a}, {chars}" if a == b else f"pages {a}–{b}, {chars}"
