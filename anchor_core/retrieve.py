"""Question → ranked evidence: BM25 ∥ kNN fused by RRF, then reference hops.

Reference hops follow the explicit references written inside the top hits (only those whose
text lies inside the hit chunk: the chunk of Article 6(2) leads to Annex III, not every
reference anywhere in Article 6). In the target unit, the chunk of the referenced part is
taken, or, for a whole-unit reference, the chunk most similar to the question. A followed
chunk scores ``parent score × decay × relevance`` and competes for reserved slots, so the
final sort cannot silently push it out: with hops on, the output changes.
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, field_validator

from anchor_core.embeddings import Embedder
from anchor_core.errors import EmptyStore, QueryError, StoreError
from anchor_core.fusion import rrf
from anchor_core.models import Chunk, Filters, Hit, PathStep, Retrieval, StepKind
from anchor_core.stores.base import Store
from anchor_core.text import query_terms, words


class RetrievalSettings(BaseModel):
    k: int = 5
    hops: int = 1
    mode: Literal["hybrid", "bm25", "dense"] = "hybrid"
    candidates: int = Field(50, description="candidates taken from each signal before fusion")
    rrf_k: int = 60
    bm25_weight: float = Field(1.0, description="weight of the BM25 ranking in the fusion (dense has 1.0)")
    hop_decay: float = 0.5
    hop_slots: int | None = Field(None, description="slots reserved for followed chunks; default k // 2, at least 1")
    backward: bool = Field(True, description="also follow references into the hits (who cites them)")
    backward_weight: float = Field(0.8, description="extra decay for a backward step")
    same_unit_weight: float = Field(0.5, description="extra decay for a reference to another part of the same unit")
    diversify: bool = Field(True, description="at most one direct hit per unit part")
    include_recitals: bool = False
    groups: list[str] | None = None
    documents: list[str] | None = None

    @field_validator("k", "candidates", "rrf_k")
    @classmethod
    def _positive(cls, v: int, info) -> int:
        if v <= 0:
            raise ValueError(f"{info.field_name} must be greater than 0. Currently, the {info.field_name} is {v}")
        return v

    @field_validator("hops")
    @classmethod
    def _hops(cls, v: int) -> int:
        if not 0 <= v <= 3:
            raise ValueError(f"hops must be between 0 and 3. Currently, the hops is {v}")
        return v

    @field_validator("hop_decay")
    @classmethod
    def _decay(cls, v: float) -> float:
        if not 0 < v <= 1:
            raise ValueError(f"hop_decay must be in (0, 1]. Currently, the hop_decay is {v}")
        return v

    @property
    def slots(self) -> int:
        if self.hops == 0:
            return 0
        return min(self.k, self.hop_slots if self.hop_slots is not None else max(1, self.k // 2))

    @property
    def filters(self) -> Filters:
        return Filters(groups=self.groups, documents=self.documents,
                       exclude_kinds=[] if self.include_recitals else ["recital"])


def _hit(c: Chunk, score: float, via: list[PathStep], heading: str = "", **ranks) -> Hit:
    return Hit(chunk_id=c.chunk_id, unit_id=c.unit_id, doc_id=c.doc_id, kind=c.kind, part=c.part,
               heading=heading or c.lead, start=c.start, end=c.end, text=c.text, score=score, via=via,
               page=c.page, **ranks)


def retrieve(question: str, *, store: Store, embedder: Embedder | None, corpus: str,
             settings: RetrievalSettings | None = None) -> Retrieval:
    """Rank chunks of ``corpus`` for ``question``; see the module docstring for the hops."""
    s = settings or RetrievalSettings()
    timings: dict[str, float] = {}
    t_all = time.perf_counter()
    terms = query_terms(question)
    if not terms:
        raise QueryError(f"the question {question!r} has no searchable words (only stop-words or punctuation); "
                         "ask with the terms you are looking for.")
    info = store.corpus(corpus)
    if info.chunks == 0:
        raise EmptyStore(f"corpus {corpus!r} holds no chunks; ingest documents into it first.")
    filters = s.filters

    qvec: np.ndarray | None = None
    if s.mode != "bm25":
        if embedder is None:
            raise StoreError("dense retrieval needs an embedder; pass one or use mode='bm25'.")
        if embedder.model_id != info.embedder:
            raise StoreError(f"corpus {corpus!r} was embedded with {info.embedder} but the current embedder is "
                             f"{embedder.model_id}; re-ingest it or set ANCHOR_EMBEDDER to match.")
        t = time.perf_counter()
        qvec = embedder.embed([question])[0]
        timings["embed"] = (time.perf_counter() - t) * 1000

    rankings: list[list[str]] = []
    bm25_rank: dict[str, int] = {}
    dense_rank: dict[str, int] = {}
    # A store that can run both searches in one round trip (Elasticsearch's _msearch) does so;
    # the fusion below stays the same.
    both = getattr(store, "search_hybrid", None) if s.mode == "hybrid" and qvec is not None else None
    if both is not None:
        t = time.perf_counter()
        bm_hits, dense_hits = both(corpus, terms, qvec, s.candidates, filters)
        timings["bm25+dense"] = (time.perf_counter() - t) * 1000
        rankings = [[cid for cid, _ in bm_hits], [cid for cid, _ in dense_hits]]
        bm25_rank = {cid: i + 1 for i, cid in enumerate(rankings[0])}
        dense_rank = {cid: i + 1 for i, cid in enumerate(rankings[1])}
    if s.mode in ("hybrid", "bm25") and both is None:
        t = time.perf_counter()
        ids = [cid for cid, _ in store.search_bm25(corpus, terms, s.candidates, filters)]
        timings["bm25"] = (time.perf_counter() - t) * 1000
        rankings.append(ids)
        bm25_rank = {cid: i + 1 for i, cid in enumerate(ids)}
    if qvec is not None and both is None:
        t = time.perf_counter()
        ids = [cid for cid, _ in store.search_vector(corpus, qvec, s.candidates, filters)]
        timings["dense"] = (time.perf_counter() - t) * 1000
        rankings.append(ids)
        dense_rank = {cid: i + 1 for i, cid in enumerate(ids)}

    t = time.perf_counter()
    weights = [s.bm25_weight, 1.0] if len(rankings) == 2 else None
    n_fused = s.k * 3 if s.diversify else s.k
    # Elasticsearch with ANCHOR_ES_SERVER_RRF=true (licensed clusters only) fuses on the server;
    # the per-signal ranks above still feed the trace. Equal weights there, as rrf_k's default.
    server = getattr(store, "search_fused", None) if both is not None and getattr(store, "server_rrf", False) \
        else None
    if server is not None:
        fused = server(corpus, terms, qvec, n_fused, filters, rank_constant=s.rrf_k, window=s.candidates)
    else:
        fused = rrf(rankings, k=s.rrf_k, weights=weights)[:n_fused]
    chunks = store.get_chunks(corpus, [cid for cid, _ in fused])
    direct: list[Hit] = []
    seen_parts: set[tuple[str, str | None]] = set()
    for cid, score in fused:
        c = chunks.get(cid)
        if c is None or (s.diversify and (c.unit_id, c.part) in seen_parts):
            continue  # a second slice of the same paragraph adds little: show another provision
        seen_parts.add((c.unit_id, c.part))
        direct.append(_hit(c, score, [], bm25_rank=bm25_rank.get(cid), dense_rank=dense_rank.get(cid)))
        if len(direct) == s.k:
            break
    timings["fuse"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    followed = hop(direct, question=question, qvec=qvec, store=store, corpus=corpus, settings=s)
    timings["hop"] = (time.perf_counter() - t) * 1000

    hits = assemble(direct, followed, k=s.k, slots=s.slots)
    hits.sort(key=lambda h: -h.score)
    names = document_names(store, corpus, {h.doc_id for h in hits}) if hits else {}
    for i, h in enumerate(hits, start=1):
        h.rank = i
        h.document = names.get(h.doc_id, h.doc_id)
    timings["total"] = (time.perf_counter() - t_all) * 1000
    return Retrieval(question=question, corpus=corpus, hits=hits,
                     timings_ms={k: round(v, 2) for k, v in timings.items()},
                     settings=s.model_dump(exclude_none=True))


def document_names(store: Store, corpus: str, doc_ids: set[str] | None = None) -> dict[str, str]:
    """How hits name their document: the uploaded file name, else the document title (of the
    ``doc_ids`` only, when given)."""
    return {d.doc_id: d.meta.get("file") or d.title or d.doc_id
            for d in store.documents(corpus, None if doc_ids is None else sorted(doc_ids))}


def assemble(direct: list[Hit], followed: list[Hit], *, k: int, slots: int) -> list[Hit]:
    """Top direct hits plus up to ``slots`` followed ones, ``k`` in all, each unit part once."""
    used = min(slots, len(followed))
    kept = direct[: k - used]
    parts = {(h.unit_id, h.part) for h in kept}
    extra: list[Hit] = []
    for h in followed:
        if len(extra) == used:
            break
        if (h.unit_id, h.part) not in parts:
            extra.append(h)
            parts.add((h.unit_id, h.part))
    hits = kept + extra
    hits += [h for h in direct[k - used:] if (h.unit_id, h.part) not in parts][: k - len(hits)]
    return hits


def _relevance(question: str, qvec: np.ndarray | None, chunks: list[Chunk], store: Store, corpus: str
               ) -> dict[str, float]:
    """How well each candidate chunk fits the question: cosine with the question when there
    is a vector, else the share of question terms the chunk contains."""
    if not chunks:
        return {}
    if qvec is not None:
        vectors = store.chunk_vectors(corpus, [c.chunk_id for c in chunks])
        return {c.chunk_id: max(float(x), 0.0) for c, x in zip(chunks, vectors @ qvec)}
    terms = set(query_terms(question))
    return {c.chunk_id: len(terms & set(words(c.lead + " " + c.text))) / max(len(terms), 1) for c in chunks}


def _overlaps(c: Chunk, span: tuple[int, int] | None) -> bool:
    return span is None or (c.start < span[1] and span[0] < c.end)


def hop(direct: list[Hit], *, question: str, qvec: np.ndarray | None, store: Store, corpus: str,
        settings: RetrievalSettings) -> list[Hit]:
    """Follow references out of (and, with ``backward``, into) the hits for ``settings.hops``
    hops; best path per chunk, best first. A direct hit that a reference leads to again is not
    repeated; its ``cited_by`` records who cites it."""
    if settings.hops == 0 or not direct:
        return []
    filters = settings.filters
    # A followed chunk of a paragraph that is already shown adds nothing: credit the shown hit instead.
    taken = {(h.unit_id, h.part): h.chunk_id for h in direct[: settings.k - settings.slots]}
    cited_by: dict[str, list[str]] = {}
    best: dict[str, Hit] = {}
    unit_chunks: dict[str, list[Chunk]] = {}
    units: dict = {}
    frontier = direct
    for _ in range(settings.hops):
        sources = sorted({h.unit_id for h in frontier})
        out_refs = store.references_from(corpus, sources)
        in_refs = store.references_to(corpus, sources) if settings.backward else []
        wanted = {r.dst_unit for r in out_refs} | {r.src_unit for r in in_refs} | set(sources)
        missing = sorted(u for u in wanted if u and u not in units)
        units.update(store.get_units(corpus, missing))
        unit_chunks.update(store.units_chunks(corpus, missing, filters))

        # (parent, target unit, span inside it or None, direction, the reference as written)
        moves: list[tuple[Hit, str, tuple[int, int] | None, StepKind, str]] = []
        for parent in frontier:
            for r in out_refs:
                if r.dst_unit is None or r.src_unit != parent.unit_id or not (
                        r.in_title or parent.start <= r.start < parent.end):
                    continue  # an unresolved reference leads nowhere
                part = next((p for p in units[r.dst_unit].parts if p.label == r.dst_part), None) \
                    if r.dst_part and r.dst_unit in units else None
                moves.append((parent, r.dst_unit, (part.start, part.end) if part else None, "cites", r.raw))
            for r in in_refs:
                if r.dst_unit != parent.unit_id or r.src_unit == parent.unit_id:
                    continue
                if r.dst_part and parent.unit_id in units:
                    part = next((p for p in units[parent.unit_id].parts if p.label == r.dst_part), None)
                    if part is not None and not (parent.start < part.end and part.start < parent.end):
                        continue  # it cites another part of this unit, not the one we hold
                moves.append((parent, r.src_unit, None if r.in_title else (r.start, r.end), "cited_by", r.raw))

        pool = {c.chunk_id: c for _, u, _, _, _ in moves for c in unit_chunks.get(u, [])}
        rel = _relevance(question, qvec, list(pool.values()), store, corpus)
        next_frontier: dict[str, Hit] = {}
        for parent, target, span, kind, raw in moves:
            cands = [c for c in unit_chunks.get(target, []) if _overlaps(c, span)] or unit_chunks.get(target, [])
            if not cands:
                continue
            chunk = max(cands, key=lambda c: rel.get(c.chunk_id, 0.0))
            shown = taken.get((chunk.unit_id, chunk.part))
            if shown is not None:
                cited_by.setdefault(shown, []).append(parent.label)
                continue
            decay = settings.hop_decay if kind == "cites" else settings.hop_decay * settings.backward_weight
            if target == parent.unit_id:
                decay *= settings.same_unit_weight  # a sibling paragraph is a weaker lead than another provision
            score = parent.score * decay * max(rel.get(chunk.chunk_id, 0.0), 0.05)
            prev = best.get(chunk.chunk_id)
            if prev is None or score > prev.score:
                step = PathStep(unit_id=parent.unit_id, part=parent.part, to_unit=chunk.unit_id, to_part=chunk.part,
                                kind=kind, raw=raw, depth=len(parent.via) + 1)
                h = _hit(chunk, score, [step, *parent.via])
                best[chunk.chunk_id] = next_frontier[chunk.chunk_id] = h
        frontier = sorted(next_frontier.values(), key=lambda h: -h.score)[: settings.k]
        if not frontier:
            break
    for h in direct:
        h.cited_by = sorted(set(cited_by.get(h.chunk_id, [])) - {h.label})
    return sorted(best.values(), key=lambda h: -h.score)
