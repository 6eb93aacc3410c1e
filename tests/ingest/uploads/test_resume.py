"""An interrupted upload resumes: the embedding cache keeps every batch computed before the
interruption, the re-run embeds only the rest, and the store ends as after an uninterrupted run."""

from __future__ import annotations

import numpy as np
import pytest

from anchor_core.embed_cache import CachedEmbedder
from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import CorpusNotFound
from anchor_core.models import Filters
from anchor_core.stores.sqlite import SQLiteStore
from ingest.uploads import ingest_uploads


class Interrupted(HashEmbedder):
    """Counts the texts it embeds; raises KeyboardInterrupt (Ctrl-C) on batch ``stop_at`` when set."""

    def __init__(self, stop_at: int | None = None) -> None:
        super().__init__()
        self.stop_at, self.batches, self.texts = stop_at, 0, 0

    def embed(self, texts, *, progress=None):
        if self.stop_at is not None and self.batches == self.stop_at:
            raise KeyboardInterrupt
        self.batches += 1
        self.texts += len(texts)
        return super().embed(texts, progress=progress)


def _contract(n: int) -> bytes:
    clauses = "\n".join(f"{i}. Clause {i}\nThe Supplier keeps record {i} of the service for audit, see "
                        f"clause {max(1, i - 1)}." for i in range(1, n + 1))
    return f"SERVICES AGREEMENT\n{clauses}\n".encode()


def _content(store: SQLiteStore, corpus: str):
    ids = store.unit_ids(corpus)
    chunks = store.units_chunks(corpus, ids, Filters())
    chunk_ids = [c.chunk_id for cs in chunks.values() for c in cs]
    info = store.corpus(corpus)
    return (ids, list(store.get_units(corpus, ids).values()), chunks, store.references(corpus),
            (info.documents, info.units, info.chunks, info.references, info.unresolved),
            store.chunk_vectors(corpus, chunk_ids))


def test_an_interrupted_upload_resumes_with_the_vectors_already_computed(tmp_path):
    data = _contract(40)
    store = SQLiteStore(tmp_path / "anchor.db")
    first = Interrupted(stop_at=3)
    with pytest.raises(KeyboardInterrupt):
        ingest_uploads(store, CachedEmbedder(first, tmp_path / "cache.db", batch=8), [("msa.txt", data)],
                       corpus="c")
    with pytest.raises(CorpusNotFound):
        store.corpus("c")  # nothing stored: the write comes after embedding
    assert first.texts == 24  # three batches of eight reached the cache

    second = Interrupted()
    [res] = ingest_uploads(store, CachedEmbedder(second, tmp_path / "cache.db", batch=8), [("msa.txt", data)],
                           corpus="c")
    assert res.status == "ingested" and res.chunks > 24
    assert res.estimate is not None and res.estimate.cached == 24  # the estimate said what was left
    assert second.texts == res.chunks - 24  # only the remainder was embedded

    clean = SQLiteStore(tmp_path / "clean.db")
    ingest_uploads(clean, HashEmbedder(), [("msa.txt", data)], corpus="c")
    got, want = _content(store, "c"), _content(clean, "c")
    assert got[:5] == want[:5]
    assert np.allclose(got[5], want[5])
