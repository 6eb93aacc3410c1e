"""An ingest killed with SIGKILL midway leaves the previous corpus answering."""

import os
import signal
import subprocess
import sys
import textwrap
import time

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


def test_sigkill_inside_the_replace_transaction(tmp_path, small_corpus):
    db = tmp_path / "ws" / "anchor.db"
    ingest(SQLiteStore(db), HashEmbedder(), small_corpus, corpus="c", adapter="test")
    marker = tmp_path / "marker"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(marker)], cwd=REPO)
    deadline = time.time() + 60
    while not marker.exists():
        assert child.poll() is None, "child ended before reaching the transaction"
        assert time.time() < deadline
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
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
        if info.adapter == "test":
            _answers(db, expected_units=3)
        else:
            assert info.units == 400
            found = store.search_bm25("c", ["replacement"], 5000, Filters())
            assert len({cid.split(":")[0] for cid, _ in found}) == 400
            return
