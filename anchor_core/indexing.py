"""Corpus → store, through one path: :func:`write` turns a :class:`Change` (a whole parsed
corpus, or some documents added, replaced or removed) into the store write and the new
:class:`CorpusInfo`.

- :func:`ingest` (adapters: a whole corpus) checks, chunks, resolves and embeds a
  :class:`ParsedCorpus` and writes it as a full replace.
- Uploads (:mod:`ingest.uploads`) and document deletes write only what changed; the counts of
  the corpus record are updated arithmetically from what the change adds and drops, so the cost
  follows the change, not the corpus.

Nothing is written until every unit is parsed and every chunk embedded, and each write is one
atomic store call, so a failure leaves the stored corpus as it was.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from anchor_core.chunking import Strategy, chunk_unit
from anchor_core.embeddings import Embedder
from anchor_core.errors import AdapterError
from anchor_core.models import Chunk, CorpusInfo, Document, Filters, ParsedCorpus, Reference, Unit, utcnow
from anchor_core.stores.base import Store
from anchor_core.text import query_terms, words

log = logging.getLogger(__name__)


class EmbedRate:
    """Chunks per second and time left for an embedding progress bar. Vectors reused from the
    cache arrive all at once in the first report, so the rate counts from there: it is the
    model's rate, and the time left is for the chunks it still has to embed.

    >>> r = EmbedRate(); r.update(400, 1000, now=0.0); r.update(500, 1000, now=5.0)
    ''
    '20.0 chunks/s, 25 s left'
    """

    def __init__(self) -> None:
        self._start: tuple[float, int] | None = None

    def update(self, done: int, total: int, *, now: float | None = None) -> str:
        now = time.perf_counter() if now is None else now
        if self._start is None:
            self._start = (now, done)
            return ""
        made, spent = done - self._start[1], now - self._start[0]
        if made <= 0 or spent <= 0:
            return ""
        rate = made / spent
        left = max(total - done, 0) / rate
        when = f"{max(1, round(left))} s" if left < 90 else f"{round(left / 60)} min" if left < 5400 \
            else f"{left / 3600:.1f} h"
        return f"{rate:.1f} chunks/s, {when} left"


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


def name_cited_containers(units: list[Unit], chunks: list[Chunk], refs: list[Reference]) -> list[Chunk]:
    """Chunks whose text cites a container ("Chapters I and II shall apply from 2 February 2025")
    get the titles of the containers cited in their lead (``Chapter II — Prohibited AI practices``),
    so a question about the container's topic finds the provision that refers to it. A container
    the citing unit itself sits in ("this Section") is left out: its title would be one more copy
    of the title every member shares, which measured as a loss when put on every member's lead."""
    by_unit = {u.unit_id: u for u in units}
    own = {u.unit_id: {c.id for c in u.containers} for u in units}
    named: dict[str, list[tuple[int, int, bool, str]]] = {}
    for r in refs:
        if r.container and r.container not in own.get(r.src_unit, set()):
            named.setdefault(r.src_unit, []).append((r.start, r.end, r.in_title, r.container))
    if not named:
        return chunks
    titles = {c.id: c for u in units for c in u.containers}
    out: list[Chunk] = []
    for c in chunks:
        cited = [cid for start, end, in_title, cid in named.get(c.unit_id, [])
                 if in_title or (c.start < end and start < c.end)]
        if not cited:
            out.append(c)
            continue
        have = {w.rstrip("s") for w in words(f"{c.lead} {c.text}")}
        # A title whose words the chunk already has tells nothing new about it ("Requirements for
        # high-risk AI systems" beside "the requirements set out in Chapter III, Section 2"); in the
        # vector it only pulled the chunk towards every question on high-risk systems.
        shown = [titles[cid].display for cid in dict.fromkeys(cited) if cid in titles and titles[cid].title
                 and {w.rstrip("s") for w in query_terms(titles[cid].title)} - have]
        if shown and c.unit_id in by_unit:
            c = c.model_copy(update={"lead": f"{c.lead} ({'; '.join(shown)})".strip()})
        out.append(c)
    return out


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


@dataclass
class Change:
    """What one write does to a corpus.

    ``documents`` (with their ``units``, ``chunks`` and one row of ``vectors`` per chunk) are
    added or replace the stored documents of the same id; ``remove`` are dropped. ``references``
    are every reference written in the new units plus the re-resolved references of the units
    listed in ``ref_sources`` (units of other, kept documents). For a full replace, the content
    is the whole corpus and ``remove``/``ref_sources`` are unused."""

    documents: list[Document]
    units: list[Unit]
    chunks: list[Chunk]
    vectors: np.ndarray
    references: list[Reference]
    remove: list[str] = field(default_factory=list)
    ref_sources: list[str] = field(default_factory=list)


def write(store: Store, embedder: Embedder | None, change: Change, *, corpus: str, prev: CorpusInfo | None,
          full: bool = False, adapter: str = "", source: str = "", chunking: str = "structural") -> CorpusInfo:
    """Write ``change`` into ``corpus`` in one atomic store call and return the new corpus record.

    With ``full`` the corpus is replaced by the change's content and counted from it. Otherwise
    only the change is written (``prev`` is the stored record, None when the corpus is new) and
    the counts move by what it adds and what it drops: the stored units, chunks and references
    of the dropped documents and the old references of ``ref_sources``, read by id. ``embedder``
    names the model of the vectors (None when the change embeds nothing: the corpus's stays)."""
    c = change
    model = (embedder.model_id, embedder.dim) if embedder else (prev.embedder, prev.dim) if prev else ("", 0)
    resolved = sum(r.resolved for r in c.references)
    if full or prev is None:
        info = CorpusInfo(
            name=corpus, adapter=adapter or (prev.adapter if prev else ""), version=uuid.uuid4().hex,
            documents=len(c.documents), units=len(c.units), chunks=len(c.chunks), references=resolved,
            unresolved=len(c.references) - resolved, embedder=model[0], dim=model[1],
            chunking=chunking, source=source)
        if full:
            store.replace_corpus(info, c.documents, c.units, c.chunks, c.vectors, c.references)
        else:
            store.replace_documents(info, c.documents, c.units, c.chunks, c.vectors, c.references,
                                    remove=c.remove, ref_sources=c.ref_sources)
        return info
    dropped = sorted({*c.remove, *(d.doc_id for d in c.documents)})
    old_units = store.unit_ids(corpus, dropped) if dropped else []
    old_docs = {u.doc_id for u in store.get_units(corpus, old_units).values()} if old_units else set()
    old_chunks = sum(len(v) for v in store.units_chunks(corpus, old_units, Filters()).values()) if old_units else 0
    old_refs = store.references_from(corpus, sorted({*old_units, *c.ref_sources}), unresolved=True)
    old_resolved = sum(r.resolved for r in old_refs)
    info = prev.model_copy(update={
        "version": uuid.uuid4().hex, "created_at": utcnow(), "source": prev.source or source,
        "documents": prev.documents - len(old_docs) + len(c.documents),
        "units": prev.units - len(old_units) + len(c.units),
        "chunks": prev.chunks - old_chunks + len(c.chunks),
        "references": prev.references - old_resolved + resolved,
        "unresolved": prev.unresolved - (len(old_refs) - old_resolved) + len(c.references) - resolved,
        "embedder": model[0], "dim": model[1]})
    store.replace_documents(info, c.documents, c.units, c.chunks, c.vectors, c.references,
                            remove=c.remove, ref_sources=c.ref_sources)
    return info


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
    if chunking == "structural":
        chunks = name_cited_containers(parsed.units, chunks, refs)

    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(done, len(chunks))

    vectors = embedder.embed([c.embed_text for c in chunks], progress=tick)
    info = write(store, embedder, Change(documents, parsed.units, chunks, vectors, refs), corpus=corpus, prev=None,
                 full=True, adapter=adapter, source=source, chunking=chunking)
    log.info("ingested %s: %d units, %d chunks, %d references (%d unresolved, %d self dropped) in %.1fs",
             corpus, info.units, info.chunks, info.references, info.unresolved, dropped_self,
             time.perf_counter() - t0)
    return info
