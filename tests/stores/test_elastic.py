"""ElasticStore: the shared contract offline (real client + bulk helper over an in-process fake
node, see fake_es.py) and against a live Elasticsearch 9.x when ANCHOR_ES_URL is set:

    ANCHOR_ES_URL=http://localhost:9200 python -m pytest -q -m elasticsearch tests/stores
"""

from __future__ import annotations

import dataclasses
import logging
import os
import uuid

import numpy as np
import pytest

from anchor_core.config import Settings
from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import CorpusNotFound, StoreError
from anchor_core.indexing import ingest
from anchor_core.models import CorpusInfo, Filters
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.elastic import ElasticStore
from tests.stores.contract import StoreContract, grouped_corpus, raw_replace
from tests.stores.fake_es import FakeCluster

LIVE_URL = os.environ.get("ANCHOR_ES_URL")


def fake_store(cluster: FakeCluster, **kw) -> ElasticStore:
    return ElasticStore(cluster.client(), url="http://fake-es:9200", replicas=0, **kw)


class TestElasticStoreOffline(StoreContract):
    @pytest.fixture
    def cluster(self):
        return FakeCluster()

    @pytest.fixture
    def store_factory(self, cluster):
        return lambda: fake_store(cluster)

    @pytest.fixture
    def store(self, store_factory):
        return store_factory()


@pytest.fixture
def live_settings():
    if not LIVE_URL:
        pytest.skip("set ANCHOR_ES_URL to run the live Elasticsearch tests")
    prefix = f"anchortest{uuid.uuid4().hex[:8]}"
    settings = dataclasses.replace(Settings.from_env().elasticsearch, url=LIVE_URL, prefix=prefix, replicas=0)
    yield settings
    store = ElasticStore.from_settings(settings)
    found = store.client.indices.get_alias(index=f"{prefix}-*", allow_no_indices=True, expand_wildcards="all")
    for idx in found.body:
        store.client.indices.delete(index=idx, ignore_unavailable=True)


@pytest.mark.elasticsearch
class TestElasticStoreLive(StoreContract):
    @pytest.fixture
    def store_factory(self, live_settings):
        return lambda: ElasticStore.from_settings(live_settings)

    @pytest.fixture
    def store(self, store_factory):
        return store_factory()


# -- end-to-end retrieval (offline and live) -------------------------------------------------

def _check_retrieval(store, small_corpus):
    """The same hop the SQLite retrieval test checks, through this store."""
    ingest(store, HashEmbedder(), small_corpus, corpus="w", adapter="test")

    def ask(hops):
        # A decay near 1 lets the followed chunk outscore the second direct hit (as in test_retrieve).
        return retrieve("Which widgets shall be registered?", store=store, embedder=HashEmbedder(), corpus="w",
                        settings=RetrievalSettings(k=2, hops=hops, hop_decay=0.99, hop_floor=1.0))

    with_hops, without = ask(1), ask(0)
    assert [h.chunk_id for h in with_hops.hits] != [h.chunk_id for h in without.hits]
    followed = [h for h in with_hops.hits if h.via]
    assert followed and followed[0].unit_id == "annex-1"
    assert followed[0].path == f"annex-1({followed[0].part}) ← article-2(2)"
    assert "bm25+dense" in with_hops.timings_ms  # one _msearch, not two searches
    assert with_hops.hits[0].bm25_rank and with_hops.hits[0].dense_rank
    return with_hops


def test_end_to_end_retrieval_offline(small_corpus):
    cluster = FakeCluster()
    store = fake_store(cluster)
    n_before = len(cluster.requests)
    _check_retrieval(store, small_corpus)
    searches = [p for _, p, _ in cluster.requests[n_before:]]
    # two per retrieval (with and without hops): the question's words the corpus writes (one one-hit search
    # per word), then BM25 and kNN together
    assert searches.count("/_msearch") == 4


@pytest.mark.elasticsearch
def test_end_to_end_retrieval_live(live_settings, small_corpus):
    _check_retrieval(ElasticStore.from_settings(live_settings), small_corpus)


# -- bad input, offline ----------------------------------------------------------------------

def test_cluster_down_says_how_to_start_it():
    with pytest.raises(StoreError, match="cannot reach Elasticsearch at http://fake-es:9200.*docker compose up"):
        fake_store(FakeCluster(down=True))


@pytest.mark.parametrize("version", ["8.19.2", "7.17.0"])
def test_an_older_server_is_refused_with_the_reason(version):
    with pytest.raises(StoreError, match="9.x client is rejected by 8.x servers"):
        fake_store(FakeCluster(version=version))


def test_a_10x_server_is_refused():
    cluster = FakeCluster(version="10.0.0")
    with pytest.raises(StoreError, match="version 10.0.0"):
        fake_store(cluster)


def test_auth_failure_names_the_variables_and_never_the_secret(caplog):
    cluster = FakeCluster(api_key="right-key")
    caplog.set_level(logging.DEBUG)
    with pytest.raises(StoreError, match="ANCHOR_ES_API_KEY") as err:
        ElasticStore(cluster.client(api_key="wrong-key-s3cr3t"), url="http://fake-es:9200")
    assert "s3cr3t" not in str(err.value) and "s3cr3t" not in caplog.text
    ElasticStore(cluster.client(api_key="right-key"), url="http://fake-es:9200")  # the right key works


def test_settings_hide_secrets_and_redact_urls():
    s = Settings.from_env({"ANCHOR_STORE": "elasticsearch", "ANCHOR_ES_URL": "https://bob:pw123@es.example:9200",
                           "ANCHOR_ES_API_KEY": "k3y", "ANCHOR_ES_PASSWORD": "pw456"})
    assert not any(x in repr(s) for x in ("k3y", "pw123", "pw456"))
    assert s.store_location == "Elasticsearch at https://es.example:9200"
    assert s.elasticsearch.verify_certs is True
    assert not any(x in repr(s.elasticsearch) for x in ("k3y", "pw123", "pw456"))


def test_settings_reject_bad_values():
    from anchor_core.errors import ConfigError

    with pytest.raises(ConfigError, match="ANCHOR_STORE is 'mongo'; allowed: sqlite, elasticsearch"):
        Settings.from_env({"ANCHOR_STORE": "mongo"})
    with pytest.raises(ConfigError, match="ANCHOR_ES_VERIFY_CERTS is 'maybe'; allowed: true or false"):
        Settings.from_env({"ANCHOR_ES_VERIFY_CERTS": "maybe"})
    with pytest.raises(ConfigError, match="ANCHOR_ES_TIMEOUT is 'soon'; allowed: a number"):
        Settings.from_env({"ANCHOR_ES_TIMEOUT": "soon"})
    from anchor_core.stores import open_store

    with pytest.raises(ConfigError, match="needs ANCHOR_ES_URL"):
        open_store(Settings.from_env({"ANCHOR_STORE": "elasticsearch"}))


def test_client_options_from_settings():
    from anchor_core.stores.elastic import make_client

    s = Settings.from_env({"ANCHOR_STORE": "elasticsearch", "ANCHOR_ES_URL": "http://fake-es:9200",
                           "ANCHOR_ES_TIMEOUT": "7", "ANCHOR_ES_RETRIES": "5", "ANCHOR_ES_API_KEY": "abc"})
    client = make_client(s.elasticsearch, node_class=FakeCluster().node_class())
    assert client._max_retries == 5 and client._retry_on_timeout is True
    assert client._headers["authorization"] == "ApiKey abc"
    assert client._request_timeout == 7.0


def test_server_rrf_needs_the_licence_and_then_ranks_like_the_core(small_corpus):
    with pytest.raises(StoreError, match="'basic' licence"):
        fake_store(FakeCluster(licence="basic"), server_rrf=True)
    cluster = FakeCluster(licence="trial")
    store = fake_store(cluster, server_rrf=True)
    ingest(store, HashEmbedder(), small_corpus, corpus="w", adapter="test")
    rs = RetrievalSettings(k=3, hops=0, diversify=False)
    server = retrieve("widgets registered annex", store=store, embedder=HashEmbedder(), corpus="w", settings=rs)
    assert any(p.endswith("/_search") and b and "retriever" in b for _, p, b in cluster.requests)
    core = retrieve("widgets registered annex", store=fake_store(cluster), embedder=HashEmbedder(), corpus="w",
                    settings=rs)
    assert [h.chunk_id for h in server.hits] == [h.chunk_id for h in core.hits]


def test_partial_bulk_failure_keeps_the_serving_corpus(small_corpus):
    cluster = FakeCluster()
    store = fake_store(cluster)
    raw_replace(store, small_corpus, "w")
    before = store.search_bm25("w", ["widgets"], 10, Filters())
    cluster.fail_bulk_ids = {"chunk:fin-1:0"}
    with pytest.raises(StoreError, match=r"1 records failed to index.*chunk:fin-1:0: document_parsing_exception"):
        raw_replace(store, grouped_corpus(), "w")
    assert store.search_bm25("w", ["widgets"], 10, Filters()) == before
    assert len(cluster.indices) == 1  # the half-filled index is gone


def test_interrupted_ingest_keeps_the_serving_corpus_and_delete_cleans_leftovers(small_corpus, monkeypatch):
    cluster = FakeCluster()
    store = fake_store(cluster)
    raw_replace(store, small_corpus, "w")
    v1 = store.corpus("w").version
    monkeypatch.setattr(store, "_delete_indices", lambda indices: None)  # as if SIGKILLed before clean-up

    def killed(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "_publish", killed)
    with pytest.raises(KeyboardInterrupt):
        raw_replace(store, grouped_corpus(), "w")
    assert store.corpus("w").version == v1 and len(cluster.indices) == 2
    monkeypatch.undo()
    store.delete_corpus("w")
    assert cluster.indices == {}
    with pytest.raises(CorpusNotFound, match="holds no Anchor corpora"):
        store.corpus("w")


def test_concurrent_replace_is_detected_not_merged(small_corpus, monkeypatch):
    cluster = FakeCluster()
    store, other = fake_store(cluster), fake_store(cluster)
    raw_replace(store, small_corpus, "w")
    real_publish = store._publish

    def race(alias, new, old, chunks):
        raw_replace(other, grouped_corpus(), "w")  # another process swaps the alias first
        real_publish(alias, new, old, chunks)

    monkeypatch.setattr(store, "_publish", race)
    with pytest.raises(StoreError, match="another process replaced this corpus"):
        raw_replace(store, small_corpus, "w")
    assert store.search_bm25("w", ["salaries"], 3, Filters(exclude_kinds=["recital"]))[0][0].startswith("hr-1")
    assert sum("anchor-corpus-w" in i.aliases for i in cluster.indices.values()) == 1


def test_layout_from_another_version_is_refused_with_advice(small_corpus):
    cluster = FakeCluster()
    store = fake_store(cluster)
    raw_replace(store, small_corpus, "w")
    (idx,) = cluster.indices.values()
    idx.visible["corpus"]["schema"] = 0
    with pytest.raises(StoreError, match="another version of Anchor.*re-ingest"):
        store.corpus("w")
    with pytest.raises(StoreError, match="another version of Anchor"):
        store.corpora()


def test_an_index_squatting_the_alias_name_is_explained(small_corpus):
    cluster = FakeCluster()
    cluster.client().indices.create(index="anchor-corpus-w")  # e.g. left by an older tool
    store = fake_store(cluster)
    with pytest.raises(StoreError, match="An index with the alias's name exists.*ANCHOR_ES_PREFIX"):
        raw_replace(store, small_corpus, "w")
    assert set(cluster.indices) == {"anchor-corpus-w"}


def test_missing_corpus_and_vector_dimension_errors(small_corpus):
    store = fake_store(FakeCluster())
    with pytest.raises(CorpusNotFound, match="holds no Anchor corpora"):
        store.search_bm25("nope", ["x"], 3, Filters())
    raw_replace(store, small_corpus, "w")
    with pytest.raises(CorpusNotFound, match="stored corpora: w"):
        store.search_hybrid("nope", ["x"], np.ones(384, np.float32), 3, Filters())
    with pytest.raises(StoreError, match="re-ingest"):
        store.search_vector("w", np.ones(10, np.float32), 3, Filters())


def test_zero_vectors_stay_out_of_knn(small_corpus):
    from anchor_core.chunking import chunk_unit

    store = fake_store(FakeCluster())
    chunks = [c for u in small_corpus.units for c in chunk_unit(u)]
    vecs = HashEmbedder().embed([c.embed_text for c in chunks])
    vecs[0] = 0
    info = CorpusInfo(name="z", adapter="t", version="v1", dim=384, chunks=len(chunks), embedder="hash-bow-384")
    store.replace_corpus(info, small_corpus.documents, small_corpus.units, chunks, vecs, [])
    assert np.allclose(store.chunk_vectors("z", [chunks[0].chunk_id])[0], 0)
    assert chunks[0].chunk_id not in [c for c, _ in store.search_vector("z", vecs[1], 10, Filters())]
    assert store.search_vector("z", np.zeros(384, np.float32), 3, Filters()) == []


def test_replace_documents_keeps_the_others_and_fails_atomically(small_corpus):
    from anchor_core.chunking import chunk_unit

    cluster = FakeCluster()
    store = fake_store(cluster)
    ingest(store, HashEmbedder(), grouped_corpus(), corpus="p", adapter="test")
    g = grouped_corpus()
    new_doc = g.documents[0].model_copy(update={"title": "HR policy v2"})
    new_unit = g.units[0].model_copy(update={"text": "Salaries are reviewed every autumn."})
    chunks = chunk_unit(new_unit)
    info = store.corpus("p").model_copy(update={"version": "v2"})
    store.replace_documents(info, [new_doc], [new_unit], chunks, HashEmbedder().embed([c.embed_text for c in chunks]),
                            [], remove=["fin"])
    assert {d.doc_id: d.title for d in store.documents("p")} == {"hr": "HR policy v2", "pub": "Public notice"}
    assert store.get_units("p", ["hr-1"])["hr-1"].text.endswith("autumn.")
    assert store.search_bm25("p", ["invoices"], 5, Filters()) == [("rec-1:0", pytest.approx(
        store.search_bm25("p", ["invoices"], 5, Filters())[0][1]))]
    assert store.units_chunks("p", ["pub-1"], Filters())["pub-1"]  # untouched document still there
    cluster.fail_bulk_ids = {"chunk:hr-1:0"}
    bad = info.model_copy(update={"version": "v3"})
    with pytest.raises(StoreError, match="failed to index"):
        store.replace_documents(bad, [new_doc], [new_unit], chunks,
                                HashEmbedder().embed([c.embed_text for c in chunks]), [], remove=["pub"])
    assert store.corpus("p").version == "v2" and len(store.documents("p")) == 2 and len(cluster.indices) == 1


def test_paging_reads_more_than_one_page(monkeypatch):
    from anchor_core.models import Document, ParsedCorpus
    from anchor_core.stores import elastic
    from tests.conftest import unit

    monkeypatch.setattr(elastic, "PAGE", 7)
    store = fake_store(FakeCluster())
    parsed = ParsedCorpus(documents=[Document(doc_id="doc")], units=[unit(f"u{i}", f"text {i}") for i in range(30)])
    raw_replace(store, parsed, "many")
    ids = [f"u{i}" for i in range(30)]
    assert len(store.get_units("many", ids)) == 30
    assert sum(len(v) for v in store.units_chunks("many", ids, Filters()).values()) == 30
    units, chunks = store.record_ids("many")
    assert units == ids and len(chunks) == 30
