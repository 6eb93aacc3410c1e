"""Moving a corpus SQLite → Elasticsearch (the fake node) with export-corpus / import-corpus."""

import json

import numpy as np
import pytest

from anchor_core import cli
from anchor_core.config import Settings
from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import AnchorError
from anchor_core.indexing import ingest
from anchor_core.models import Filters
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.elastic import ElasticStore
from anchor_core.stores.sqlite import SQLiteStore
from anchor_core.transfer import export_corpus, import_corpus
from tests.stores.contract import grouped_corpus
from tests.stores.fake_es import FakeCluster


@pytest.fixture
def sqlite_with_corpora(tmp_path, small_corpus):
    store = SQLiteStore(tmp_path / "a.db")
    ingest(store, HashEmbedder(), small_corpus, corpus="widgets", adapter="test")
    ingest(store, HashEmbedder(), grouped_corpus(), corpus="policies", adapter="test")
    return store


def _same(a, b, name):
    assert a.documents(name) == b.documents(name)
    ids = a.unit_ids(name)
    assert b.unit_ids(name) == ids
    assert a.get_units(name, ids) == b.get_units(name, ids)
    ca, cb = a.units_chunks(name, ids, Filters()), b.units_chunks(name, ids, Filters())
    assert ca == cb
    chunk_ids = [c.chunk_id for cs in ca.values() for c in cs]
    assert np.array_equal(a.chunk_vectors(name, chunk_ids), b.chunk_vectors(name, chunk_ids))  # bit-exact
    assert a.references(name) == b.references(name)
    ia, ib = a.corpus(name), b.corpus(name)
    assert ia.model_dump(exclude={"version"}) == ib.model_dump(exclude={"version"})


def test_sqlite_to_elasticsearch_keeps_everything(tmp_path, sqlite_with_corpora):
    es = ElasticStore(FakeCluster().client(), replicas=0)
    for name in ("widgets", "policies"):
        path = tmp_path / f"{name}.jsonl"
        counts = export_corpus(sqlite_with_corpora, name, path)
        assert counts["unit"] == len(sqlite_with_corpora.unit_ids(name))
        import_corpus(es, path)
        _same(sqlite_with_corpora, es, name)
    # access groups still filter inside the store after the move
    q = HashEmbedder().embed(["invoices"])[0]
    assert {c.split("-")[0] for c, _ in es.search_vector("policies", q, 10, Filters(groups=["hr"]))} <= {"hr", "pub",
                                                                                                          "rec"}
    rs = RetrievalSettings(k=2, hops=1)
    r1 = retrieve("Which widgets shall be registered?", store=sqlite_with_corpora, embedder=HashEmbedder(),
                  corpus="widgets", settings=rs)
    r2 = retrieve("Which widgets shall be registered?", store=es, embedder=HashEmbedder(), corpus="widgets",
                  settings=rs)
    assert [h.path for h in r1.hits if h.via] == [h.path for h in r2.hits if h.via]


def test_round_trip_back_into_sqlite_under_another_name(tmp_path, sqlite_with_corpora):
    path = tmp_path / "w.jsonl"
    export_corpus(sqlite_with_corpora, "widgets", path)
    info = import_corpus(sqlite_with_corpora, path, name="widgets-copy")
    assert info.name == "widgets-copy" and info.version != sqlite_with_corpora.corpus("widgets").version
    assert sqlite_with_corpora.unit_ids("widgets-copy") == sqlite_with_corpora.unit_ids("widgets")


def test_truncated_or_foreign_files_are_refused(tmp_path, sqlite_with_corpora):
    path = tmp_path / "w.jsonl"
    export_corpus(sqlite_with_corpora, "widgets", path)
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-3]) + "\n")
    with pytest.raises(AnchorError, match="incomplete"):
        import_corpus(sqlite_with_corpora, cut, name="x")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"hello": 1}) + "\n")
    with pytest.raises(AnchorError, match="not an Anchor corpus export"):
        import_corpus(sqlite_with_corpora, bad)
    broken = tmp_path / "broken.jsonl"
    broken.write_text(lines[0] + "\n{not json\n")
    with pytest.raises(AnchorError, match="line 2"):
        import_corpus(sqlite_with_corpora, broken)
    assert "x" not in [c.name for c in sqlite_with_corpora.corpora()]


def test_cli_moves_a_workspace_to_elasticsearch(tmp_path, monkeypatch, capsys, small_corpus):
    home = tmp_path / "home"
    monkeypatch.setenv("ANCHOR_HOME", str(home))
    ingest(SQLiteStore(home / "anchor.db"), HashEmbedder(), small_corpus, corpus="widgets", adapter="test")
    out = tmp_path / "widgets.jsonl"
    assert cli.main(["export-corpus", "widgets", str(out)]) == 0
    assert "3 units" in capsys.readouterr().out

    cluster = FakeCluster()
    monkeypatch.setenv("ANCHOR_STORE", "elasticsearch")
    monkeypatch.setenv("ANCHOR_ES_URL", "http://fake-es:9200")
    monkeypatch.setenv("ANCHOR_ES_REPLICAS", "0")
    real = ElasticStore.from_settings
    monkeypatch.setattr(ElasticStore, "from_settings",
                        classmethod(lambda cls, s: real.__func__(cls, s, node_class=cluster.node_class())))
    assert cli.main(["import-corpus", str(out)]) == 0
    assert "-> Elasticsearch at http://fake-es:9200" in capsys.readouterr().out
    assert cli.main(["corpora"]) == 0
    assert "widgets" in capsys.readouterr().out
    assert cli.main(["retrieve", "Which widgets shall be registered?", "--corpus", "widgets", "--k", "3",
                     "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    # The references came across: Annex I is shown as cited by Article 2(2) (or followed from it).
    assert any(h["unit_id"] == "annex-1" and (h["via"] == ["article-2"] or "article-2(2)" in h["cited_by"])
               for h in hits), hits
    assert cli.main(["export-corpus", "nope", str(tmp_path / "n.jsonl")]) == 2
    assert "no corpus named 'nope'" in capsys.readouterr().err
    # a failed export leaves no half-written file behind
    assert not list(tmp_path.glob("n.jsonl*"))
    # nor touches an earlier export of the same name
    (tmp_path / "n.jsonl").write_text("earlier\n", encoding="utf-8")
    assert cli.main(["export-corpus", "nope", str(tmp_path / "n.jsonl")]) == 2
    assert (tmp_path / "n.jsonl").read_text(encoding="utf-8") == "earlier\n"
    assert [p.name for p in tmp_path.glob("n.jsonl*")] == ["n.jsonl"]
    assert Settings.from_env().store == "elasticsearch"
