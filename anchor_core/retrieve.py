"""Question → ranked evidence: named units, BM25 ∥ kNN fused, then reference hops.

1. **Named units.** References the question writes ("Annex III", "Section 4.4 of RFC 7233") are
   read with the corpus's own grammar (:mod:`anchor_core.named`) and their units fetched first,
   each in a slot of its own and marked ``Hit.named``; one that leads nowhere is a note.
2. **Fusion.** BM25 and dense candidates are fused by score (min-max normalised BM25 and cosine,
   :func:`anchor_core.fusion.combine`) or, optionally, by reciprocal rank; at most one hit per unit part.
3. **Hops** follow the explicit references written inside the shown hits (only those whose text
   lies inside the hit chunk: the chunk of Article 6(2) leads to Annex III, not every reference
   anywhere in Article 6), best hits first, forward and backward. In the target unit, the chunk of
   the referenced part is taken, or, for a whole-unit reference, the chunk most similar to the
   question. A followed chunk scores from its parent's evidence (see :func:`hop`) and replaces the
   last direct hit only when it outscores it, and only while its parent is shown: a question that
   needs no reference gets the direct hits of hops off, every "followed from" names a shown hit,
   and the context stays ``k``.
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, field_validator

from anchor_core import definitions
from anchor_core.embeddings import Embedder
from anchor_core.errors import EmptyStore, QueryError, StoreError
from anchor_core.fusion import combine, rrf
from anchor_core.models import Chunk, Filters, Hit, PathStep, Reference, Retrieval, StepKind
from anchor_core.named import describe_unresolved, named_references
from anchor_core.stores.base import Store
from anchor_core.text import query_terms, words

_BOUNDS = {"hops": (0, 3), "known_power": (0, 4)}


class RetrievalSettings(BaseModel):
    k: int = 5
    hops: int = 1
    mode: Literal["hybrid", "bm25", "dense"] = "hybrid"
    candidates: int = Field(50, description="candidates taken from each signal before fusion")
    fusion: Literal["score", "rrf"] = Field(
        "score", description="hybrid fusion: 'score' combines min-max normalised BM25 scores and cosines "
        "(fusion.combine), 'rrf' is reciprocal rank fusion; eval/results/retrieval.md compares them")
    bm25_share: float = Field(0.4, description="BM25's share in the 'score' fusion (cosine has the rest); "
                              "chosen by leave-one-set-out over the dev sets")
    known_power: float = Field(1.0, description="the BM25 share is scaled by (share of the question's search terms "
                               "the corpus uses) ** known_power: a word the corpus never writes gives BM25 nothing "
                               "to match, so dense carries more of a lay-worded question; 0 turns it off. Chosen by "
                               "leave-one-set-out over the dev sets (eval/results/retrieval-cv-known.md)")
    rrf_k: int = 60
    bm25_weight: float = Field(1.0, description="weight of the BM25 ranking in the 'rrf' fusion (dense has 1.0)")
    hop_decay: float = Field(1.0, description="a followed chunk's share of its parent's score at best; chosen "
                             "by leave-one-set-out over the dev sets (eval/results/retrieval-cv.md)")
    hop_floor: float = Field(0.25, description="share of that which needs no fit to the question (the rest "
                             "scales with the target's closeness to the question relative to its parent's)")
    hop_slots: int | None = Field(None, description="most followed chunks shown; default k // 2, at least 1")
    hop_per_parent: int | None = Field(None, description="most followed chunks shown from one hit (None: no limit)")
    named: bool = Field(True, description="fetch the units that references written in the question name")
    named_slots: int | None = Field(None, description="most named units fetched; default (k + 1) // 2")
    backward: bool = Field(True, description="also follow references into the hits (who cites them)")
    backward_weight: float = Field(0.8, description="extra decay for a backward step")
    same_unit_weight: float = Field(0.5, description="extra decay for a reference to another part of the same unit")
    through_parts: bool = Field(True, description="a reference to another part of the same unit also follows that "
                                                  "part's own references (one hop, scored as a direct citation)")
    diversify: bool = Field(True, description="at most one direct hit per unit part")
    per_unit: int | None = Field(2, description="at most this many direct hits per unit (None: no limit); "
                                 "chosen by leave-one-set-out over the dev sets")
    held_back_hops: bool = Field(True, description="a passage of a shown unit that the per-unit limit held back "
                                 "may still lead a hop; when what it cites earns a slot, it is shown beside it")
    include_recitals: bool = False
    groups: list[str] | None = None
    documents: list[str] | None = None

    @field_validator("k", "candidates", "rrf_k")
    @classmethod
    def _positive(cls, v: int, info) -> int:
        if v <= 0:
            raise ValueError(f"{info.field_name} must be greater than 0. Currently, the {info.field_name} is {v}")
        return v

    @field_validator("per_unit", "hop_slots", "named_slots", "hop_per_parent")
    @classmethod
    def _positive_or_none(cls, v: int | None, info) -> int | None:
        if v is not None and v < 0:
            raise ValueError(f"{info.field_name} must be 0 or more. Currently, the {info.field_name} is {v}")
        if info.field_name in ("per_unit", "hop_per_parent") and v == 0:
            raise ValueError(f"{info.field_name} must be greater than 0 (or None for no limit). Currently, the "
                             f"{info.field_name} is 0")
        return v

    @field_validator("hops", "known_power")
    @classmethod
    def _bounded(cls, v: float, info) -> float:
        lo, hi = _BOUNDS[info.field_name]
        if not lo <= v <= hi:
            raise ValueError(f"{info.field_name} must be between {lo} and {hi}. Currently, the {info.field_name} "
                             f"is {v}")
        return v

    @field_validator("hop_decay")
    @classmethod
    def _decay(cls, v: float) -> float:
        if not 0 < v <= 1:
            raise ValueError(f"hop_decay must be in (0, 1]. Currently, the hop_decay is {v}")
        return v

    @field_validator("hop_floor", "bm25_share")
    @classmethod
    def _share(cls, v: float, info) -> float:
        if not 0 <= v <= 1:
            raise ValueError(f"{info.field_name} must be in [0, 1]. Currently, the {info.field_name} is {v}")
        return v

    @property
    def slots(self) -> int:
        if self.hops == 0:
            return 0
        return min(self.k, self.hop_slots if self.hop_slots is not None else max(1, self.k // 2))

    @property
    def named_cap(self) -> int:
        return min(self.k, self.named_slots if self.named_slots is not None else (self.k + 1) // 2)

    @property
    def filters(self) -> Filters:
        return Filters(groups=self.groups, documents=self.documents,
                       exclude_kinds=[] if self.include_recitals else ["recital"])


def hit_of(c: Chunk, score: float, *, heading: str = "") -> Hit:
    """A direct hit on chunk ``c`` (for a chunk a stage other than ranking chose)."""
    return _hit(c, score, [], heading)


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
    bm_scored: list[tuple[str, float]] = []
    bm25_rank: dict[str, int] = {}
    dense_rank: dict[str, int] = {}
    # A store that can run both searches in one round trip (Elasticsearch's _msearch) does so;
    # the fusion below stays the same.
    both = getattr(store, "search_hybrid", None) if s.mode == "hybrid" and qvec is not None else None
    if both is not None:
        t = time.perf_counter()
        bm_hits, dense_hits = both(corpus, terms, qvec, s.candidates, filters)
        bm_scored = list(bm_hits)
        timings["bm25+dense"] = (time.perf_counter() - t) * 1000
        rankings = [[cid for cid, _ in bm_hits], [cid for cid, _ in dense_hits]]
        bm25_rank = {cid: i + 1 for i, cid in enumerate(rankings[0])}
        dense_rank = {cid: i + 1 for i, cid in enumerate(rankings[1])}
    if s.mode in ("hybrid", "bm25") and both is None:
        t = time.perf_counter()
        bm_scored = store.search_bm25(corpus, terms, s.candidates, filters)
        ids = [cid for cid, _ in bm_scored]
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
    n_fused = s.k * 3  # the hits after the k-th are what a named or followed unit displaces
    # Elasticsearch with ANCHOR_ES_SERVER_RRF=true (licensed clusters only) fuses on the server;
    # the per-signal ranks above still feed the trace. Equal weights there, as rrf_k's default.
    server = getattr(store, "search_fused", None) if both is not None and getattr(store, "server_rrf", False) \
        else None
    if server is not None:
        fused = server(corpus, terms, qvec, n_fused, filters, rank_constant=s.rrf_k, window=s.candidates)
    elif s.fusion == "score" and len(rankings) == 2 and qvec is not None:
        # Exact cosines for every candidate, the lexical-only ones included (one vector fetch).
        union = list(dict.fromkeys([*rankings[0], *rankings[1]]))
        cosines = dict(zip(union, (store.chunk_vectors(corpus, union) @ qvec).tolist())) if union else {}
        share = s.bm25_share
        if s.known_power and bm_scored:
            t_known = time.perf_counter()
            share *= known_share(store, corpus, terms, filters) ** s.known_power
            timings["known"] = (time.perf_counter() - t_known) * 1000
        fused = combine(bm_scored, cosines, share)
    else:
        fused = rrf(rankings, k=s.rrf_k, weights=weights)
    direct: list[Hit] = []
    seen_parts: set[tuple[str, str | None]] = set()
    per_unit: dict[str, int] = {}
    held: list[Hit] = []  # passages the per-unit limit held back, best first
    # Chunks are fetched a window at a time: the per-part and per-unit limits skip some, and the
    # pool must still hold n_fused hits for named and followed units to displace.
    for w in range(0, len(fused), n_fused):
        if len(direct) >= n_fused:
            break
        window = fused[w:w + n_fused]
        chunks = store.get_chunks(corpus, [cid for cid, _ in window])
        for cid, score in window:
            c = chunks.get(cid)
            if c is None or (s.diversify and (c.unit_id, c.part) in seen_parts):
                continue  # a second slice of the same paragraph adds little: show another provision
            if s.per_unit is not None and per_unit.get(c.unit_id, 0) >= s.per_unit:
                if s.held_back_hops and len(held) < n_fused:
                    seen_parts.add((c.unit_id, c.part))
                    held.append(_hit(c, score, [], bm25_rank=bm25_rank.get(cid), dense_rank=dense_rank.get(cid)))
                continue  # a fifth paragraph of one article crowds out the annex it points to
            seen_parts.add((c.unit_id, c.part))
            per_unit[c.unit_id] = per_unit.get(c.unit_id, 0) + 1
            direct.append(_hit(c, score, [], bm25_rank=bm25_rank.get(cid), dense_rank=dense_rank.get(cid)))
    timings["fuse"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    notes: list[str] = []
    named = named_hits(question, direct, qvec=qvec, store=store, corpus=corpus, settings=s, notes=notes)
    timings["named"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    named_parts = {(h.unit_id, h.part) for h in named}
    pool = [h for h in direct if (h.unit_id, h.part) not in named_parts]
    shown = named + pool[: s.k - len(named)]
    shown_units = {h.unit_id for h in shown}
    held = [h for h in held if h.unit_id in shown_units and (h.unit_id, h.part) not in named_parts]
    followed = hop(shown, question=question, qvec=qvec, store=store, corpus=corpus, settings=s, held=held)
    timings["hop"] = (time.perf_counter() - t) * 1000

    hits = assemble(named, pool, followed, k=s.k, max_followed=s.slots, per_parent=s.hop_per_parent, held=held)
    names = document_names(store, corpus, {h.doc_id for h in hits}) if hits else {}
    for i, h in enumerate(hits, start=1):
        h.rank = i
        h.document = names.get(h.doc_id, h.doc_id)
    timings["total"] = (time.perf_counter() - t_all) * 1000
    return Retrieval(question=question, corpus=corpus, hits=hits, notes=notes,
                     timings_ms={k: round(v, 2) for k, v in timings.items()},
                     settings=s.model_dump(exclude_none=True))


def known_share(store: Store, corpus: str, terms: list[str], filters: Filters) -> float:
    """The share of ``terms`` that the corpus (what ``filters`` let through) writes at least once.

    BM25 can only match the words a corpus uses: for "Do chatbots have to tell users they are talking to
    a machine?" the AI Act writes "users" and "machine" but never "chatbots", "tell" or "talking", so the
    lexical list is ranked on two generic words while the dense signal read the whole question.
    """
    if not terms:
        return 1.0
    known = store.known_terms(corpus, terms, filters)
    return sum(t in known for t in terms) / len(terms)


def document_names(store: Store, corpus: str, doc_ids: set[str] | None = None) -> dict[str, str]:
    """How hits name their document: the uploaded file name, else the document title (of the
    ``doc_ids`` only, when given)."""
    return {d.doc_id: d.meta.get("file") or d.title or d.doc_id
            for d in store.documents(corpus, None if doc_ids is None else sorted(doc_ids))}


def assemble(named: list[Hit], direct: list[Hit], followed: list[Hit], *, k: int, max_followed: int,
             per_parent: int | None = None, held: list[Hit] | None = None) -> list[Hit]:
    """``k`` hits: the named ones, then direct and followed hits by score. A followed hit is taken
    only when it outscores the direct hit it would displace (so a question that needs no reference
    gets the direct hits of hops off), only once its parent is shown (so "followed from" always
    names a shown source), at most ``max_followed`` of them (``per_parent`` from one hit), each unit
    part once. A followed hit whose parent is one of the ``held`` passages (held back by the
    per-unit limit) is taken with that parent, when both fit and both outscore the direct hit they
    would displace."""
    hits = list(named[:k])
    parts = {(h.unit_id, h.part) for h in hits}
    held_at = {(h.unit_id, h.part): h for h in held or []}
    n_followed = 0
    from_parent: dict[tuple[str, str | None], int] = {}
    queue = sorted([*direct, *followed], key=lambda h: -h.score)  # stable: direct first on a tie
    for h in queue:
        if len(hits) == k:
            break
        if (h.unit_id, h.part) in parts:
            continue
        if h.via:
            parent = (h.via[0].unit_id, h.via[0].part)
            lead = held_at.get(parent) if parent not in parts else None
            if n_followed == max_followed or (parent not in parts and lead is None) or (
                    per_parent is not None and from_parent.get(parent, 0) >= per_parent):
                continue
            beaten = next((d for d in direct if (d.unit_id, d.part) not in parts), None)
            if lead is not None:
                if len(hits) > k - 2 or (beaten is not None and lead.score < beaten.score):
                    continue
                lead.why = (f"shown past the limit of passages per unit, because it cites {h.label}, which "
                            f"earned a slot (score {lead.score:.4f})")
                hits.append(lead)
                parts.add(parent)
            n_followed += 1
            from_parent[parent] = from_parent.get(parent, 0) + 1
            if beaten is not None:
                h.why += f"; outscored the next direct hit, {beaten.label} ({beaten.score:.4f})"
        hits.append(h)
        parts.add((h.unit_id, h.part))
    shown = {h.label for h in hits}
    for h in hits:
        h.cited_by = [c for c in h.cited_by if c in shown and c != h.label]
    order = {id(h): i for i, h in enumerate(hits)}
    # Named hits first, in the order the question names them; the rest by score.
    return hits[: len(named)] + sorted(hits[len(named):], key=lambda h: (-h.score, order[id(h)]))


def named_hits(question: str, direct: list[Hit], *, qvec: np.ndarray | None, store: Store, corpus: str,
               settings: RetrievalSettings, notes: list[str]) -> list[Hit]:
    """The units the question names (``Annex III``), fetched directly: the referenced part's chunk
    or, for a whole unit, its chunk closest to the question. A named unit that is also a direct
    hit keeps that hit (and its ranks). Each takes a slot of its own, up to ``named_slots``."""
    if not settings.named:
        return []
    refs = named_references(question, store=store, corpus=corpus)
    for r in refs:
        if not r.resolved:
            notes.append(describe_unresolved(r))
    refs = [r for r in refs if r.resolved and r.dst_unit]
    defined = definitions.asked(question, store=store, corpus=corpus)
    if not refs and not defined:
        return []
    targets = sorted({r.dst_unit for r in refs if r.dst_unit} | {d.unit_id for *_, ds in defined for d in ds})
    chunks = store.units_chunks(corpus, targets, settings.filters)
    units = store.get_units(corpus, targets)
    rel = _relevance(question, qvec, [c for cs in chunks.values() for c in cs], store, corpus)
    # a term the question asks about ("count as a 'deployer'") fetches the sentence that defines it,
    # like a unit it names; of several definitions (one per rulebook), the one closest to the question
    spans: dict[int, tuple[int, int]] = {}
    for raw, at, ds in defined:
        def fit(d: definitions.Definition) -> float:
            return max((rel.get(c.chunk_id, 0.0) for c in chunks.get(d.unit_id, [])
                        if _overlaps(c, (d.start, d.end))), default=-1.0)

        d = max(ds, key=fit)
        ref = Reference(src_unit="question", start=at, end=at + len(raw), raw=definitions.fetched_label(d.term),
                        dst_unit=d.unit_id, resolved=True)
        spans[id(ref)] = (d.start, d.end)
        refs.append(ref)
    refs = _share_named_slots(sorted(refs, key=lambda r: r.start), chunks, rel, settings.named_cap, notes)
    top = direct[0].score if direct else 1.0
    out: list[Hit] = []
    for r in refs:
        assert r.dst_unit is not None
        cands = chunks.get(r.dst_unit, [])
        span = spans.get(id(r)) or _part_span(units, r.dst_unit, r.dst_part)
        cands = [c for c in cands if _overlaps(c, span)] or cands
        if not cands:
            notes.append(f"'{r.raw}' in the question names {r.target_label}, which this search may not show")
            continue
        chunk = max(cands, key=lambda c: rel.get(c.chunk_id, 0.0))
        if any((h.unit_id, h.part) == (chunk.unit_id, chunk.part) for h in out):
            continue
        same = next((h for h in direct if h.chunk_id == chunk.chunk_id), None)
        h = same.model_copy() if same is not None else _hit(chunk, top, [])
        h.score = max(h.score, top)
        h.named = r.raw
        out.append(h)
    return out


def _share_named_slots(refs: list[Reference], chunks: dict[str, list[Chunk]], rel: dict[str, float], cap: int,
                       notes: list[str]) -> list[Reference]:
    """The named references that get a slot, at most ``cap``. Each reference as written (a unit,
    or a container such as "Section 2 of Chapter III" with its members) gets one slot in turn, in
    the order the question writes them; a container's members come closest to the question first
    (the question names the container, not which of its articles), and further slots go round
    again to the containers' next members."""
    groups: dict[tuple[str, int], list[Reference]] = {}
    for r in refs:
        groups.setdefault((r.container or r.dst_unit or r.raw, r.start), []).append(r)

    def fit(r: Reference) -> float:
        return max((rel.get(c.chunk_id, 0.0) for c in chunks.get(r.dst_unit or "", [])), default=0.0)

    queues = [sorted(g, key=fit, reverse=True) if g[0].container else g for g in groups.values()]
    chosen: list[Reference] = []
    depth = 0
    while len(chosen) < cap and any(depth < len(q) for q in queues):
        chosen += [q[depth] for q in queues if depth < len(q)][: cap - len(chosen)]
        depth += 1
    if len(chosen) < len(refs):
        left = len(refs) - len(chosen)
        written = ", ".join(dict.fromkeys(f"'{r.raw}'" for r in refs))
        notes.append(f"the question names {len(refs)} units ({written}); {len(chosen)} are fetched directly "
                     f"(in the order written, a container's members closest to the question first), "
                     f"{left} left to the search")
    return chosen


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


def hop(shown: list[Hit], *, question: str, qvec: np.ndarray | None, store: Store, corpus: str,
        settings: RetrievalSettings, held: list[Hit] | None = None) -> list[Hit]:
    """Follow references out of (and, with ``backward``, into) the shown hits for ``settings.hops``
    hops, best parents first; best path per chunk, best first.

    A followed chunk scores ``parent score × decay × (floor + (1 - floor) × fit)``: the parent's
    evidence (its score, and the fact that it cites the target) carries most of it, and ``fit``,
    the target's closeness to the question relative to its parent's, the rest (relative to the
    closest shown hit's instead scored lower on the dev sets: eval/results/retrieval-cv-hops2.md). A target scored by
    its own closeness alone loses whenever it is a list (annexes, schedules, tables), which reads
    nothing like a question. A reference that leads to a shown hit is recorded in that hit's
    ``cited_by`` (the hit that cites it) instead.

    ``held`` are passages of shown units that the per-unit limit held back; they lead first-hop
    moves to other units (not to their own unit, and they credit no shown hit), ranked among the
    shown hits by score, and ``assemble`` shows one only beside a hit it leads to."""
    if settings.hops == 0 or not shown:
        return []
    filters = settings.filters
    # A followed chunk of a paragraph that is already shown adds nothing: credit the shown hit instead.
    taken = {(h.unit_id, h.part): h for h in shown}
    best: dict[str, Hit] = {}
    unit_chunks: dict[str, list[Chunk]] = {}
    units: dict = {}
    rank = {id(h): i for i, h in enumerate(shown, start=1)}
    leads = {id(h) for h in held or []}
    frontier = sorted([*shown, *(held or [])], key=lambda h: -h.score)  # stable: shown first on a tie
    parent_fit: dict[str, float] = {}
    for depth in range(1, settings.hops + 1):
        sources = sorted({h.unit_id for h in frontier})
        out_refs = store.references_from(corpus, sources)
        in_refs = store.references_to(corpus, sources) if settings.backward else []
        wanted = {r.dst_unit for r in out_refs} | {r.src_unit for r in in_refs} | set(sources)
        missing = sorted(u for u in wanted if u and u not in units)
        units.update(store.get_units(corpus, missing))
        unit_chunks.update(store.units_chunks(corpus, missing, filters))

        # (parent, target unit, span inside it or None, direction, the reference as written, and the
        # reference to another part of the parent's own unit it was read through, if any)
        moves: list[tuple[Hit, str, tuple[int, int] | None, StepKind, str, str]] = []
        for parent in frontier:  # best parents first: their moves win ties below
            for r in out_refs:
                if r.dst_unit is None or r.src_unit != parent.unit_id or not (
                        r.in_title or parent.start <= r.start < parent.end):
                    continue  # an unresolved reference leads nowhere
                span = _part_span(units, r.dst_unit, r.dst_part)
                moves.append((parent, r.dst_unit, span, "cites", r.raw, ""))
                if settings.through_parts and r.dst_unit == parent.unit_id and span is not None:
                    # "for the objectives referred to in paragraph 1, point (h)": the paragraph it points
                    # to is part of what it says, and so are that paragraph's own references (Annex II)
                    for r2 in out_refs:
                        if (r2.src_unit == parent.unit_id and span[0] <= r2.start < span[1] and not r2.in_title
                                and r2.dst_unit is not None and r2.dst_unit != parent.unit_id
                                and not parent.start <= r2.start < parent.end):
                            moves.append((parent, r2.dst_unit, _part_span(units, r2.dst_unit, r2.dst_part), "cites",
                                          r2.raw, r.raw))
            for r in in_refs:
                if r.dst_unit != parent.unit_id or r.src_unit == parent.unit_id:
                    continue
                named_part = _part_span(units, parent.unit_id, r.dst_part)
                if named_part is not None and not (parent.start < named_part[1] and named_part[0] < parent.end):
                    continue  # it cites another part of this unit, not the one we hold
                moves.append((parent, r.src_unit, None if r.in_title else (r.start, r.end), "cited_by", r.raw, ""))

        pool = {c.chunk_id: c for _, u, _, _, _, _ in moves for c in unit_chunks.get(u, [])}
        missing_fit = [h for h in frontier if h.chunk_id not in parent_fit]
        parent_fit.update(_relevance(question, qvec, [_as_chunk(h) for h in missing_fit], store, corpus))
        rel = _relevance(question, qvec, list(pool.values()), store, corpus)
        next_frontier: dict[str, Hit] = {}
        for parent, target, span, kind, raw, through in moves:
            cands = [c for c in unit_chunks.get(target, []) if _overlaps(c, span)] or unit_chunks.get(target, [])
            if not cands:
                continue
            if id(parent) in leads and target == parent.unit_id:
                continue  # a held-back passage does not bring in more of its own unit
            chunk = max(cands, key=lambda c: rel.get(c.chunk_id, 0.0))
            decay = settings.hop_decay if kind == "cites" else settings.hop_decay * settings.backward_weight
            if target == parent.unit_id:
                decay *= settings.same_unit_weight  # a sibling paragraph is a weaker lead than another provision
            fit = min(1.0, rel.get(chunk.chunk_id, 0.0) / max(parent_fit.get(parent.chunk_id, 0.0), 1e-6))
            score = parent.score * decay * (settings.hop_floor + (1 - settings.hop_floor) * fit)
            seen = taken.get((chunk.unit_id, chunk.part))
            if seen is not None:
                if seen is parent or id(parent) in leads:
                    continue
                # Forward: the parent cites the shown hit. Backward: the shown hit cites the parent.
                cited, citing = (seen, parent) if kind == "cites" else (parent, seen)
                cited.cited_by = sorted({*cited.cited_by, citing.label})
                if score > seen.score and not seen.named:
                    # A shown hit that a better hit leads to keeps that evidence: no followed chunk
                    # with a weaker lead may displace it.
                    seen.why = (f"kept up by {parent.label}, which {'cites it' if kind == 'cites' else 'it cites'} "
                                f"as '{raw}': {seen.score:.4f} → {score:.4f}")
                    seen.score = score
                continue
            prev = best.get(chunk.chunk_id)
            if prev is None or score > prev.score:
                step = PathStep(unit_id=parent.unit_id, part=parent.part, to_unit=chunk.unit_id, to_part=chunk.part,
                                kind=kind, raw=raw, depth=depth, through=through)
                how = "cites it" if kind == "cites" else "is cited by it"
                if through:
                    how = f"cites it through '{through}' (another part of its own unit, which writes it)"
                where = (f"shown hit #{rank[id(parent)]}" if id(parent) in rank else
                         "a passage of a shown unit, past its limit of passages" if id(parent) in leads else
                         "a followed hit")
                why = (f"{parent.label} ({where}) {how} as '{raw}'; score {parent.score:.4f} × decay {decay:.2f} × "
                       f"({settings.hop_floor:.2f} + {1 - settings.hop_floor:.2f} × fit {fit:.2f}) = {score:.4f}")
                h = _hit(chunk, score, [step, *parent.via])
                h.why = why
                best[chunk.chunk_id] = next_frontier[chunk.chunk_id] = h
        frontier = sorted(next_frontier.values(), key=lambda h: -h.score)[: settings.k]
        if not frontier:
            break
    return sorted(best.values(), key=lambda h: -h.score)


def _part_span(units: dict, unit_id: str, part_label: str | None) -> tuple[int, int] | None:
    """The offsets of ``part_label`` in the unit (``None``: the whole unit, or a part it lacks)."""
    if not part_label or unit_id not in units:
        return None
    part = next((p for p in units[unit_id].parts if p.label == part_label), None)
    return (part.start, part.end) if part else None


def _as_chunk(h: Hit) -> Chunk:
    return Chunk(chunk_id=h.chunk_id, unit_id=h.unit_id, doc_id=h.doc_id, kind=h.kind, part=h.part, start=h.start,
                 end=h.end, text=h.text, lead=h.heading)
