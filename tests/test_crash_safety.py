"""An ingest killed with SIGKILL midway leaves the previous corpus answering."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Filters
from anchor_core.retrieve import retrieve
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import REPO

CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.indexing import ingest
    from anchor_core.models import Document, ParsedCorpus, Unit
    from anchor_core.stores.sqlite import SQLiteStore

    db, marker = sys.argv[1], Path(sys.argv[2])
    original = SQLiteStore._delete

    def slow_delete(self, cur, name):
        original(self, cur, name)          # the old corpus is deleted inside the open transaction
        marker.write_text("in transaction")
        time.sleep(60)                      # ... and the parent kills us here

    SQLiteStore._delete = slow_delete
    units = [Unit(unit_id=f"u{i}", doc_id="d", kind="file", heading=f"U{i}", text=f"replacement text {i}")
             for i in range(50)]
    ingest(SQLiteStore(db), HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="d")], units=units),
           corpus="c", adapter="test")
""")


def _answers(db, expected_units: int) -> None:
    store = SQLiteStore(db)
    info = store.corpus("c")
    assert info.units == expected_units
    hits = retrieve("registered widgets", store=store, embedder=HashEmbedder(), corpus="c").hits
    assert hits and all(h.unit_id in {"article-1", "article-2", "annex-1"} for h in hits)
    assert store.search_bm25("c", ["replacement"], 5, Filters()) == []


def _kill_at_marker(code: str, db: Path, marker: Path, early: str) -> None:
    """Run ``code`` in a child on ``db``; SIGKILL it as soon as it writes ``marker`` (``early``: the
    failure message when it ends first)."""
    child = subprocess.Popen([sys.executable, "-c", code, str(db), str(marker)], cwd=REPO)
    deadline = time.time() + 60
    while not marker.exists():
        assert child.poll() is None, early
        assert time.time() < deadline
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()


def test_sigkill_inside_the_replace_transaction(tmp_path, small_corpus):
    db = tmp_path / "ws" / "anchor.db"
    ingest(SQLiteStore(db), HashEmbedder(), small_corpus, corpus="c", adapter="test")
    marker = tmp_path / "marker"
    _kill_at_marker(CHILD, db, marker, "child ended before reaching the transaction")
    _answers(db, expected_units=3)


def test_sigkill_at_random_moments_of_a_cli_ingest(tmp_path, small_corpus):
    db_home = tmp_path / "home"
    db = db_home / "anchor.db"
    ingest(SQLiteStore(db), HashEmbedder(), small_corpus, corpus="c", adapter="test")
    folder = tmp_path / "big"
    folder.mkdir()
    for i in range(400):
        (folder / f"doc{i}.md").write_text(f"# Doc {i}\n\n" + "replacement paragraph text. " * 200)
    env = {**os.environ, "ANCHOR_HOME": str(db_home), "ANCHOR_EMBEDDER": "hash"}
    for delay in (0.8, 1.5, 2.5):
        child = subprocess.Popen([sys.executable, "-m", "anchor_core.cli", "ingest", "files", "--path", str(folder),
                                  "--corpus", "c", "-q"], cwd=REPO, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()
        store = SQLiteStore(db)
        info = store.corpus("c")
        # Either the old corpus, whole, or the new one, whole: never a mix.
        _index_matches_store(db)
        if info.adapter == "test":
            _answers(db, expected_units=3)
        else:
            assert info.units == 400
            found = store.search_bm25("c", ["replacement"], 5000, Filters())
            assert len({cid.split(":")[0] for cid, _ in found}) == 400
            return


def _index_matches_store(db) -> None:
    """The lexical and vector indexes of the committed version hold exactly the stored chunks."""
    store = SQLiteStore(db)
    for info in store.corpora():
        d = store._index(info.name)
        assert d.version == info.version
        rows = [r[0] for r in store._rows("SELECT id FROM chunks WHERE corpus = ? ORDER BY id", (info.name,))]
        assert list(d.rows) == rows and d.lexical.num_docs == len(rows) == info.chunks


INDEX_CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.indexing import ingest
    from anchor_core.models import Document, ParsedCorpus, Unit
    from anchor_core.stores import derived
    from anchor_core.stores.sqlite import SQLiteStore

    db, marker = sys.argv[1], Path(sys.argv[2])
    original = derived.write

    def slow_write(*args, **kwargs):
        path = original(*args, **kwargs)   # the new version's indexes are in place ...
        marker.write_text(str(path))
        time.sleep(60)                      # ... the SQLite commit is not: the parent kills us here
        return path

    derived.write = slow_write
    units = [Unit(unit_id=f"u{i}", doc_id="d", kind="file", heading=f"U{i}", text=f"replacement text {i}")
             for i in range(50)]
    ingest(SQLiteStore(db), HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="d")], units=units),
           corpus="c", adapter="test")
""")


def test_sigkill_after_the_new_index_is_in_place_but_before_the_commit(tmp_path, small_corpus):
    """The uncommitted version's index folder is an orphan: readers use the committed version's,
    and the next write removes the orphan."""
    db = tmp_path / "ws" / "anchor.db"
    ingest(SQLiteStore(db), HashEmbedder(), small_corpus, corpus="c", adapter="test")
    marker = tmp_path / "marker"
    _kill_at_marker(INDEX_CHILD, db, marker, "child ended before writing the index")
    orphan = Path(marker.read_text())
    assert orphan.exists()
    _answers(db, expected_units=3)
    _index_matches_store(db)
    ingest(SQLiteStore(db), HashEmbedder(), small_corpus, corpus="c", adapter="test")
    assert not orphan.exists()


UPLOAD_CHILD = textwrap.dedent("""
    import sys
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.indexing import Change, resolve_references, write
    from anchor_core.chunking import chunk_unit
    from anchor_core.models import Document, Unit
    from anchor_core.stores.sqlite import SQLiteStore

    store, e = SQLiteStore(sys.argv[1]), HashEmbedder()
    for i in range(10_000):  # documents are added, and every third replaced, until we are killed
        doc_id = f"doc{i % 3 if i % 3 == 0 else i}"
        u = Unit(unit_id=f"{doc_id}-u", doc_id=doc_id, kind="file", heading=doc_id,
                 text=f"marker{doc_id} version{i} " + "filler words here. " * 40)
        chunks = chunk_unit(u)
        prev = store.corpora()[0] if store.corpora() else None
        write(store, e, Change([Document(doc_id=doc_id)], [u], chunks, e.embed([c.embed_text for c in chunks]), []),
              corpus="c", prev=prev)
""")


def test_sigkill_at_random_moments_of_document_uploads(tmp_path):
    """Document replaces (uploads) patch the previous version's indexes; killed at any moment, the
    committed version's indexes hold exactly the stored chunks, and every stored document (and
    no other) is found by its marker word through both searches."""
    import random

    db = tmp_path / "ws" / "anchor.db"
    rng = random.Random(15)
    for _ in range(4):
        child = subprocess.Popen([sys.executable, "-c", UPLOAD_CHILD, str(db)], cwd=REPO,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(1.5, 4.0))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        if not db.exists() or not SQLiteStore(db).corpora():
            continue
        _index_matches_store(db)
        store = SQLiteStore(db)
        docs = {d.doc_id for d in store.documents("c")}
        for doc in docs:
            hits = store.search_bm25("c", [f"marker{doc}"], 5, Filters())
            assert [cid.split("-")[0] for cid, _ in hits] == [doc]
            chunk = store.unit_chunks("c", f"{doc}-u", Filters())[0]
            q = HashEmbedder().embed([chunk.embed_text])[0]
            assert store.search_vector("c", q, 1, Filters())[0][0] == chunk.chunk_id
    assert SQLiteStore(db).corpus("c").documents > 1
