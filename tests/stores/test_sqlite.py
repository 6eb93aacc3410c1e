import sqlite3

import pytest

from anchor_core.errors import StoreError
from anchor_core.models import Chunk, Filters
from anchor_core.stores.sqlite import SQLiteStore
from tests.stores.contract import StoreContract, grouped_corpus, raw_replace


class TestSQLiteStore(StoreContract):
    @pytest.fixture
    def store_factory(self, tmp_path):
        return lambda: SQLiteStore(tmp_path / "ws" / "anchor.db")

    @pytest.fixture
    def store(self, store_factory):
        return store_factory()


def test_failed_replace_leaves_the_previous_corpus(tmp_path, small_corpus):
    store = SQLiteStore(tmp_path / "a.db")
    raw_replace(store, small_corpus, "w")
    before = store.search_bm25("w", ["widgets"], 10, Filters())
    bad = grouped_corpus()
    # Two chunks with one id violate the unique index halfway through the transaction.
    from anchor_core.chunking import chunk_unit
    chunks = [c for u in bad.units for c in chunk_unit(u)]
    chunks.append(Chunk(**{**chunks[0].model_dump()}))
    import numpy as np
    info = store.corpus("w").model_copy(update={"version": "new"})
    with pytest.raises(sqlite3.IntegrityError):
        store.replace_corpus(info, bad.documents, bad.units, chunks, np.zeros((len(chunks), 384), np.float32), [])
    assert store.search_bm25("w", ["widgets"], 10, Filters()) == before
    assert store.corpus("w").version != "new"


def test_damaged_database_gives_an_actionable_error(tmp_path):
    path = tmp_path / "anchor.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="ANCHOR_HOME"):
        SQLiteStore(path)


def test_vector_dimension_mismatch_is_explained(tmp_path, small_corpus):
    store = SQLiteStore(tmp_path / "a.db")
    raw_replace(store, small_corpus, "w")
    import numpy as np
    with pytest.raises(StoreError, match="re-ingest"):
        store.search_vector("w", np.ones(10, np.float32), 3, Filters())


def test_each_corpus_has_its_own_bm25_statistics(tmp_path, small_corpus):
    """A term common in another corpus must not lose IDF here: scores depend on this corpus only."""
    from anchor_core.models import Document, ParsedCorpus
    from tests.conftest import unit

    store = SQLiteStore(tmp_path / "a.db")
    raw_replace(store, small_corpus, "w")
    before = store.search_bm25("w", ["recruitment"], 3, Filters())
    noisy = ParsedCorpus(documents=[Document(doc_id="doc")],
                         units=[unit(f"u{i}", "recruitment recruitment everywhere") for i in range(50)])
    raw_replace(store, noisy, "other")
    assert store.search_bm25("w", ["recruitment"], 3, Filters()) == before
    store.delete_corpus("other")
    names = {r[0] for r in store._rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'fts_%'")}
    assert len([n for n in names if "_" not in n[4:]]) == 1  # the deleted corpus's index is gone


def test_store_from_an_older_layout_is_refused_with_advice(tmp_path):
    import sqlite3 as lite

    db = lite.connect(tmp_path / "old.db")
    db.execute("CREATE TABLE corpora (name TEXT PRIMARY KEY, version TEXT NOT NULL, info TEXT NOT NULL)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="older Anchor"):
        SQLiteStore(tmp_path / "old.db")


def test_store_of_layout_2_gains_the_page_columns(tmp_path, small_corpus):
    """A layout-2 store (chunks without page columns) is upgraded in place and keeps its corpus."""
    store = SQLiteStore(tmp_path / "a.db")
    raw_replace(store, small_corpus, "w")
    store._db.execute("ALTER TABLE chunks DROP COLUMN page")
    store._db.execute("ALTER TABLE chunks DROP COLUMN page_end")
    store._db.execute("PRAGMA user_version = 0")  # layouts before 3 never set it
    store.close()
    again = SQLiteStore(tmp_path / "a.db")
    chunks = again.unit_chunks("w", "annex-1", Filters())
    assert chunks and all(c.page is None for c in chunks)
    assert again._rows("PRAGMA user_version")[0][0] == 3


@pytest.mark.timeout(30)
def test_readers_open_and_read_while_a_writer_holds_the_lock(tmp_path, embedder, small_corpus, capsys):
    """Opening a current store writes nothing: `anchor corpora` and retrieval answer at once from
    the last committed corpus while a long ingest holds the write lock (they used to wait 60 s)."""
    import sqlite3
    import time

    from anchor_core.cli import main
    from anchor_core.indexing import ingest

    path = tmp_path / "home" / "anchor.db"
    ingest(SQLiteStore(path), embedder, small_corpus, corpus="widgets", adapter="test")
    writer = sqlite3.connect(str(path), isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # what a running ingest holds
    try:
        t0 = time.perf_counter()
        store = SQLiteStore(path)
        assert [c.name for c in store.corpora()] == ["widgets"]
        assert main(["corpora"]) == 0 and "widgets" in capsys.readouterr().out
        assert time.perf_counter() - t0 < 5
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_document_replace_patches_the_vector_matrix_instead_of_reloading_it(tmp_path, monkeypatch):
    """The first query after an upload does not re-read every vector of the corpus."""
    from anchor_core.embeddings import HashEmbedder
    from tests.stores.contract import ReplaceDocumentsContract, _doc_parts

    store = SQLiteStore(tmp_path / "a.db")
    put = ReplaceDocumentsContract()._put
    put(store, "up", [_doc_parts("a", ["Premiums are due monthly."]), _doc_parts("b", ["Travel is booked."])])
    q = HashEmbedder().embed(["Premiums are due monthly."])[0]
    store.search_vector("up", q, 5, Filters())  # the matrix is loaded once
    reads = []
    real = store._rows
    monkeypatch.setattr(store, "_rows", lambda sql, params=(): (reads.append(sql), real(sql, params))[1])
    put(store, "up", [_doc_parts("c", ["Claims are paid in 30 days."])], remove=["a"])
    hits = store.search_vector("up", q, 5, Filters())
    assert not any("vector FROM chunks" in sql for sql in reads)
    assert sorted(h[0].split("/")[0] for h in hits) == ["b", "c"]
    other = SQLiteStore(tmp_path / "a.db")  # a second process still sees the same vectors, loaded fresh
    assert other.search_vector("up", q, 5, Filters()) == hits
