"""References written in the question itself: "Annex III", "Article 6(2)", "Section 4.4 of RFC
7233", "PEP 484", "Rule 4.12.7".

They are read with the corpus's own reference grammar (its adapter's ``references_in``, the
same code that finds references in the corpus's text), so a corpus whose references look
different needs no change here. Everything is resolved in :func:`named_references`, which
returns :class:`~anchor_core.models.Reference` records with ``src_unit == "question"``;
``resolved`` says whether the target (and part) exists in the stored corpus. Container
references (``Chapter II``) are expected to arrive the same way, as references whose target is
a member unit.

The core does not look adapters up (the shells do): a shell hands the adapter registry over once
with :func:`use_adapters` (the CLI, the dashboard and the benches do); without it no question is
read for references, and retrieval works as before.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any

from anchor_core.errors import AnchorError
from anchor_core.models import CorpusInfo, ParsedCorpus, Reference
from anchor_core.stores.base import Store

log = logging.getLogger(__name__)

# Every reference grammar we know has a number (arabic or roman) in it; most questions have none,
# and they skip loading the corpus's reference index entirely.
_MAY_NAME = re.compile(r"\d|\b[IVXLCivxlc]+\b")
_lock = threading.Lock()
_grammars: dict[tuple[int, str, str], tuple[Any, ParsedCorpus] | None] = {}
_adapters: Callable[[str], Any] | None = None


def use_adapters(lookup: Callable[[str], Any] | None) -> None:
    """Let questions be read with the adapters' grammars: ``lookup(name)`` returns the adapter
    registered under a corpus's adapter name (``ingest.get_adapter``) or raises AnchorError.
    ``None`` turns named units off again."""
    global _adapters
    with _lock:
        _adapters = lookup
        _grammars.clear()


def _grammar(store: Store, info: CorpusInfo) -> tuple[Any, ParsedCorpus] | None:
    """The corpus's adapter and the stored corpus it resolves against, once per corpus version."""
    key = (id(store), info.name, info.version)
    with _lock:
        if key in _grammars:
            return _grammars[key]
    found: tuple[Any, ParsedCorpus] | None = None
    try:
        adapter = _adapters(info.adapter) if _adapters is not None else None
    except AnchorError:
        adapter = None  # a corpus ingested by a test or a custom adapter: no grammar, no named units
    if adapter is not None and hasattr(adapter, "references_in"):
        ids = store.unit_ids(info.name)
        units = store.get_units(info.name, ids)
        found = (adapter, ParsedCorpus(documents=store.documents(info.name),
                                       units=[units[u] for u in ids if u in units]))
    with _lock:
        for old in [k for k in _grammars if k[:2] == key[:2]]:
            del _grammars[old]  # an older version of the same corpus
        _grammars[key] = found
    return found


def named_references(question: str, *, store: Store, corpus: str) -> list[Reference]:
    """References the question writes, in order of appearance, each target once.

    A reference whose unit is not in the corpus keeps ``dst_unit`` and has ``resolved=False``
    (``Article 999``); one the grammar cannot place has ``dst_unit=None``. A part the unit lacks
    (``Article 6(9)``) falls back to the whole unit, ``dst_part=None``, and stays resolved.
    """
    if not _MAY_NAME.search(question):
        return []
    info = store.corpus(corpus)
    grammar = _grammar(store, info)
    if grammar is None:
        return []
    adapter, parsed = grammar
    try:
        refs: list[Reference] = adapter.references_in(question, parsed)
    except Exception:  # a grammar bug must not take retrieval down; the question is still searched
        log.exception("reading references in the question failed for adapter %s", info.adapter)
        return []
    units = {u.unit_id: u for u in parsed.units}
    out: list[Reference] = []
    seen: set[tuple[str | None, str | None]] = set()
    for r in sorted(refs, key=lambda r: r.start):
        u = units.get(r.dst_unit) if r.dst_unit else None
        part = r.dst_part if u is not None and any(p.label == r.dst_part for p in u.parts) else None
        key = (r.dst_unit, part) if u is not None else (r.dst_unit or r.raw, r.dst_part)
        if key in seen:
            continue
        seen.add(key)
        out.append(r.model_copy(update={"dst_part": part if u is not None else r.dst_part, "resolved": u is not None}))
    return out


def describe_unresolved(r: Reference) -> str:
    """How the trace says that a reference in the question leads nowhere."""
    if r.dst_unit is None:
        return f"'{r.raw}' in the question names no single unit of this corpus"
    return f"'{r.raw}' in the question is not in this corpus ({r.target_label} not found)"
