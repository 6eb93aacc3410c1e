"""Elasticsearch 9.x store: the same :class:`~anchor_core.stores.base.Store` contract as SQLite.

- Request bodies come from :mod:`anchor_core.stores.elastic_bodies` (the layout lives there).
- Replacing a corpus fills a new index with the bulk helper, refreshes it, checks the count,
  then moves the corpus alias in one atomic ``_aliases`` call; any failure deletes the new
  index and leaves the alias (the serving corpus) where it was.
- Hybrid search sends the BM25 ``match`` and the ``knn`` query in one ``_msearch``; fusion
  stays in the core (:func:`anchor_core.fusion.rrf`). The server's ``rrf`` retriever is used
  only when ``server_rrf`` is set, after the licence check passes.
- Every client error becomes a :class:`~anchor_core.errors.StoreError` whose message says
  what to do; credentials never appear in messages or logs.

The ``elasticsearch`` package is imported here only, so the CLI on SQLite never loads it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from anchor_core.config import ElasticSettings, redact_url
from anchor_core.errors import ConfigError, CorpusNotFound, StoreError
from anchor_core.models import Chunk, CorpusInfo, Document, Filters, Reference, Unit
from anchor_core.stores import elastic_bodies as B
from anchor_core.stores.base import check_content

log = logging.getLogger(__name__)

PAGE = 1000
RRF_LICENCES = ("enterprise", "trial")
"""Licence types whose clusters run the ``rrf`` retriever (Elastic subscriptions page)."""

__all__ = ["ElasticStore", "make_client", "redact_url"]


def make_client(settings: ElasticSettings, node_class: Any = None):
    """An ``Elasticsearch`` client from the settings (TLS verification on unless turned off)."""
    try:
        from elasticsearch import Elasticsearch
    except ImportError as err:  # the optional `elasticsearch` extra
        raise ConfigError("ANCHOR_STORE=elasticsearch needs the client: install the elasticsearch extra "
                          "(pip install -e '.[elasticsearch]', or pip install 'elasticsearch>=9,<10')") from err
    if not settings.url:
        raise ConfigError("ANCHOR_STORE=elasticsearch needs ANCHOR_ES_URL, e.g. http://localhost:9200 "
                          "(`docker compose up -d elasticsearch` starts one)")
    kw: dict[str, Any] = {"request_timeout": settings.timeout, "max_retries": settings.retries,
                          "retry_on_timeout": True}
    if settings.api_key:
        kw["api_key"] = settings.api_key
    elif settings.username:
        kw["basic_auth"] = (settings.username, settings.password or "")
    if settings.url.startswith("https"):
        kw["verify_certs"] = settings.verify_certs
        if settings.ca_certs:
            kw["ca_certs"] = str(settings.ca_certs)
        if not settings.verify_certs:
            log.warning("TLS certificate verification is OFF for %s (ANCHOR_ES_VERIFY_CERTS=false)",
                        redact_url(settings.url))
    if node_class is not None:
        kw["node_class"] = node_class
    return Elasticsearch(settings.url, **kw)


class ElasticStore:
    """Corpora in an Elasticsearch 9.x cluster. Construct with :meth:`from_settings`, or pass
    a client (tests pass one backed by an in-process fake node)."""

    def __init__(self, client, *, url: str = "", prefix: str = "anchor", shards: int = 1, replicas: int = 1,
                 num_candidates: int = 200, oversample: float = 2.0, english: bool = False,
                 server_rrf: bool = False, bulk_chunk: int = 500) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.]*", prefix):
            raise ConfigError(f"ANCHOR_ES_PREFIX must be lower-case letters, digits, '_' or '.', got {prefix!r}")
        if num_candidates <= 0:
            raise ConfigError(f"num_candidates must be greater than 0. Currently, the num_candidates is "
                              f"{num_candidates}")
        self.client = client
        self.url = redact_url(url) or "the configured cluster"
        self.prefix = prefix
        self.shards, self.replicas = shards, replicas
        self.num_candidates, self.oversample, self.english = num_candidates, oversample, english
        self.server_rrf = server_rrf
        self.bulk_chunk = bulk_chunk
        self.version = self.health_check()

    @classmethod
    def from_settings(cls, settings: ElasticSettings, node_class: Any = None) -> ElasticStore:
        return cls(make_client(settings, node_class), url=settings.url or "", prefix=settings.prefix,
                   shards=settings.shards, replicas=settings.replicas, num_candidates=settings.num_candidates,
                   english=settings.english, server_rrf=settings.server_rrf)

    # -- errors ---------------------------------------------------------------------------

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Turn client exceptions into messages a user can act on."""
        import elastic_transport
        from elasticsearch import exceptions as es

        try:
            yield
        except (StoreError, CorpusNotFound):
            raise
        except elastic_transport.TlsError as err:
            raise StoreError(f"TLS to Elasticsearch at {self.url} failed while trying to {what}: {err}. Point "
                             "ANCHOR_ES_CA_CERTS at the cluster's CA certificate (verification stays on).") from err
        except (elastic_transport.ConnectionError, elastic_transport.ConnectionTimeout) as err:
            raise StoreError(f"cannot reach Elasticsearch at {self.url} to {what} ({type(err).__name__}). Start it "
                             "(`docker compose up -d elasticsearch`) or fix ANCHOR_ES_URL; ANCHOR_ES_TIMEOUT and "
                             "ANCHOR_ES_RETRIES tune the patience.") from err
        except es.UnsupportedProductError as err:
            raise StoreError(f"the server at {self.url} did not identify as Elasticsearch; Anchor needs "
                             "Elasticsearch 9.x.") from err
        except es.AuthenticationException as err:
            raise StoreError(f"Elasticsearch at {self.url} rejected the credentials (401) when trying to {what}. "
                             "Set ANCHOR_ES_API_KEY, or ANCHOR_ES_USERNAME and ANCHOR_ES_PASSWORD.") from err
        except es.AuthorizationException as err:
            reason = _reason(err)
            if "license" in reason.lower():
                raise StoreError(f"the cluster's licence does not allow this request ({reason}). Unset "
                                 "ANCHOR_ES_SERVER_RRF: the core's RRF gives the same ranking.") from err
            raise StoreError(f"the Elasticsearch user lacks a privilege to {what} (403: {reason}). It needs "
                             f"'manage', 'read' and 'write' on indices '{self.prefix}-*'.") from err
        except es.ApiError as err:
            reason = _reason(err)
            if "media_type_header_exception" in reason or "compatible-with" in reason:
                raise StoreError(_version_message(self.url, "8.x or older (it rejected the 9.x client's "
                                                            "compatible-with=9 headers)")) from err
            if "invalid_alias_name" in reason or "an index or data stream exists with the same name" in reason:
                raise StoreError(f"cannot {what}: {reason}. An index with the alias's name exists (left by an "
                                 "older Anchor or created by hand); delete it, or set ANCHOR_ES_PREFIX to use "
                                 "other names.") from err
            raise StoreError(f"Elasticsearch refused to {what} ({err.meta.status}: {reason})") from err

    # -- health ---------------------------------------------------------------------------

    def health_check(self) -> tuple[int, int]:
        """Fail early, with advice, when the cluster is down, not 9.x, refuses the credentials,
        or lacks the licence for a feature the settings ask for."""
        with self._errors("check the cluster"):
            info = self.client.info()
        number = str(info.get("version", {}).get("number", "?"))
        m = re.match(r"(\d+)\.(\d+)", number)
        if not m or int(m.group(1)) != 9:
            raise StoreError(_version_message(self.url, number))
        version = (int(m.group(1)), int(m.group(2)))
        if self.server_rrf:
            with self._errors("read the licence"):
                lic = self.client.license.get()
            kind = str(lic.get("license", {}).get("type", "unknown"))
            status = str(lic.get("license", {}).get("status", "active"))
            if kind not in RRF_LICENCES or status != "active":
                needs = " or ".join(RRF_LICENCES)
                raise StoreError(f"ANCHOR_ES_SERVER_RRF=true needs the server-side rrf retriever, which this "
                                 f"cluster's '{kind}' licence ({status}) does not include (it needs {needs}). "
                                 "Unset ANCHOR_ES_SERVER_RRF: Anchor fuses BM25 and kNN itself by default.")
        log.info("Elasticsearch %s at %s", number, self.url)
        return version

    # -- small helpers --------------------------------------------------------------------

    def _alias(self, corpus: str) -> str:
        return B.alias_name(self.prefix, corpus)

    def _alias_indices(self, alias: str) -> list[str]:
        from elasticsearch import NotFoundError

        try:
            with self._errors("look up the corpus alias"):
                resp = self.client.indices.get_alias(name=alias)
        except StoreError as err:
            if isinstance(err.__cause__, NotFoundError):
                return []
            raise
        return sorted(resp.body.keys())

    def _search(self, index: str, body: dict[str, Any], corpus: str | None = None, what: str = "search") -> dict:
        from elasticsearch import NotFoundError

        try:
            with self._errors(what):
                return self.client.search(index=index, body=body).body
        except StoreError as err:
            if corpus is not None and isinstance(err.__cause__, NotFoundError):
                self.corpus(corpus)  # raises CorpusNotFound naming what exists
            raise

    def _scan(self, corpus: str, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Every hit of ``body`` in load order, paged with ``search_after`` on ``seq``."""
        body = {**body, "size": PAGE, "sort": [{"seq": "asc"}]}
        while True:
            hits = self._search(self._alias(corpus), body, corpus)["hits"]["hits"]
            yield from hits
            if len(hits) < PAGE:
                return
            body["search_after"] = hits[-1]["sort"]

    def _refresh(self, index: str) -> None:
        with self._errors("refresh the new index"):
            self.client.indices.refresh(index=index)

    def _delete_indices(self, indices: Sequence[str]) -> None:
        for idx in indices:
            try:
                with self._errors(f"delete index {idx}"):
                    self.client.indices.delete(index=idx, ignore_unavailable=True)
            except StoreError as err:
                log.warning("could not delete %s (%s); `anchor delete` or a later ingest removes it", idx, err)

    # -- writing --------------------------------------------------------------------------

    def _create_index(self, index: str, dim: int) -> None:
        body = B.index_body(dim=dim or B.DEFAULT_DIM, shards=self.shards, replicas=self.replicas,
                            english=self.english, keep_source_vectors=self.version >= (9, 2))
        with self._errors(f"create index {index}"):
            self.client.indices.create(index=index, settings=body["settings"], mappings=body["mappings"])

    def _bulk(self, actions) -> int:
        from elasticsearch import helpers

        errors: list[str] = []
        n_ok = 0
        with self._errors("bulk-load the corpus"):
            for ok, item in helpers.streaming_bulk(self.client, actions, chunk_size=self.bulk_chunk,
                                                   raise_on_error=False, max_retries=3, initial_backoff=1):
                if ok:
                    n_ok += 1
                    continue
                op = next(iter(item.values()))
                err = op.get("error", {})
                errors.append(f"{op.get('_id')}: {err.get('type', '?')}: {err.get('reason', err)}")
                if len(errors) >= 20:
                    break
        if errors:
            raise StoreError(f"{len(errors)}{'+' if len(errors) >= 20 else ''} records failed to index, so the "
                             f"corpus was not replaced (the previous one still serves). First: "
                             + "; ".join(errors[:3]))
        return n_ok

    def _publish(self, alias: str, new: str, old: list[str], chunks: int) -> None:
        """Make ``new`` searchable and swap the alias onto it, or raise (caller cleans up)."""
        self._refresh(new)
        with self._errors("check the new index"):
            count = self.client.count(index=new, query={"term": {"type": "chunk"}})["count"]
        if count != chunks:
            raise StoreError(f"the new index holds {count} chunks, expected {chunks}; the corpus was not replaced.")
        with self._errors("apply serving settings"):
            self.client.indices.put_settings(index=new, settings=B.serving_settings(self.replicas))
        try:
            with self._errors("swap the corpus alias"):
                self.client.indices.update_aliases(body=B.alias_swap_actions(alias, new, old))
        except StoreError as err:
            if any(m in str(err) for m in ("aliases_not_found", "index_not_found", "missing")):
                raise StoreError("another process replaced this corpus while it was being loaded; nothing was "
                                 "changed by this one. Run the ingest again.") from err
            raise

    def replace_corpus(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                       chunks: list[Chunk], vectors: np.ndarray, references: list[Reference]) -> None:
        check_content(chunks, vectors)
        alias = self._alias(info.name)
        new = B.index_name(self.prefix, info.name, info.version)
        old = self._alias_indices(alias)
        if new in old:
            raise ValueError(f"corpus version {info.version!r} is already serving; a replace needs a new version")
        self._create_index(new, info.dim)
        try:
            self._bulk(B.bulk_actions(new, info, documents, units, chunks, np.asarray(vectors, np.float32),
                                      references))
            self._publish(alias, new, old, len(chunks))
        except BaseException:
            self._delete_indices([new])
            raise
        self._delete_indices(old)

    def replace_documents(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                          chunks: list[Chunk], vectors: np.ndarray, references: list[Reference],
                          remove: Sequence[str] = (), ref_sources: Sequence[str] = ()) -> None:
        check_content(chunks, vectors, documents, units)
        alias = self._alias(info.name)
        old = self._alias_indices(alias)
        if not old:
            return self.replace_corpus(info, documents, units, chunks, vectors, references)
        previous = self._corpus_source(info.name)
        new = B.index_name(self.prefix, info.name, info.version)
        if new in old:
            raise ValueError(f"corpus version {info.version!r} is already serving; a replace needs a new version")
        drop = sorted({*remove, *(d.doc_id for d in documents)})
        # References written in the dropped documents' units or in re-resolved units are not copied.
        sources = sorted({*ref_sources, *(self.unit_ids(info.name, drop) if drop else [])})
        self._create_index(new, info.dim or previous["data"].get("dim", 0))
        try:
            with self._errors("copy the unchanged documents"):
                resp = self.client.reindex(body=B.copy_body(old[0], new, info.name, drop, sources),
                                           wait_for_completion=True, refresh=True)
            if resp.get("failures"):
                f = resp["failures"][0]
                raise StoreError(f"{len(resp['failures'])} records failed to copy, so the corpus was not changed. "
                                 f"First: {f.get('id')}: {f.get('cause', f)}")
            self._refresh(new)
            with self._errors("count the kept chunks"):
                kept = self.client.count(index=new, query={"term": {"type": "chunk"}})["count"]
            self._bulk(B.bulk_actions(new, info, documents, units, chunks, np.asarray(vectors, np.float32),
                                      references, seq_start=int(previous.get("seq_end", 0))))
            self._publish(alias, new, old, kept + len(chunks))
        except BaseException:
            self._delete_indices([new])
            raise
        self._delete_indices(old)

    def delete_corpus(self, name: str) -> None:
        self.corpus(name)
        alias = self._alias(name)
        with self._errors("list the corpus's indices"):
            found = self.client.indices.get_alias(index=B.index_pattern(self.prefix, name), allow_no_indices=True,
                                                  expand_wildcards="all").body
        # Serving indices first (the corpus disappears at once), then leftovers of killed ingests.
        serving = [i for i, v in found.items() if alias in v.get("aliases", {})]
        with self._errors("delete the corpus"):
            for idx in serving:
                self.client.indices.delete(index=idx)
        self._delete_indices(sorted(set(found) - set(serving)))

    # -- reading: corpora -----------------------------------------------------------------

    def _corpus_source(self, name: str) -> dict[str, Any]:
        from elasticsearch import NotFoundError

        body = {"size": 1, "query": {"bool": {"filter": [{"term": {"type": "corpus"}}, {"term": {"name": name}}]}}}
        try:
            hits = self._search(self._alias(name), body, what="read the corpus record")["hits"]["hits"]
        except StoreError as err:
            if not isinstance(err.__cause__, NotFoundError):
                raise
            hits = []
        if not hits:
            known = [c.name for c in self.corpora()]
            hint = f"stored corpora: {', '.join(known)}" if known else "the cluster holds no Anchor corpora"
            raise CorpusNotFound(f"no corpus named {name!r} in Elasticsearch at {self.url} ({hint}); ingest it "
                                 "first, e.g. `anchor ingest aiact`.")
        src = hits[0]["_source"]
        self._check_schema(src)
        return src

    def _check_schema(self, src: dict[str, Any]) -> None:
        if src.get("schema") != B.SCHEMA:
            raise StoreError(f"corpus {src.get('name')!r} was written by another version of Anchor (index layout "
                             f"{src.get('schema')}, this one reads {B.SCHEMA}); re-ingest it, or export it with the "
                             "Anchor that wrote it and `anchor import-corpus` the file.")

    def corpora(self) -> list[CorpusInfo]:
        body = {"size": B.MAX_RESULT_WINDOW, "query": {"term": {"type": "corpus"}}}
        with self._errors("list corpora"):
            hits = self.client.search(index=B.alias_pattern(self.prefix), body=body, allow_no_indices=True,
                                      ignore_unavailable=True)["hits"]["hits"]
        out = []
        for h in hits:
            self._check_schema(h["_source"])
            out.append(CorpusInfo.model_validate(h["_source"]["data"]))
        return sorted(out, key=lambda c: c.name)

    def corpus(self, name: str) -> CorpusInfo:
        return CorpusInfo.model_validate(self._corpus_source(name)["data"])

    # -- reading: search ------------------------------------------------------------------

    @staticmethod
    def _ids(resp: dict[str, Any]) -> list[tuple[str, float]]:
        return [(h["_source"]["chunk_id"], float(h["_score"])) for h in resp["hits"]["hits"]]

    def _vector_hits(self, resp: dict[str, Any]) -> list[tuple[str, float]]:
        # Elasticsearch scores cosine as (1 + cos) / 2; give back the cosine, as SQLite does.
        return [(cid, 2.0 * s - 1.0) for cid, s in self._ids(resp)]

    def _check_dim(self, corpus: str, vector: np.ndarray) -> np.ndarray:
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        dim = self.corpus(corpus).dim
        if dim and q.shape[0] != dim:
            raise StoreError(f"query vector has {q.shape[0]} dimensions but corpus {corpus!r} stores {dim}; "
                             "re-ingest it with the current embedding model.")
        return q

    def search_bm25(self, corpus: str, terms: list[str], k: int, filters: Filters) -> list[tuple[str, float]]:
        if not terms or k <= 0:
            return []
        body = B.bm25_body(corpus, terms, min(k, B.MAX_RESULT_WINDOW), filters, english=self.english)
        return self._ids(self._search(self._alias(corpus), body, corpus))

    def known_terms(self, corpus: str, terms: list[str], filters: Filters) -> set[str]:
        """One ``_msearch`` of a one-hit BM25 search per term."""
        todo = list(dict.fromkeys(t for t in terms if t.strip()))
        if not todo:
            return set()
        alias = self._alias(corpus)
        lines = [line for t in todo for line in ({"index": alias}, B.bm25_body(corpus, [t], 1, filters,
                                                                                english=self.english))]
        return {t for t, r in zip(todo, self._msearch(corpus, lines)) if self._ids(r)}

    def search_vector(self, corpus: str, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        if k <= 0:
            return []
        q = self._check_dim(corpus, vector)
        if not np.any(q):
            return []
        body = B.knn_body(corpus, q, min(k, B.MAX_RESULT_WINDOW), filters, num_candidates=self.num_candidates,
                          oversample=self.oversample)
        return self._vector_hits(self._search(self._alias(corpus), body, corpus))

    def _msearch(self, corpus: str, lines: list[dict]) -> list[dict]:
        """The responses of one ``_msearch`` over ``corpus``; an unknown corpus raises CorpusNotFound, any
        other failed search a StoreError."""
        from elasticsearch import NotFoundError

        try:
            with self._errors("search"):
                responses = self.client.msearch(searches=lines)["responses"]
        except StoreError as err:
            if isinstance(err.__cause__, NotFoundError):
                self.corpus(corpus)
            raise
        for r in responses:
            if "error" in r:
                if r.get("status") == 404:
                    self.corpus(corpus)
                raise StoreError(f"Elasticsearch could not run the search ({r.get('status')}: "
                                 f"{r['error'].get('reason', r['error'])})")
        return responses

    def search_hybrid(self, corpus: str, terms: list[str], vector: np.ndarray, k: int, filters: Filters
                      ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """BM25 and kNN candidates in one ``_msearch`` round trip: ``(bm25, vector)`` lists."""
        q = self._check_dim(corpus, vector)
        if k <= 0:
            return [], []
        k = min(k, B.MAX_RESULT_WINDOW)
        lines = B.msearch_body(self._alias(corpus), corpus, terms or [""], q, k, filters,
                               num_candidates=self.num_candidates, oversample=self.oversample, english=self.english)
        responses = self._msearch(corpus, lines)
        bm25 = self._ids(responses[0]) if terms else []
        dense = self._vector_hits(responses[1]) if np.any(q) else []
        return bm25, dense

    def search_fused(self, corpus: str, terms: list[str], vector: np.ndarray, k: int, filters: Filters, *,
                     rank_constant: int = 60, window: int = 50) -> list[tuple[str, float]]:
        """The server's ``rrf`` retriever (only with ``server_rrf``; the licence was checked at start)."""
        if not self.server_rrf:
            raise StoreError("server-side RRF is off; set ANCHOR_ES_SERVER_RRF=true (needs an Enterprise or trial "
                             "licence) or use the core's fusion.")
        q = self._check_dim(corpus, vector)
        body = B.rrf_body(corpus, terms, q, k, filters, num_candidates=self.num_candidates,
                          rank_constant=rank_constant, window=window, english=self.english)
        return self._ids(self._search(self._alias(corpus), body, corpus))

    # -- reading: records -----------------------------------------------------------------

    def _lookup(self, corpus: str, field: str, values: Sequence[str], *, record: str,
                filters: Filters | None = None, extra: Sequence[dict] = (), source: Any = True,
                ) -> Iterator[dict[str, Any]]:
        for i in range(0, len(values), PAGE):
            batch = list(values[i:i + PAGE])
            body = B.terms_body(field, batch, record=record, corpus=corpus, size=PAGE, filters=filters,
                                extra=extra, source=source)
            yield from self._scan(corpus, body)

    _CHUNK_SOURCE = {"excludes": ["vector", "body"]}

    def get_chunks(self, corpus: str, chunk_ids: list[str]) -> dict[str, Chunk]:
        hits = self._lookup(corpus, "chunk_id", chunk_ids, record="chunk", source=self._CHUNK_SOURCE)
        return {h["_source"]["chunk_id"]: B.chunk_from_source(h["_source"]) for h in hits}

    def unit_chunks(self, corpus: str, unit_id: str, filters: Filters) -> list[Chunk]:
        return self.units_chunks(corpus, [unit_id], filters)[unit_id]

    def units_chunks(self, corpus: str, unit_ids: list[str], filters: Filters) -> dict[str, list[Chunk]]:
        out: dict[str, list[Chunk]] = {u: [] for u in unit_ids}
        for h in self._lookup(corpus, "unit_id", unit_ids, record="chunk", filters=filters,
                              source=self._CHUNK_SOURCE):
            c = B.chunk_from_source(h["_source"])
            out[c.unit_id].append(c)
        for chunks in out.values():
            chunks.sort(key=lambda c: c.start)
        return out

    def get_units(self, corpus: str, unit_ids: list[str]) -> dict[str, Unit]:
        units = (Unit.model_validate(h["_source"]["data"])
                 for h in self._lookup(corpus, "unit_id", unit_ids, record="unit", source=["data"]))
        return {u.unit_id: u for u in units}

    def unit_ids(self, corpus: str, documents: list[str] | None = None) -> list[str]:
        clauses = B.filter_clauses(corpus, Filters(documents=documents), record="unit")
        body = {"_source": ["unit_id"], "query": {"bool": {"filter": clauses}}}
        return [h["_source"]["unit_id"] for h in self._scan(corpus, body)]

    def documents(self, corpus: str, doc_ids: Sequence[str] | None = None) -> list[Document]:
        if doc_ids is None:
            body = {"_source": ["data"],
                    "query": {"bool": {"filter": B.filter_clauses(corpus, Filters(), record="doc")}}}
            hits: Iterator[dict] = self._scan(corpus, body)
        else:
            hits = self._lookup(corpus, "doc_id", sorted(set(doc_ids)), record="doc", source=["data"])
        docs = [Document.model_validate(h["_source"]["data"]) for h in hits]
        return sorted(docs, key=lambda d: d.doc_id)

    def _refs(self, corpus: str, field: str | None, unit_ids: Sequence[str] | None, *,
              unresolved: bool = False) -> list[Reference]:
        if field is None:
            body = {"query": {"bool": {"filter": B.filter_clauses(corpus, Filters(), record="ref")}}}
            hits: Iterator[dict] = self._scan(corpus, body)
        else:
            if not unit_ids:
                return []
            extra = [] if unresolved else [{"term": {"resolved": True}}]
            hits = self._lookup(corpus, field, unit_ids, record="ref", extra=extra)
        refs = [B.reference_from_source(h["_source"]) for h in hits]
        return sorted(refs, key=lambda r: (r.src_unit, r.start)) if field else refs

    def references_from(self, corpus: str, unit_ids: list[str], *, unresolved: bool = False) -> list[Reference]:
        return self._refs(corpus, "src_unit", unit_ids, unresolved=unresolved)

    def references_to(self, corpus: str, unit_ids: list[str]) -> list[Reference]:
        return self._refs(corpus, "dst_unit", unit_ids)

    def references(self, corpus: str) -> list[Reference]:
        refs = self._refs(corpus, None, None)
        return sorted(refs, key=lambda r: (r.src_unit, r.start))

    def units_with_words(self, corpus: str, words: list[str]) -> list[str]:
        # One match per word over the chunk bodies, each narrowed to the units the previous words
        # left (longest word first: usually the rarest), so a title cut by a chunk boundary is found.
        todo = sorted({w for w in words if any(ch.isalnum() for ch in w)}, key=len, reverse=True)
        found: set[str] | None = None
        for w in todo:
            body = B.word_body(corpus, w, sorted(found) if found is not None else None)
            found = {h["_source"]["unit_id"] for h in self._scan(corpus, body)}
            if not found:
                return []
        return sorted(found or [])

    def chunk_vectors(self, corpus: str, chunk_ids: list[str]) -> np.ndarray:
        dim = self.corpus(corpus).dim or B.DEFAULT_DIM
        found: dict[str, list[float]] = {}
        for h in self._lookup(corpus, "chunk_id", chunk_ids, record="chunk", source=["chunk_id", "vector"]):
            if "vector" in h["_source"]:
                found[h["_source"]["chunk_id"]] = h["_source"]["vector"]
        out = np.zeros((len(chunk_ids), dim), dtype=np.float32)
        for i, cid in enumerate(chunk_ids):
            if cid in found:
                out[i] = found[cid]
        return out

    def record_ids(self, corpus: str) -> tuple[list[str], list[str]]:
        """All unit ids and chunk ids of a corpus, in load order (for export)."""
        units: list[str] = []
        chunks: list[str] = []
        body = {"_source": ["type", "unit_id", "chunk_id"],
                "query": {"bool": {"filter": [{"term": {"corpus": corpus}}, {"terms": {"type": ["unit", "chunk"]}}]}}}
        for h in self._scan(corpus, body):
            s = h["_source"]
            (units if s["type"] == "unit" else chunks).append(s["unit_id"] if s["type"] == "unit" else s["chunk_id"])
        return units, chunks

    def close(self) -> None:
        self.client.close()


def _reason(err) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        e = body["error"]
        causes = e.get("root_cause") or []
        typ = e.get("type", "")
        reason = e.get("reason", "")
        if causes and isinstance(causes[0], dict) and not reason:
            reason = causes[0].get("reason", "")
        return f"{typ}: {reason}".strip(": ")
    return str(getattr(err, "message", err))


def _version_message(url: str, found: str) -> str:
    return (f"Elasticsearch at {url} is version {found}, but Anchor's client (elasticsearch-py 9.x) works with "
            "Elasticsearch 9.x only: a 9.x client is rejected by 8.x servers. Upgrade the cluster to 9.x "
            "(docker-compose.yml runs one).")
