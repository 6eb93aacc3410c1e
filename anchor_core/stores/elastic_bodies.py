"""Elasticsearch request bodies as pure functions: the index layout in one place.

Nothing here talks to a server, so every body is checked by plain unit tests
(``tests/stores/test_elastic_bodies.py``) and the store (:mod:`anchor_core.stores.elastic`)
only sends what these functions build.

Layout: one physical index per corpus *version* (``{prefix}-data-{corpus}-{version}``) holding
every record of the corpus, told apart by a ``type`` keyword: ``chunk`` (text, BM25 body,
vector, denormalised access groups), ``unit``, ``doc``, ``ref`` and one ``corpus`` record (the
:class:`~anchor_core.models.CorpusInfo`). An alias ``{prefix}-corpus-{corpus}`` points at the
serving version; replacing a corpus fills a new index and moves the alias in one atomic
``_aliases`` call, so readers see the old corpus or the new one, never a mix.

Dense vectors (Elastic docs, "Dense vector field type"): ``dense_vector``, cosine, and
``index_options.type`` pinned to ``int8_hnsw`` because the server's default for 384+ dims
moved to ``bbq_hnsw`` in 9.1. kNN queries carry ``rescore_vector`` so the returned similarity
comes from the float vectors, not the int8 copies.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from anchor_core.models import Chunk, CorpusInfo, Document, Filters, Reference, Unit
from anchor_core.stores.base import check_content

SCHEMA = 1
"""Layout version written into every corpus record and the mapping's ``_meta``. Bump it when a
field changes meaning; a corpus with another schema is refused with advice to re-ingest."""

DEFAULT_DIM = 384
MAX_RESULT_WINDOW = 10_000
"""Elasticsearch's default ``index.max_result_window`` (and the cap on ``num_candidates``)."""

_SAFE = re.compile(r"[a-z0-9_.]")


def encode_name(corpus: str) -> str:
    """A corpus name as an index-name fragment: lower-case letters, digits, ``_`` and ``.`` are
    kept, every other character becomes ``+xx`` (its UTF-8 bytes in hex). Distinct names never
    collide (``Hr`` → ``+48r``, ``hr`` → ``hr``) and the fragment never contains ``-``, the
    separator, so one corpus's wildcard cannot reach another's indices."""
    if not corpus:
        raise ValueError("corpus name must not be empty")
    return "".join(ch if _SAFE.fullmatch(ch) else "".join(f"+{b:02x}" for b in ch.encode()) for ch in corpus)


def alias_name(prefix: str, corpus: str) -> str:
    return f"{prefix}-corpus-{encode_name(corpus)}"


def index_name(prefix: str, corpus: str, version: str) -> str:
    name = f"{prefix}-data-{encode_name(corpus)}-{version.lower()}"
    if len(name.encode()) > 255:
        raise ValueError(f"corpus name {corpus!r} is too long for an Elasticsearch index name (255 bytes)")
    return name


def alias_pattern(prefix: str) -> str:
    """Matches every corpus alias of this prefix and no data index."""
    return f"{prefix}-corpus-*"


def index_pattern(prefix: str, corpus: str) -> str:
    return f"{prefix}-data-{encode_name(corpus)}-*"


def doc_id(kind: str, key: str) -> str:
    """``_id`` of a record; long keys are hashed (Elasticsearch caps ``_id`` at 512 bytes)."""
    raw = f"{kind}:{key}"
    if len(raw.encode()) > 400:
        raw = f"{kind}#{hashlib.sha1(key.encode()).hexdigest()}"
    return raw


# -- index creation --------------------------------------------------------------------------

def index_body(*, dim: int = DEFAULT_DIM, shards: int = 1, replicas: int = 1, english: bool = False,
               keep_source_vectors: bool = False, m: int = 16, ef_construction: int = 100) -> dict[str, Any]:
    """Settings and mappings of a corpus index.

    Args:
        dim: vector dimensions (384 for all-MiniLM-L6-v2).
        shards, replicas: see the README's sizing section; replicas are applied after the bulk load.
        english: add an ``english`` stemmed subfield to the BM25 body (off by default: it has not
            been measured against a live cluster yet).
        keep_source_vectors: set ``index.mapping.exclude_source_vectors: false`` (Elasticsearch
            9.2+ drops vectors from ``_source`` by default; Anchor reads them back for hops and export).
    """
    if dim <= 0:
        raise ValueError(f"dim must be greater than 0. Currently, the dim is {dim}")
    if shards <= 0 or replicas < 0:
        raise ValueError(f"shards must be > 0 and replicas >= 0. Currently shards={shards}, replicas={replicas}")
    body_field: dict[str, Any] = {"type": "text", "analyzer": "standard"}
    if english:
        body_field["fields"] = {"english": {"type": "text", "analyzer": "english"}}
    kw = {"type": "keyword"}
    stored_only_text = {"type": "text", "index": False}
    settings: dict[str, Any] = {
        "number_of_shards": shards,
        # Replicas and refresh are off while the bulk load runs (faster, nothing reads the new
        # index yet); :func:`serving_settings` turns them on before the alias moves.
        "number_of_replicas": 0,
        "refresh_interval": "-1",
    }
    if keep_source_vectors:
        settings["mapping"] = {"exclude_source_vectors": False}
    return {
        "settings": {"index": settings},
        "mappings": {
            "dynamic": "strict",
            "_meta": {"anchor_schema": SCHEMA, "replicas": replicas},
            "properties": {
                "type": kw, "corpus": kw, "seq": {"type": "long"},
                # chunks
                "chunk_id": kw, "unit_id": kw, "doc_id": kw, "kind": kw, "part": kw,
                "start": {"type": "integer"}, "end": {"type": "integer"},
                "page": {"type": "integer"}, "page_end": {"type": "integer"},
                "body": body_field,
                "text": stored_only_text, "lead": stored_only_text,
                "vector": {"type": "dense_vector", "dims": dim, "index": True, "similarity": "cosine",
                           "index_options": {"type": "int8_hnsw", "m": m, "ef_construction": ef_construction}},
                "groups": kw, "public": {"type": "boolean"},
                # references
                "src_unit": kw, "src_part": kw, "dst_unit": kw, "dst_part": kw, "container": kw,
                "resolved": {"type": "boolean"}, "in_title": {"type": "boolean"}, "raw": stored_only_text,
                # units, documents, the corpus record: the pydantic record as JSON, kept in _source only
                "data": {"type": "object", "enabled": False},
                "name": kw, "schema": {"type": "integer"}, "seq_end": {"type": "long"},
            },
        },
    }


def serving_settings(replicas: int) -> dict[str, Any]:
    """Settings applied after the bulk load, before the alias swap."""
    return {"index": {"number_of_replicas": replicas, "refresh_interval": None}}


# -- documents -------------------------------------------------------------------------------

def _access(doc: Document | None) -> dict[str, Any]:
    groups = sorted(doc.groups) if doc is not None else []
    return {"groups": groups, "public": not groups}


def chunk_source(corpus: str, c: Chunk, vector: np.ndarray | None, doc: Document | None, seq: int) -> dict[str, Any]:
    src: dict[str, Any] = {
        "type": "chunk", "corpus": corpus, "seq": seq, "chunk_id": c.chunk_id, "unit_id": c.unit_id,
        "doc_id": c.doc_id, "kind": c.kind, "part": c.part, "start": c.start, "end": c.end,
        "page": c.page, "page_end": c.page_end, "body": f"{c.lead}\n{c.text}", "text": c.text, "lead": c.lead,
        **_access(doc),
    }
    if vector is not None:
        v = np.asarray(vector, dtype=np.float32).reshape(-1)
        # A zero vector has no cosine; Elasticsearch rejects it. Such a chunk is left out of kNN
        # (SQLite scores it 0, so it could only ever rank last there too).
        if np.any(v):
            src["vector"] = [float(x) for x in v]
    return src


def chunk_from_source(src: dict[str, Any]) -> Chunk:
    return Chunk(chunk_id=src["chunk_id"], unit_id=src["unit_id"], doc_id=src["doc_id"], kind=src["kind"],
                 part=src.get("part"), start=src["start"], end=src["end"], text=src["text"], lead=src.get("lead", ""),
                 page=src.get("page"), page_end=src.get("page_end"))


def reference_source(corpus: str, r: Reference, seq: int) -> dict[str, Any]:
    return {"type": "ref", "corpus": corpus, "seq": seq, "src_unit": r.src_unit, "src_part": r.src_part,
            "start": r.start, "end": r.end, "raw": r.raw, "dst_unit": r.dst_unit, "dst_part": r.dst_part,
            "resolved": r.resolved, "in_title": r.in_title, "container": r.container}


def reference_from_source(src: dict[str, Any]) -> Reference:
    return Reference(src_unit=src["src_unit"], src_part=src.get("src_part"), start=src["start"], end=src["end"],
                     raw=src["raw"], dst_unit=src.get("dst_unit"), dst_part=src.get("dst_part"),
                     resolved=src["resolved"], in_title=src.get("in_title", False),
                     container=src.get("container"))


def corpus_source(info: CorpusInfo, seq_end: int) -> dict[str, Any]:
    return {"type": "corpus", "corpus": info.name, "name": info.name, "schema": SCHEMA, "seq_end": seq_end,
            "data": info.model_dump(mode="json")}


def bulk_actions(index: str, info: CorpusInfo, documents: Sequence[Document], units: Sequence[Unit],
                 chunks: Sequence[Chunk], vectors: np.ndarray, references: Sequence[Reference],
                 *, seq_start: int = 0) -> Iterator[dict[str, Any]]:
    """Bulk-helper actions (``_op_type: create``: a duplicate id in one load is an error, not an
    overwrite) for a corpus's records, then the corpus record last. ``seq`` numbers the records
    so they can be paged with ``search_after`` in load order."""
    check_content(chunks, vectors)
    name = info.name
    by_doc = {d.doc_id: d for d in documents}
    seq = seq_start

    def action(kind: str, key: str, source: dict[str, Any]) -> dict[str, Any]:
        return {"_op_type": "create", "_index": index, "_id": doc_id(kind, key), "_source": source}

    for d in documents:
        yield action("doc", d.doc_id, {"type": "doc", "corpus": name, "seq": seq, "doc_id": d.doc_id,
                                       "data": d.model_dump(mode="json"), **_access(d)})
        seq += 1
    for u in units:
        # A unit carries its document's groups like a chunk does, so a cluster's document-level
        # security (README, "Access groups on Elasticsearch") can hide units as well as chunks.
        yield action("unit", u.unit_id, {"type": "unit", "corpus": name, "seq": seq, "unit_id": u.unit_id,
                                         "doc_id": u.doc_id, "kind": u.kind, "data": u.model_dump(mode="json"),
                                         **_access(by_doc.get(u.doc_id))})
        seq += 1
    for c, v in zip(chunks, vectors):
        yield action("chunk", c.chunk_id, chunk_source(name, c, v, by_doc.get(c.doc_id), seq))
        seq += 1
    for r in references:
        # References have no natural key; their load order is unique within one index.
        yield action("ref", str(seq), reference_source(name, r, seq))
        seq += 1
    yield {"_op_type": "index", "_index": index, "_id": "corpus", "_source": corpus_source(info, seq)}


# -- queries ---------------------------------------------------------------------------------

def filter_clauses(corpus: str, filters: Filters, *, record: str = "chunk") -> list[dict[str, Any]]:
    """Filter clauses shared by the BM25 and the kNN query, so both rank only what the caller
    may see (permission filtering inside each query, before ranking)."""
    clauses: list[dict[str, Any]] = [{"term": {"type": record}}, {"term": {"corpus": corpus}}]
    if filters.documents is not None:
        clauses.append({"terms": {"doc_id": list(filters.documents)}})
    if filters.groups is not None:
        allowed: list[dict[str, Any]] = [{"term": {"public": True}}]
        if filters.groups:
            allowed.append({"terms": {"groups": list(filters.groups)}})
        clauses.append({"bool": {"should": allowed, "minimum_should_match": 1}})
    if filters.exclude_kinds:
        clauses.append({"bool": {"must_not": [{"terms": {"kind": list(filters.exclude_kinds)}}]}})
    return clauses


def bm25_body(corpus: str, terms: Sequence[str], k: int, filters: Filters, *, english: bool = False
              ) -> dict[str, Any]:
    """A ``match`` on the body (any term may match, like FTS5's ``OR``), filtered, ids only."""
    text = " ".join(terms)
    match: dict[str, Any] = {"match": {"body": {"query": text, "operator": "or"}}}
    if english:
        match = {"multi_match": {"query": text, "fields": ["body", "body.english"], "type": "most_fields"}}
    return {"size": k, "_source": ["chunk_id"], "track_total_hits": False,
            "query": {"bool": {"must": [match], "filter": filter_clauses(corpus, filters)}},
            "sort": ["_score", {"seq": "asc"}]}


def num_candidates_for(k: int, num_candidates: int) -> int:
    """``num_candidates`` is per shard, at least ``k`` and at most 10,000 (Elastic docs, kNN search)."""
    return max(k, min(num_candidates, MAX_RESULT_WINDOW))


def knn_section(corpus: str, vector: np.ndarray, k: int, filters: Filters, *, num_candidates: int,
                oversample: float = 2.0) -> dict[str, Any]:
    knn: dict[str, Any] = {
        "field": "vector", "query_vector": [float(x) for x in np.asarray(vector, dtype=np.float32).reshape(-1)],
        "k": k, "num_candidates": num_candidates_for(k, num_candidates),
        "filter": filter_clauses(corpus, filters),
    }
    if oversample > 1:
        knn["rescore_vector"] = {"oversample": oversample}
    return knn


def knn_body(corpus: str, vector: np.ndarray, k: int, filters: Filters, *, num_candidates: int,
             oversample: float = 2.0) -> dict[str, Any]:
    """Top-level ``knn`` search; the filter is applied during the graph search, so ``k`` hits
    are found among the chunks the caller may see."""
    return {"size": k, "_source": ["chunk_id"], "track_total_hits": False,
            "knn": knn_section(corpus, vector, k, filters, num_candidates=num_candidates, oversample=oversample)}


def msearch_body(alias: str, corpus: str, terms: Sequence[str], vector: np.ndarray, k: int, filters: Filters, *,
                 num_candidates: int, oversample: float = 2.0, english: bool = False) -> list[dict[str, Any]]:
    """``_msearch`` lines: header, BM25 body, header, kNN body (one round trip, fused by the core)."""
    return [{"index": alias}, bm25_body(corpus, terms, k, filters, english=english),
            {"index": alias}, knn_body(corpus, vector, k, filters, num_candidates=num_candidates,
                                       oversample=oversample)]


def rrf_body(corpus: str, terms: Sequence[str], vector: np.ndarray, k: int, filters: Filters, *,
             num_candidates: int, rank_constant: int = 60, window: int = 50, english: bool = False
             ) -> dict[str, Any]:
    """The server-side ``rrf`` retriever over the same two queries (needs a licence that has it;
    optional, off by default)."""
    standard = bm25_body(corpus, terms, window, filters, english=english)["query"]
    knn = knn_section(corpus, vector, window, filters, num_candidates=num_candidates)
    knn.pop("rescore_vector", None)
    return {"size": k, "_source": ["chunk_id"],
            "retriever": {"rrf": {"retrievers": [{"standard": {"query": standard}}, {"knn": knn}],
                                  "rank_constant": rank_constant, "rank_window_size": max(window, k)}}}


def terms_body(field: str, values: Sequence[str], *, record: str, corpus: str, size: int,
               filters: Filters | None = None, extra: Sequence[dict[str, Any]] = (),
               source: Any = True) -> dict[str, Any]:
    """A ``terms`` lookup (fetch by ids, reference hops), sorted in load order."""
    clauses = filter_clauses(corpus, filters or Filters(), record=record) + [{"terms": {field: list(values)}}]
    return {"size": size, "_source": source, "track_total_hits": False,
            "query": {"bool": {"filter": [*clauses, *extra]}}, "sort": [{"seq": "asc"}]}


def alias_swap_actions(alias: str, new_index: str, old_indices: Sequence[str]) -> dict[str, Any]:
    """One atomic ``_aliases`` call. ``must_exist`` makes it fail (and change nothing) when
    another process moved the alias since we looked, instead of leaving it on two indices."""
    actions: list[dict[str, Any]] = [{"remove": {"index": old, "alias": alias, "must_exist": True}}
                                     for old in old_indices]
    actions.append({"add": {"index": new_index, "alias": alias}})
    return {"actions": actions}


def copy_body(source_index: str, dest_index: str, corpus: str, drop_docs: Sequence[str],
              drop_ref_sources: Sequence[str] = ()) -> dict[str, Any]:
    """``_reindex`` body for :meth:`replace_documents`: every doc/unit/chunk record of the corpus
    except those of ``drop_docs``, and every reference except those written in
    ``drop_ref_sources`` (units of dropped documents, units whose references were re-resolved);
    the new references and the corpus record are written anew."""
    records = {"bool": {"filter": [{"terms": {"type": ["doc", "unit", "chunk"]}}],
                        "must_not": [{"terms": {"doc_id": list(drop_docs)}}]}}
    refs = {"bool": {"filter": [{"term": {"type": "ref"}}],
                     "must_not": [{"terms": {"src_unit": list(drop_ref_sources)}}]}}
    return {"source": {"index": source_index,
                       "query": {"bool": {"filter": [{"term": {"corpus": corpus}}],
                                          "should": [records, refs], "minimum_should_match": 1}}},
            "dest": {"index": dest_index, "op_type": "create"}}


def word_body(corpus: str, word: str, within_units: Sequence[str] | None) -> dict[str, Any]:
    """Chunks whose body holds ``word``, its tokens in that order as a phrase, as SQLite's full-text
    phrase does ("deployer means", "OAuth 2.1"; unit ids only), optionally among ``within_units``."""
    clauses = filter_clauses(corpus, Filters())
    if within_units is not None:
        clauses.append({"terms": {"unit_id": list(within_units)}})
    return {"_source": ["unit_id"], "track_total_hits": False,
            "query": {"bool": {"must": [{"match_phrase": {"body": {"query": word}}}],
                               "filter": clauses}}}
