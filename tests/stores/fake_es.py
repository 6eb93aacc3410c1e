"""An in-process fake of the few Elasticsearch 9.x endpoints Anchor uses, plugged in as the
client's *node class*: the real ``elasticsearch`` client and bulk helper build and serialise
every request, and this fake parses the HTTP method, path, query string and (ND)JSON body.

What it proves: the store's requests are well-formed for the endpoints it calls, the store
handles responses, errors, aliases, refresh visibility and bulk item failures as a server
returns them, and the whole StoreContract passes on top. What it does not prove: Elasticsearch's
real analysis, BM25 parameters, HNSW/int8 approximation, cluster behaviour or licence rules
beyond the one modelled here; only a live cluster (``ANCHOR_ES_URL``) proves those.

Modelled: ``GET /`` (info), ``GET /_license``, index create/delete/refresh/settings,
``_alias`` lookups, atomic ``_aliases`` (with ``must_exist``), ``_bulk`` with strict mappings,
``_search`` (bool/term/terms/match/multi_match, top-level ``knn`` with filters, the ``rrf``
retriever behind a licence, ``_source`` filtering, sort + ``search_after``), ``_msearch``,
``_count`` and ``_reindex``. Documents become searchable only after a refresh, as on a server.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import math
import re
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import elastic_transport
from elastic_transport import ApiResponseMeta, HttpHeaders
from elastic_transport._node._base import BaseNode, NodeApiResponse

_TOKEN = re.compile(r"\w+", re.UNICODE)


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text or "")]


class _Error(Exception):
    def __init__(self, status: int, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.kind, self.reason = status, kind, reason

    def body(self) -> dict[str, Any]:
        return {"error": {"root_cause": [{"type": self.kind, "reason": self.reason}], "type": self.kind,
                          "reason": self.reason}, "status": self.status}


class _Index:
    def __init__(self, name: str, body: dict[str, Any]) -> None:
        self.name = name
        self.settings = copy.deepcopy(body.get("settings", {}))
        self.mappings = copy.deepcopy(body.get("mappings", {}))
        self.docs: dict[str, dict[str, Any]] = {}      # written
        self.visible: dict[str, dict[str, Any]] = {}   # as of the last refresh
        self.aliases: set[str] = set()

    def refresh(self) -> None:
        self.visible = copy.deepcopy(self.docs)

    def check(self, src: dict[str, Any]) -> None:
        props = self.mappings.get("properties", {})
        for key, value in src.items():
            if key not in props:
                if self.mappings.get("dynamic") == "strict":
                    raise _Error(400, "strict_dynamic_mapping_exception",
                                 f"mapping set to strict, dynamic introduction of [{key}] within [_doc] is not allowed")
                continue
            spec = props[key]
            if spec.get("type") == "dense_vector" and value is not None:
                if len(value) != spec["dims"]:
                    raise _Error(400, "document_parsing_exception",
                                 f"The [dense_vector] field [{key}] in doc has a different number of dimensions "
                                 f"[{len(value)}] than defined in the mapping [{spec['dims']}]")
                if spec.get("similarity") == "cosine" and not any(value):
                    raise _Error(400, "document_parsing_exception",
                                 f"The [cosine] similarity does not support vectors with zero magnitude. "
                                 f"Preview of invalid vector: {value[:5]}")


class FakeCluster:
    """State of one fake cluster. ``client()`` returns a real ``Elasticsearch`` client wired to it."""

    def __init__(self, *, version: str = "9.1.0", licence: str = "basic", api_key: str | None = None,
                 down: bool = False) -> None:
        self.version, self.licence, self.api_key, self.down = version, licence, api_key, down
        self.indices: dict[str, _Index] = {}
        self.requests: list[tuple[str, str, Any]] = []
        self.fail_bulk_ids: set[str] = set()
        """``_id`` values whose bulk item fails with a mapper error (to test partial failures)."""

    def node_class(self) -> type[BaseNode]:
        return type("FakeNode", (_FakeNode,), {"cluster": self})

    def client(self, **kw):
        from elasticsearch import Elasticsearch

        return Elasticsearch("http://fake-es:9200", node_class=self.node_class(), max_retries=0, **kw)

    # -- routing --------------------------------------------------------------------------

    def handle(self, method: str, target: str, body: bytes | None, headers: HttpHeaders) -> tuple[int, Any]:
        if self.down:
            raise elastic_transport.ConnectionError("Connection refused (fake cluster is down)")
        if self.api_key is not None and headers.get("authorization") != f"ApiKey {self.api_key}":
            raise _Error(401, "security_exception", "unable to authenticate with provided credentials")
        accept = headers.get("accept", "")
        if int(self.version.split(".")[0]) < 9 and "compatible-with=9" in accept:
            raise _Error(400, "media_type_header_exception", "Invalid media-type value on headers [Accept, "
                         "Content-Type]")
        url = urlsplit(target)
        parts = [unquote(p) for p in url.path.split("/") if p]
        params = {k: v[-1] for k, v in parse_qs(url.query).items()}
        ctype = headers.get("content-type", "")
        if body and "ndjson" in ctype:
            data: Any = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        else:
            data = json.loads(body) if body else None
        self.requests.append((method, url.path, data))

        if not parts:
            return 200, {"name": "fake", "cluster_name": "fake", "version": {"number": self.version},
                         "tagline": "You Know, for Search"}
        if parts == ["_license"]:
            return 200, {"license": {"type": self.licence, "status": "active"}}
        if parts == ["_bulk"]:
            return 200, self._bulk(data, params)
        if parts == ["_msearch"]:
            return 200, self._msearch(data)
        if parts == ["_aliases"]:
            return 200, self._aliases(data)
        if parts == ["_reindex"]:
            return 200, self._reindex(data, params)
        if parts[0] == "_alias" and len(parts) == 2:
            return self._get_alias(name=parts[1])
        if len(parts) == 2 and parts[1] == "_alias":
            return self._get_alias(pattern=parts[0], params=params)
        if len(parts) == 2 and parts[1] == "_search":
            return 200, self._search(parts[0], data or {}, params)
        if len(parts) == 2 and parts[1] == "_count":
            hits = self._matching(self._resolve(parts[0], params), (data or {}).get("query"))
            return 200, {"count": len(hits)}
        if len(parts) == 2 and parts[1] == "_refresh":
            for idx in self._resolve(parts[0], params):
                idx.refresh()
            return 200, {"_shards": {"failed": 0}}
        if len(parts) == 2 and parts[1] == "_settings" and method == "PUT":
            for idx in self._resolve(parts[0], params):
                idx.settings.setdefault("index", {}).update((data or {}).get("index", data or {}))
            return 200, {"acknowledged": True}
        if len(parts) == 1 and method == "PUT":
            return 200, self._create(parts[0], data or {})
        if len(parts) == 1 and method == "DELETE":
            for idx in self._resolve(parts[0], params):
                del self.indices[idx.name]
            return 200, {"acknowledged": True}
        raise _Error(400, "illegal_argument_exception", f"fake: unsupported {method} {url.path}")

    # -- indices and aliases --------------------------------------------------------------

    def _create(self, name: str, body: dict[str, Any]) -> dict[str, Any]:
        if name in self.indices:
            raise _Error(400, "resource_already_exists_exception", f"index [{name}] already exists")
        if any(name in i.aliases for i in self.indices.values()):
            raise _Error(400, "invalid_index_name_exception", f"Invalid index name [{name}], already exists as alias")
        if name != name.lower() or name[0] in "-_+":
            raise _Error(400, "invalid_index_name_exception", f"Invalid index name [{name}]")
        self.indices[name] = _Index(name, body)
        return {"acknowledged": True, "index": name}

    def _resolve(self, target: str, params: dict[str, str] | None = None) -> list[_Index]:
        params = params or {}
        out: dict[str, _Index] = {}
        for expr in target.split(","):
            if "*" in expr:
                for idx in self.indices.values():
                    if fnmatch.fnmatchcase(idx.name, expr) or any(fnmatch.fnmatchcase(a, expr) for a in idx.aliases):
                        out[idx.name] = idx
                continue
            if expr in self.indices:
                out[expr] = self.indices[expr]
                continue
            by_alias = [i for i in self.indices.values() if expr in i.aliases]
            if not by_alias and params.get("ignore_unavailable") != "true":
                raise _Error(404, "index_not_found_exception", f"no such index [{expr}]")
            out.update({i.name: i for i in by_alias})
        return list(out.values())

    def _get_alias(self, name: str | None = None, pattern: str | None = None,
                   params: dict[str, str] | None = None) -> tuple[int, Any]:
        if name is not None:
            found = {i.name: {"aliases": {name: {}}} for i in self.indices.values() if name in i.aliases}
            if not found:
                return 404, {"error": f"alias [{name}] missing", "status": 404}
            return 200, found
        idx = [i for i in self.indices.values() if fnmatch.fnmatchcase(i.name, pattern or "*")]
        return 200, {i.name: {"aliases": {a: {} for a in sorted(i.aliases)}} for i in idx}

    def _aliases(self, body: dict[str, Any]) -> dict[str, Any]:
        # Validate every action first, then apply all: the call is atomic.
        plan = []
        for action in body["actions"]:
            (kind, spec), = action.items()
            idx = self.indices.get(spec["index"])
            if idx is None:
                raise _Error(404, "index_not_found_exception", f"no such index [{spec['index']}]")
            if kind == "remove" and spec["alias"] not in idx.aliases and spec.get("must_exist", False):
                raise _Error(404, "aliases_not_found_exception", f"aliases [{spec['alias']}] missing")
            if kind == "add" and spec["alias"] in self.indices:
                raise _Error(400, "invalid_alias_name_exception",
                             f"Invalid alias name [{spec['alias']}]: an index or data stream exists with the same "
                             "name as the alias")
            plan.append((kind, idx, spec["alias"]))
        for kind, idx, alias in plan:
            (idx.aliases.add if kind == "add" else idx.aliases.discard)(alias)
        return {"acknowledged": True, "errors": False}

    # -- writing --------------------------------------------------------------------------

    def _bulk(self, lines: list[dict[str, Any]], params: dict[str, str]) -> dict[str, Any]:
        items = []
        i = 0
        while i < len(lines):
            (op, meta), = lines[i].items()
            src = lines[i + 1] if op in ("index", "create") else None
            i += 2 if src is not None else 1
            try:
                idx = self.indices.get(meta["_index"])
                if idx is None:
                    raise _Error(404, "index_not_found_exception", f"no such index [{meta['_index']}]")
                if meta["_id"] in self.fail_bulk_ids:
                    raise _Error(400, "document_parsing_exception", f"[1:1] failed to parse doc [{meta['_id']}]")
                if op == "create" and meta["_id"] in idx.docs:
                    raise _Error(409, "version_conflict_engine_exception",
                                 f"[{meta['_id']}]: version conflict, document already exists")
                idx.check(src)
                idx.docs[meta["_id"]] = src
                items.append({op: {"_index": idx.name, "_id": meta["_id"], "status": 201, "result": "created"}})
            except _Error as e:
                items.append({op: {"_index": meta.get("_index"), "_id": meta.get("_id"), "status": e.status,
                                   "error": {"type": e.kind, "reason": e.reason}}})
        if params.get("refresh") == "true":
            for idx in self.indices.values():
                idx.refresh()
        return {"took": 1, "errors": any("error" in next(iter(it.values())) for it in items), "items": items}

    def _reindex(self, body: dict[str, Any], params: dict[str, str]) -> dict[str, Any]:
        dest = self.indices.get(body["dest"]["index"])
        if dest is None:
            raise _Error(404, "index_not_found_exception", f"no such index [{body['dest']['index']}]")
        created, failures = 0, []
        for idx in self._resolve(body["source"]["index"]):
            for _id, src in self._matching([idx], body["source"].get("query")):
                try:
                    dest.check(src)
                    if body["dest"].get("op_type") == "create" and _id in dest.docs:
                        raise _Error(409, "version_conflict_engine_exception", f"[{_id}]: document already exists")
                    dest.docs[_id] = copy.deepcopy(src)
                    created += 1
                except _Error as e:
                    failures.append({"index": dest.name, "id": _id, "status": e.status,
                                     "cause": {"type": e.kind, "reason": e.reason}})
        if params.get("refresh") == "true":
            dest.refresh()
        return {"took": 1, "total": created + len(failures), "created": created, "failures": failures}

    # -- searching ------------------------------------------------------------------------

    def _matching(self, indices: list[_Index], query: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
        return [(i, s) for idx in indices for i, s in idx.visible.items() if _matches(s, query)]

    def _search(self, target: str, body: dict[str, Any], params: dict[str, str]) -> dict[str, Any]:
        indices = self._resolve(target, params)
        size = body.get("size", 10)
        if "retriever" in body:
            scored = self._rrf(indices, body["retriever"]["rrf"])
        elif "knn" in body:
            scored = self._knn(indices, body["knn"])
        else:
            query = body.get("query")
            scored = [(i, s, _bm25(indices, s, query)) for i, s in self._matching(indices, query)]
        sort = body.get("sort") or ["_score"]
        keys = []
        for item in sort:
            field, order = (item, "desc" if item == "_score" else "asc") if isinstance(item, str) else \
                next(iter(item.items()))
            keys.append((field, order if isinstance(order, str) else order.get("order", "asc")))

        def key(row):
            _, src, score = row
            return tuple((-score if o == "desc" else score) if f == "_score" else
                         (-(src.get(f) or 0) if o == "desc" else (src.get(f) or 0)) for f, o in keys)

        def sort_values(row):
            return [row[2] if f == "_score" else row[1].get(f) for f, _ in keys]

        scored.sort(key=key)
        after = body.get("search_after")
        if after is not None:
            scored = [r for r in scored if key(r) > tuple(-v if o == "desc" else v for v, (_, o) in zip(after, keys))]
        hits = [{"_index": "?", "_id": _id, "_score": score, "_source": _project(src, body.get("_source", True)),
                 "sort": sort_values((_id, src, score))} for _id, src, score in scored[:size]]
        return {"took": 1, "timed_out": False, "hits": {"hits": hits}}

    def _knn(self, indices: list[_Index], knn: dict[str, Any]) -> list[tuple[str, dict[str, Any], float]]:
        if knn["num_candidates"] < knn["k"] or knn["num_candidates"] > 10_000:
            raise _Error(400, "illegal_argument_exception", "[num_candidates] must be >= k and <= 10000")
        query = {"bool": {"filter": knn.get("filter", [])}}
        q = knn["query_vector"]
        qn = math.sqrt(sum(x * x for x in q)) or 1.0
        out = []
        for _id, src in self._matching(indices, query):
            v = src.get(knn["field"])
            if v is None:
                continue
            cos = sum(a * b for a, b in zip(q, v)) / (qn * (math.sqrt(sum(x * x for x in v)) or 1.0))
            out.append((_id, src, (1.0 + cos) / 2.0))
        out.sort(key=lambda r: -r[2])
        return out[: knn["k"]]

    def _rrf(self, indices: list[_Index], rrf: dict[str, Any]) -> list[tuple[str, dict[str, Any], float]]:
        if self.licence not in ("enterprise", "trial"):
            raise _Error(403, "security_exception", "current license is non-compliant for [Reciprocal Rank Fusion "
                         "(RRF)]")
        window, c = rrf.get("rank_window_size", 10), rrf.get("rank_constant", 60)
        fused: dict[str, list] = {}
        for r in rrf["retrievers"]:
            if "knn" in r:
                ranked = self._knn(indices, r["knn"])
            else:
                q = r["standard"]["query"]
                ranked = sorted(((i, s, _bm25(indices, s, q)) for i, s in self._matching(indices, q)),
                                key=lambda row: -row[2])
            for rank, (_id, src, _) in enumerate(ranked[:window], start=1):
                fused.setdefault(_id, [src, 0.0])[1] += 1.0 / (c + rank)
        return [(i, s, score) for i, (s, score) in fused.items()]

    def _msearch(self, lines: list[dict[str, Any]]) -> dict[str, Any]:
        responses = []
        for header, body in zip(lines[0::2], lines[1::2]):
            try:
                responses.append({**self._search(header["index"], body, {}), "status": 200})
            except _Error as e:
                responses.append({**e.body(), "status": e.status})
        return {"took": 1, "responses": responses}


def _project(src: dict[str, Any], spec: Any) -> Any:
    if spec is False:
        return None
    if spec is True:
        return copy.deepcopy(src)
    if isinstance(spec, list):
        return {k: copy.deepcopy(v) for k, v in src.items() if k in spec}
    if isinstance(spec, dict):
        inc = spec.get("includes")
        out = {k: v for k, v in src.items() if inc is None or k in inc}
        return {k: copy.deepcopy(v) for k, v in out.items() if k not in spec.get("excludes", [])}
    raise _Error(400, "parsing_exception", f"bad _source {spec!r}")


def _values(src: dict[str, Any], field: str) -> list[Any]:
    v = src.get(field)
    return v if isinstance(v, list) else ([] if v is None else [v])


def _matches(src: dict[str, Any], q: dict[str, Any] | None) -> bool:
    if not q:
        return True
    (kind, spec), = q.items()
    if kind == "match_all":
        return True
    if kind == "term":
        (field, value), = spec.items()
        value = value["value"] if isinstance(value, dict) else value
        return value in _values(src, field)
    if kind == "terms":
        (field, values), = spec.items()
        return any(v in values for v in _values(src, field))
    if kind == "match_phrase":
        (field, value), = spec.items()
        want = _tokens(value["query"] if isinstance(value, dict) else value)
        have = _tokens(src.get(field, ""))
        return bool(want) and any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))
    if kind in ("match", "multi_match"):
        spec_ = _match_spec(q)
        operator = next(iter(spec.values())).get("operator", "or") if kind == "match" and isinstance(
            next(iter(spec.values())), dict) else "or"
        if operator == "and" and spec_ is not None:
            return set(_tokens(spec_[1])) <= set(_tokens(src.get(spec_[0], "")))
        return _bm25_terms(src, q) > 0
    if kind == "bool":
        def as_list(x):
            return x if isinstance(x, list) else ([x] if x else [])
        if not all(_matches(src, c) for c in as_list(spec.get("must")) + as_list(spec.get("filter"))):
            return False
        if any(_matches(src, c) for c in as_list(spec.get("must_not"))):
            return False
        should = as_list(spec.get("should"))
        need = spec.get("minimum_should_match", 0 if spec.get("must") or spec.get("filter") else 1)
        return not should or sum(_matches(src, c) for c in should) >= int(need)
    raise _Error(400, "parsing_exception", f"fake: unknown query [{kind}]")


def _match_spec(q: dict[str, Any]) -> tuple[str, str] | None:
    if "match" in q:
        (field, spec), = q["match"].items()
        return field, spec["query"] if isinstance(spec, dict) else spec
    if "multi_match" in q:
        return q["multi_match"]["fields"][0], q["multi_match"]["query"]
    if "bool" in q:
        for c in q["bool"].get("must", []) if isinstance(q["bool"].get("must"), list) else [q["bool"].get("must")]:
            if c and (found := _match_spec(c)):
                return found
    return None


def _bm25_terms(src: dict[str, Any], q: dict[str, Any]) -> int:
    spec = _match_spec(q)
    if spec is None:
        return 0
    field, text = spec
    return len(set(_tokens(text)) & set(_tokens(src.get(field, ""))))


def _bm25(indices: list[_Index], src: dict[str, Any], q: dict[str, Any] | None) -> float:
    """Lucene's BM25 (k1=1.2, b=0.75) over the docs that have the field; 1.0 without a match query."""
    spec = _match_spec(q) if q else None
    if spec is None:
        return 1.0
    field, text = spec
    docs = [s for idx in indices for s in idx.visible.values() if field in s]
    n = len(docs) or 1
    avgdl = sum(len(_tokens(s[field])) for s in docs) / n
    toks = _tokens(src.get(field, ""))
    score = 0.0
    for term in set(_tokens(text)):
        tf = toks.count(term)
        if not tf:
            continue
        df = sum(1 for s in docs if term in _tokens(s[field]))
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        score += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * len(toks) / (avgdl or 1)))
    return score


class _FakeNode(BaseNode):
    cluster: FakeCluster

    def perform_request(self, method, target, body=None, headers=None, request_timeout=None):
        hdrs = HttpHeaders(self.headers)
        if headers:
            hdrs.update(headers)
        try:
            status, payload = self.cluster.handle(method, target, body, hdrs)
        except _Error as e:
            status, payload = e.status, e.body()
        out = json.dumps(payload).encode()
        meta = ApiResponseMeta(status=status, http_version="1.1", duration=0.0, node=self.config,
                               headers=HttpHeaders({"content-type": "application/json",
                                                    "x-elastic-product": "Elasticsearch"}))
        return NodeApiResponse(meta, out)
