"""A persistent cache of chunk embeddings keyed by (model, text), so re-ingesting a corpus
only embeds the chunks whose text changed. Lives beside the store in the workspace.

Vectors are written as each batch comes out of the model, not at the end: an upload that is
interrupted (Ctrl-C, a crash, a closed browser tab) resumes where it stopped, embedding only
the chunks no earlier run reached."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from anchor_core.embeddings import Embedder, Progress


def _key(model_id: str, text: str) -> bytes:
    return hashlib.sha256(f"{model_id}\x00{text}".encode()).digest()


class CachedEmbedder:
    """Wraps an embedder; vectors already computed for the same model and text are reused.

    Args:
        inner: the embedder that computes missing vectors.
        path: the cache database (created if absent).
        batch: texts handed to ``inner`` at a time; each batch's vectors are committed to the
            cache before the next starts.
    """

    def __init__(self, inner: Embedder, path: str | Path, *, batch: int = 256) -> None:
        if batch <= 0:
            raise ValueError(f"batch must be greater than 0. Currently, the batch is {batch}")
        self.inner = inner
        self.batch = batch
        self.model_id = inner.model_id
        self.dim = inner.dim
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS rates (model TEXT PRIMARY KEY, per_s REAL NOT NULL)")
        self._db.commit()
        self._batches = 0
        self._lock = threading.Lock()
        self.hits = 0

    def _found(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                batch = keys[i:i + 500]
                rows = self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(batch))})",
                                        batch).fetchall()
                found.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        return {k: v for k, v in found.items() if v.shape[0] == self.dim}

    def throughput(self) -> float | None:
        """Chunks per second this model reached on earlier batches (any process), or None."""
        with self._lock:
            row = self._db.execute("SELECT per_s FROM rates WHERE model = ?", (self.model_id,)).fetchone()
        return float(row[0]) if row else None

    def _record(self, n: int, seconds: float) -> None:
        # The first batch of a process carries the model load; tiny batches are mostly overhead.
        self._batches += 1
        if self._batches == 1 or n < 16 or seconds <= 0:
            return
        old = self.throughput()
        rate = n / seconds if old is None else 0.5 * old + 0.5 * n / seconds
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO rates VALUES (?, ?)", (self.model_id, rate))

    def missing(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` (distinct) have no cached vector yet: the work left to do."""
        keys = list(dict.fromkeys(_key(self.model_id, t) for t in texts))
        return len(keys) - len(self._found(keys))

    def embed(self, texts: Sequence[str], *, progress: Progress | None = None) -> np.ndarray:
        keys = [_key(self.model_id, t) for t in texts]
        found = self._found(keys)
        self.hits = sum(k in found for k in keys)
        if progress and self.hits:
            progress(self.hits)
        todo = [i for i, k in enumerate(keys) if k not in found]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for b in range(0, len(todo), self.batch):
            part = todo[b:b + self.batch]
            t = time.perf_counter()
            fresh = self.inner.embed([texts[i] for i in part], progress=progress)
            self._record(len(part), time.perf_counter() - t)
            with self._lock, self._db:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                                     [(keys[i], fresh[j].astype(np.float32).tobytes()) for j, i in enumerate(part)])
            for j, i in enumerate(part):
                out[i] = fresh[j]
        for i, k in enumerate(keys):
            if k in found:
                out[i] = found[k]
        return out
