"""Corpus → store: adapter output is checked, chunked, its references resolved, embedded and
written in one atomic replace.

Nothing is written until every unit is parsed and every chunk embedded, so an ingest that
fails on a bad file or a missing model leaves the stored corpus as it was.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from anchor_core.chunking import Strategy, chunk_unit
from anchor_core.embeddings import Embedder
from anchor_core.errors import AdapterError
from anchor_core.models import Chunk, CorpusInfo, ParsedCorpus, Reference, Unit
from anchor_core.stores.base import Store

log = logging.getLogger(__name__)


def resolve_references(units: list[Unit], refs: list[Reference]) -> tuple[list[Reference], int]:
    """Mark references whose target unit exists as resolved; keep a target part only if that unit
    has it. Self-references (to the unit itself, or to the part the reference stands in) are
    dropped (returned count); a reference to another part of the same unit ("paragraph 1" in
    Article 5(2), "Section 4.1.2" in RFC 6749 §3) is kept. Duplicates are collapsed;
    unresolvable references are kept and counted."""
    by_id = {u.unit_id: u for u in units}
    out: list[Reference] = []
    seen: set[tuple] = set()
    dropped_self = 0
    for r in refs:
        target = by_id.get(r.dst_unit) if r.dst_unit else None
        part = r.dst_part
        if target is not None and part is not None and not any(p.label == part for p in target.parts):
            part = None
        if r.dst_unit is not None and r.dst_unit == r.src_unit and (part is None or part == r.src_part or r.in_title):
            dropped_self += 1
            continue
        key = (r.src_unit, r.in_title, r.start, r.end, r.dst_unit, r.dst_part)
        if key in seen:
            continue
        seen.add(key)
        out.append(r.model_copy(update={"resolved": target is not None, "dst_part": part}))
    return out, dropped_self


def validate(parsed: ParsedCorpus, source: str) -> None:
    if not parsed.units:
        raise AdapterError(f"{source} produced no units (no text found); nothing was ingested.")
    ids = [u.unit_id for u in parsed.units]
    dupes = sorted({i for i in ids if ids.count(i) > 1}) if len(set(ids)) != len(ids) else []
    if dupes:
        raise AdapterError(f"{source} has duplicate unit ids {dupes[:5]}; nothing was ingested.")
    docs = {d.doc_id for d in parsed.documents}
    orphans = [u.unit_id for u in parsed.units if u.doc_id not in docs]
    if orphans:
        raise AdapterError(f"units {orphans[:5]} name documents that the adapter did not return.")


def ingest(store: Store, embedder: Embedder, parsed: ParsedCorpus, *, corpus: str, adapter: str,
           source: str = "", chunking: Strategy = "structural", groups: list[str] | None = None,
           progress: Callable[[int, int], None] | None = None) -> CorpusInfo:
    """Replace ``corpus`` in ``store`` with ``parsed``. ``groups`` (if given) are added to every
    document's access groups. ``progress(done, total)`` is called as chunks are embedded."""
    t0 = time.perf_counter()
    validate(parsed, source or adapter)
    documents = parsed.documents
    if groups:
        documents = [d.model_copy(update={"groups": sorted({*d.groups, *groups})}) for d in documents]
    chunks: list[Chunk] = [c for u in parsed.units for c in chunk_unit(u, chunking)]
    refs, dropped_self = resolve_references(parsed.units, parsed.references)

    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(done, len(chunks))

    vectors = embedder.embed([c.embed_text for c in chunks], progress=tick)
    info = CorpusInfo(
        name=corpus, adapter=adapter, version=uuid.uuid4().hex, documents=len(documents), units=len(parsed.units),
        chunks=len(chunks), references=sum(r.resolved for r in refs), unresolved=sum(not r.resolved for r in refs),
        embedder=embedder.model_id, dim=embedder.dim, chunking=chunking, source=source)
    store.replace_corpus(info, documents, parsed.units, chunks, vectors, refs)
    log.info("ingested %s: %d units, %d chunks, %d references (%d unresolved, %d self dropped) in %.1fs",
             corpus, info.units, info.chunks, info.references, info.unresolved, dropped_self,
             time.perf_counter() - t0)
    return info


def load_adapter_corpus(adapter_name: str, path: Path | None) -> ParsedCorpus:
    from ingest import get_adapter

    adapter = get_adapter(adapter_name)
    if path is None and getattr(adapter, "needs_path", True):
        raise AdapterError(f"the {adapter_name} adapter needs --path (the folder or file holding the corpus), "
                           f"e.g. anchor ingest {adapter_name} --path ./{adapter_name}; the README's adapter "
                           "table says where to get each corpus")
    return adapter.load(path)
