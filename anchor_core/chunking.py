"""Units → chunks.

``structural`` (the default) cuts along the unit's parts, so a paragraph of an article or a
point of an annex is one chunk with the unit's heading as a lead-in; a part longer than
``max_chars`` is split at line, then sentence, boundaries, never mid-sentence.
``fixed`` cuts the unit text into windows of ``window`` characters with overlap and no
lead-in: the baseline the sweep compares against.
"""

from __future__ import annotations

import re
from typing import Literal

from anchor_core.models import Chunk, Unit

Strategy = Literal["structural", "fixed"]
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+(?=[A-Z(“‘\"'])")


def _segments(unit: Unit) -> list[tuple[int, int, str | None]]:
    """Partition the unit text into maximal runs that share one innermost part."""
    n = len(unit.text)
    cuts = sorted({0, n, *(p.start for p in unit.parts), *(p.end for p in unit.parts)})
    segs: list[tuple[int, int, str | None]] = []
    for a, b in zip(cuts, cuts[1:]):
        if a >= b:
            continue
        inner = [p for p in unit.parts if p.start <= a and b <= p.end]
        label = min(inner, key=lambda p: p.end - p.start).label if inner else None
        if segs and segs[-1][2] == label and segs[-1][1] == a:
            segs[-1] = (segs[-1][0], b, label)
        else:
            segs.append((a, b, label))
    return segs


def _strip(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _split(text: str, a: int, b: int, max_chars: int) -> list[tuple[int, int]]:
    """Split [a, b) into pieces of at most ``max_chars``, preferring line then sentence ends."""
    if b - a <= max_chars:
        return [(a, b)]
    breaks = [m.end() for m in re.finditer(r"\n", text[a:b])]
    if not breaks:
        breaks = [m.start() for m in _SENTENCE_END.finditer(text[a:b])]
    breaks = [a + x for x in breaks]
    pieces: list[tuple[int, int]] = []
    start = a
    last_ok = None
    for cut in [*breaks, b]:
        if cut - start <= max_chars:
            last_ok = cut
            continue
        if last_ok is not None and last_ok > start:
            pieces.append((start, last_ok))
            start = last_ok
            last_ok = cut if cut - start <= max_chars else None
        if last_ok is None:  # one line or sentence longer than max_chars
            inner = _split_sentences(text, start, cut, max_chars)
            pieces.extend(inner[:-1])
            start = inner[-1][0]
            last_ok = cut
    if start < b:
        pieces.append((start, b))
    return pieces


def _split_sentences(text: str, a: int, b: int, max_chars: int) -> list[tuple[int, int]]:
    cuts = [a + m.start() for m in _SENTENCE_END.finditer(text[a:b])]
    pieces: list[tuple[int, int]] = []
    start = a
    prev = None
    for cut in [*cuts, b]:
        if cut - start > max_chars and prev is not None and prev > start:
            pieces.append((start, prev))
            start = prev
        prev = cut
    pieces.append((start, b))
    # A single sentence longer than max_chars stays whole: cutting it would break the claim
    # anchoring contract that a sentence lives inside one chunk.
    return pieces


def chunk_unit(unit: Unit, strategy: Strategy = "structural", *, max_chars: int = 1200,
               min_chars: int = 160, pack_chars: int = 600, window: int = 800,
               overlap: int = 100) -> list[Chunk]:
    """Cut one unit into chunks whose ``text == unit.text[start:end]``."""
    if max_chars <= 0 or window <= overlap:
        raise ValueError(f"max_chars must be > 0 and window > overlap; got {max_chars}, {window}, {overlap}")
    text = unit.text
    spans: list[tuple[int, int, str | None]] = []
    if strategy == "fixed":
        start = 0
        while start < len(text):
            end = min(len(text), start + window)
            if end < len(text):
                space = text.rfind(" ", start + window // 2, end)
                end = space if space > start else end
            spans.append((start, end, _part_at(unit, start)))
            if end >= len(text):
                break
            nxt = text.rfind(" ", start, end - overlap)
            start = nxt + 1 if nxt > start else end
    elif strategy == "structural":
        segs = [(a, b, lab) for a, b, lab in ((*_strip(text, a, b), lab) for a, b, lab in _segments(unit)) if a < b]
        merged: list[tuple[int, int, str | None]] = []
        for a, b, lab in segs:
            # A short lead (a section title, an annex's opening line) rides with what follows it.
            if (merged and merged[-1][1] - merged[-1][0] < min_chars and b - merged[-1][0] <= max_chars
                    and _leads_into(unit, merged[-1][2], a, b)):
                pa, _, plab = merged.pop()
                merged.append((pa, b, lab if lab is not None else plab))
            else:
                merged.append((a, b, lab))
        for a, b, lab in _pack_siblings(unit, merged, pack_chars):
            spans.extend((x, y, lab) for x, y in _split(text, a, b, max_chars))
    else:
        raise ValueError(f"unknown chunking strategy {strategy!r}; use 'structural' or 'fixed'")

    lead = unit.lead_in if strategy == "structural" else ""
    chunks = []
    for i, (a, b, lab) in enumerate(spans):
        a, b = _strip(text, a, b)
        if a >= b:
            continue
        chunks.append(Chunk(chunk_id=f"{unit.unit_id}:{i}", unit_id=unit.unit_id, doc_id=unit.doc_id,
                            kind=unit.kind, part=lab, start=a, end=b, text=text[a:b], lead=lead))
    return chunks


def _parent(unit: Unit, a: int, b: int, label: str | None) -> tuple[str, int, int] | None:
    """The smallest part that strictly contains the part ``label`` around [a, b)."""
    own = [p for p in unit.parts if p.label == label and p.start <= a and b <= p.end]
    lo, hi = (own[0].start, own[0].end) if own else (a, b)
    outer = [p for p in unit.parts if p.start <= lo and hi <= p.end and (p.start, p.end) != (lo, hi)]
    if not outer:
        return None
    p = min(outer, key=lambda q: q.end - q.start)
    return p.label, p.start, p.end


def _pack_siblings(unit: Unit, segs: list[tuple[int, int, str | None]], pack_chars: int
                   ) -> list[tuple[int, int, str | None]]:
    """Pack runs of short sibling points (Annex VIII, Section A, points 1-13) into one chunk
    labelled by their parent, so a list is retrieved as a list. Top-level paragraphs are never
    packed: ``Article 6(2)`` must stay a chunk of its own."""
    out: list[tuple[int, int, str | None]] = []
    parents: list[tuple[str, int, int] | None] = []
    for a, b, lab in segs:
        par = _parent(unit, a, b, lab)
        if out and par is not None and parents[-1] == par and b - out[-1][0] <= pack_chars:
            pa, _, plab = out.pop()
            out.append((pa, b, par[0] if plab != par[0] else plab))
        else:
            out.append((a, b, lab))
            parents.append(par)
            continue
        parents[-1] = par
    return out


def _leads_into(unit: Unit, label: str | None, a: int, b: int) -> bool:
    """True when a segment labelled ``label`` is the unlabelled lead or the parent part of [a, b):
    merging them must not hide a numbered part that a reference may point at."""
    if label is None:
        return True
    return any(p.label == label and p.start <= a and b <= p.end for p in unit.parts)


def _part_at(unit: Unit, offset: int) -> str | None:
    inner = [p for p in unit.parts if p.start <= offset < p.end]
    return min(inner, key=lambda p: p.end - p.start).label if inner else None
