"""One indexing path: the core indexes what the shells parsed, full replaces and incremental
writes build the corpus record in one function, and its counts stay true through mixed
adapter/upload corpora and deletes."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Filters
from anchor_core.stores.sqlite import SQLiteStore
from anchor_core.workspace import delete_document
from ingest.uploads import ingest_uploads
from tests.pyparse import parse

REPO = Path(__file__).resolve().parents[1]
SHELLS = {"cli.py", "workspace.py"}


def _imports(path: Path) -> set[str]:
    tree = parse(path.read_text(), str(path))
    out = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    return out | {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}


def test_only_the_shells_look_adapters_up():
    core = [p for p in (REPO / "anchor_core").rglob("*.py") if p.name not in SHELLS]
    offenders = [str(p.relative_to(REPO)) for p in core if any(m == "ingest" or m.startswith("ingest.")
                                                                 for m in _imports(p))]
    assert offenders == []


def test_uploads_do_not_build_the_corpus_record_themselves():
    tree = parse((REPO / "ingest" / "uploads" / "pipeline.py").read_text())
    calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert "CorpusInfo" not in calls and "write" in calls


def _true_counts(store, corpus):
    ids = store.unit_ids(corpus)
    refs = store.references(corpus)
    chunks = sum(len(v) for v in store.units_chunks(corpus, ids, Filters()).values())
    return (len(store.documents(corpus)), len(ids), chunks, sum(r.resolved for r in refs),
            sum(not r.resolved for r in refs))


def _counts(info):
    return (info.documents, info.units, info.chunks, info.references, info.unresolved)


def test_counts_stay_true_through_uploads_into_an_adapter_corpus_and_deletes(tmp_path, small_corpus):
    store = SQLiteStore(tmp_path / "a.db")
    e = HashEmbedder()
    ingest(store, e, small_corpus, corpus="w", adapter="test")
    assert _counts(store.corpus("w")) == _true_counts(store, "w") == (1, 3, 6, 1, 1)
    ingest_uploads(store, e, [("Widget Guide.md", b"# Widget Guide\n\n## 1. Use\n\nRead clause 2.\n\n## 2. Care\n\n"
                                                   b"Clean widgets weekly.\n"),
                              ("notes.txt", b"Notes\n\nThe Widget Guide explains care.\n")], corpus="w")
    info = store.corpus("w")
    assert info.adapter == "test" and _counts(info) == _true_counts(store, "w")
    assert info.references == 1 + 2  # the adapter's, clause 2, the guide named in the notes
    ingest_uploads(store, e, [("Widget Guide.md", b"# Widget Guide\n\n## 1. Use\n\nOnly one clause now.\n")],
                   corpus="w")
    assert _counts(store.corpus("w")) == _true_counts(store, "w")
    delete_document(store, "w", "widget-guide")
    assert _counts(store.corpus("w")) == _true_counts(store, "w")
    assert [r.resolved for r in store.references("w") if r.src_unit.startswith("notes")] == [False]
    info = ingest(store, e, small_corpus, corpus="w", adapter="test")  # a full replace, same function
    assert _counts(info) == _true_counts(store, "w") == (1, 3, 6, 1, 1)


def test_embed_rate_counts_the_models_chunks_not_the_cached_ones():
    from anchor_core.indexing import EmbedRate

    r = EmbedRate()
    assert r.update(900, 1000, now=10.0) == ""  # 900 from the cache at once: no rate yet
    assert r.update(900, 1000, now=11.0) == ""
    assert r.update(950, 1000, now=12.5) == "20.0 chunks/s, 2 s left"
    slow = EmbedRate()
    slow.update(0, 200_000, now=0.0)
    assert slow.update(20, 200_000, now=1.0) == "20.0 chunks/s, 2.8 h left"


def test_the_ingest_progress_bar_shows_rate_and_time_left(monkeypatch, capsys):
    from anchor_core import embeddings
    from anchor_core.cli import main

    real = embeddings.HashEmbedder.embed

    def slow(self, texts, *, progress=None):  # several timed reports, like the model's batches
        out = []
        for i in range(0, len(texts), 8):
            out.append(real(self, texts[i:i + 8], progress=progress))
        return np.vstack(out)

    monkeypatch.setattr(embeddings.HashEmbedder, "embed", slow)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["ingest", "aiact"]) == 0
    err = capsys.readouterr().err
    assert "chunks/s" in err and " left" in err


def test_the_source_parse_outlasts_cpython_s_shared_recursion_counter(monkeypatch):
    import pytest

    from tests import pyparse

    real = ast.parse
    calls = []

    def flaky(source, filename="<unknown>"):
        calls.append(filename)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=126, after=46)")
        return real(source, filename=filename)

    monkeypatch.setattr(pyparse.ast, "parse", flaky)
    assert isinstance(pyparse.parse("import os"), ast.Module) and len(calls) == 2
    monkeypatch.setattr(pyparse.ast, "parse", lambda *a, **k: (_ for _ in ()).throw(SystemError("other")))
    with pytest.raises(SystemError, match="other"):
        pyparse.parse("import os")
