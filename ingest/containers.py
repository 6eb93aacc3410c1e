"""Structure above the unit: which containers (chapters, sections, parts) hold which units, and
references to a container turned into references to its members.

An adapter records each unit's containers (:attr:`~anchor_core.models.Unit.containers`,
outermost first) and, for a reference that names a container ("Chapters I and II", "Section 2
of this Chapter"), emits a :class:`~anchor_core.models.Reference` with ``container`` set and no
target. :func:`expand` replaces it by one reference per member unit, so the hop code follows it
both ways with no special case: Article 113(a) "Chapters I and II shall apply from 2 February
2025" becomes a reference from Article 113 to Article 5, and a backward lead from Article 5.

Both functions are pure, so question-time code can use them too ("What does Chapter II
prohibit?"): ``expand([Reference(..., container="chapter-ii")], members(units))``.

Fan-out is bounded by ``limit`` (:data:`FANOUT_LIMIT` members). A reference to a container
larger than that (a whole Title of a code, a rulebook chapter of hundreds of passages) says
too little about any one member to be worth a lead to each; it is kept as one reference with
no target, counted as unresolved, rather than flooding the graph and every hop with it. The
limit sits above the largest chapter of the EU acts bundled here (the AI Act's Chapter III
has 44 articles), so there every container reference is expanded in full.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from anchor_core.models import Container, Reference, Unit

FANOUT_LIMIT = 60
"""Most members a container reference expands to; larger containers stay unexpanded."""


def members(units: Iterable[Unit]) -> dict[str, list[str]]:
    """Container id → ids of the units it holds (directly or through a nested container), in
    the order the units come.

    >>> from anchor_core.models import Container, Unit
    >>> ch = Container(id="chapter-ii", kind="chapter", label="Chapter II")
    >>> members([Unit(unit_id="article-5", doc_id="d", kind="article", heading="Article 5", text="x",
    ...               containers=[ch])])
    {'chapter-ii': ['article-5']}
    """
    out: dict[str, list[str]] = {}
    for u in units:
        for c in u.containers:
            ids = out.setdefault(c.id, [])
            if not ids or ids[-1] != u.unit_id:
                ids.append(u.unit_id)
    return out


def containers_of(units: Iterable[Unit]) -> dict[str, Container]:
    """Every container the units name, by id (the first record of each wins)."""
    out: dict[str, Container] = {}
    for u in units:
        for c in u.containers:
            out.setdefault(c.id, c)
    return out


def expand(refs: Iterable[Reference], members: dict[str, list[str]], *,
           limit: int = FANOUT_LIMIT) -> list[Reference]:
    """``refs`` with every unexpanded container reference (``container`` set, no ``dst_unit``)
    replaced by one reference per member unit of that container, keeping ``raw``, offsets and
    source. Other references pass through unchanged, in order. A container that is unknown or
    has more than ``limit`` members stays one reference with no target (unresolved).

    >>> from anchor_core.models import Reference
    >>> r = Reference(src_unit="article-113", start=0, end=17, raw="Chapters I and II", container="chapter-ii")
    >>> [(x.dst_unit, x.container) for x in expand([r], {"chapter-ii": ["article-5"]})]
    [('article-5', 'chapter-ii')]
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    out: list[Reference] = []
    for r in refs:
        if r.container is None or r.dst_unit is not None:
            out.append(r)
            continue
        held = members.get(r.container, [])
        if not held or len(held) > limit:
            out.append(r)
            continue
        out += [r.model_copy(update={"dst_unit": unit_id, "dst_part": None}) for unit_id in held]
    return out


_CAPS_WORD = re.compile(r"\b[A-Z][A-Z0-9]+\b")


def capitals_kept(texts: Iterable[str]) -> set[str]:
    """Words the text itself writes in capitals inside ordinary sentences (``AI``, ``CE``): an
    all-capitals heading keeps them when it is set in sentence case."""
    kept: set[str] = set()
    for t in texts:
        if t != t.upper():
            kept.update(_CAPS_WORD.findall(t))
    return kept


def heading_title(heading: str, capitals: set[str]) -> str:
    """A container heading as a title: as printed, or, when printed in capitals
    (``PROHIBITED AI PRACTICES``), in sentence case keeping the text's own capitalised words
    (``Prohibited AI practices``).

    >>> heading_title("PROHIBITED AI PRACTICES", {"AI"})
    'Prohibited AI practices'
    """
    if heading != heading.upper():
        return heading
    out = [w if w in capitals else w.lower() for w in heading.split(" ")]
    if out and out[0] not in capitals:
        out[0] = out[0][:1].upper() + out[0][1:]
    return " ".join(out)
