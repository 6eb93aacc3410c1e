"""Search indexes derived from the SQLite store of record, one directory per corpus version.

::

    anchor.db.idx/<corpus key>/<version>/
        meta.json      format, version, counts, dimension, int8 scale, document and kind names
        rows.npy       SQLite row id of each chunk (ascending): the key back into the store
        docs.npy       document code of each chunk (index into meta "documents")
        kinds.npy      kind code of each chunk (index into meta "kinds")
        vectors.npy    float32 vectors, memory-mapped by every reader (no BLOB is re-read)
        codes.npy      int8 copies of the vectors: the pre-filter of large corpora
        lexical/       tantivy index (anchor_core.stores.lexical)

A version directory is written under a temporary name and renamed into place in one step, and
it is never changed afterwards: a reader sees a whole version or none. The store writes the new
version's directory inside its write transaction, before the commit, so a process killed at any
moment leaves the committed version's directory in place (an uncommitted one is an orphan that
the next write removes). A directory that is missing or unreadable is rebuilt from SQLite.

Vector search is exact below :data:`EXACT_LIMIT` chunks. Above it, the int8 codes are scored for
every visible chunk (SIMD dot products, a quarter of the float32 bytes), the best
:data:`RESCORE` candidates are re-scored exactly from the float32 vectors, and the top k of
those are returned with their exact cosines; ``bench.scale`` measures the recall against exact
search.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from anchor_core.stores.lexical import LexicalIndex, Row

FORMAT = 1
EXACT_LIMIT = 20_000
"""Corpora up to this many chunks are searched exactly (a float32 scan of 20k × 384 is ~3 ms)."""
RESCORE = 256
"""Candidates from the int8 pre-filter that are re-scored exactly (at least 4 × k)."""
STALE_TMP_S = 3600


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, float]:
    """int8 codes of ``vectors`` with one scale for all (``codes ≈ vectors × scale``)."""
    peak = max(float(vectors.max()), -float(vectors.min())) if vectors.size else 0.0
    scale = 127.0 / peak if peak > 0 else 1.0
    scaled = np.multiply(vectors, np.float32(scale), dtype=np.float32)  # one temporary, changed in place
    np.rint(scaled, out=scaled)
    np.clip(scaled, -127, 127, out=scaled)
    return scaled.astype(np.int8), scale


def _codes(values: Iterable[str]) -> tuple[np.ndarray, list[str]]:
    names: dict[str, int] = {}
    codes = [names.setdefault(v, len(names)) for v in values]
    return np.asarray(codes, dtype=np.int32), list(names)


class Derived:
    """One corpus version's derived indexes, opened read-only (memory-mapped)."""

    def __init__(self, path: Path) -> None:
        meta = json.loads((path / "meta.json").read_text())
        if meta.get("format") != FORMAT:
            raise ValueError(f"derived index format {meta.get('format')} (this Anchor writes {FORMAT})")
        self.path = path
        self.version: str = meta["version"]
        self.dim: int = meta["dim"]
        self.scale: float = meta["scale"]
        self.doc_names: list[str] = meta["documents"]
        self.kind_names: list[str] = meta["kinds"]
        self.doc_code = {d: i for i, d in enumerate(self.doc_names)}
        self.rows = np.load(path / "rows.npy", mmap_mode="r")
        self.docs = np.load(path / "docs.npy", mmap_mode="r")
        self.kinds = np.load(path / "kinds.npy", mmap_mode="r")
        self.vectors = np.load(path / "vectors.npy", mmap_mode="r")
        self.codes = np.load(path / "codes.npy", mmap_mode="r") if (path / "codes.npy").exists() else None
        n = meta["chunks"]
        if not (len(self.rows) == len(self.docs) == len(self.kinds) == len(self.vectors) == n) or \
                (self.codes is not None and len(self.codes) != n):
            raise ValueError(f"derived index at {path} is incomplete")
        self.lexical = LexicalIndex(path / "lexical")
        self._masks: dict[tuple[frozenset[str] | None, tuple[str, ...]], np.ndarray | None] = {}
        if self.lexical.num_docs != n:
            raise ValueError(f"lexical index at {path} holds {self.lexical.num_docs} chunks, expected {n}")

    def __len__(self) -> int:
        return len(self.rows)

    def mask(self, documents: set[str] | None, exclude_kinds: Sequence[str]) -> np.ndarray | None:
        """Which chunks a filter lets through (None: all of them); the last few are kept, since a
        viewer asks many questions under one filter and a mask of a million chunks costs ms."""
        key = (None if documents is None else frozenset(documents), tuple(sorted(set(exclude_kinds))))
        if key in self._masks:
            return self._masks[key]
        mask = self._mask(documents, exclude_kinds)
        if len(self._masks) >= 8:
            self._masks.pop(next(iter(self._masks)))
        self._masks[key] = mask
        return mask

    def _mask(self, documents: set[str] | None, exclude_kinds: Sequence[str]) -> np.ndarray | None:
        mask = None
        if exclude_kinds:
            gone = [i for i, k in enumerate(self.kind_names) if k in set(exclude_kinds)]
            if gone:
                mask = ~np.isin(self.kinds, gone)
        if documents is not None:
            codes = [self.doc_code[d] for d in documents if d in self.doc_code]
            dm = np.isin(self.docs, codes)
            mask = dm if mask is None else mask & dm
        return mask

    def positions(self, rows: Sequence[int]) -> np.ndarray:
        """Positions of SQLite row ids in this index (-1 where absent)."""
        r = np.asarray(rows, dtype=np.int64)
        pos = np.searchsorted(self.rows, r)
        pos = np.minimum(pos, max(len(self.rows) - 1, 0))
        ok = (len(self.rows) > 0) & (np.asarray(self.rows[pos]) == r) if len(self.rows) else np.zeros(len(r), bool)
        return np.where(ok, pos, -1)

    def search_vector(self, q: np.ndarray, k: int, mask: np.ndarray | None) -> list[tuple[int, float]]:
        """Best ``k`` (row id, cosine) among the chunks ``mask`` allows, best first."""
        n_ok = int(mask.sum()) if mask is not None else len(self)
        k = min(k, n_ok)
        if k <= 0:
            return []
        if self.codes is None or len(self) <= EXACT_LIMIT:
            cand = None
            scores = np.asarray(self.vectors @ q)
        else:
            import numkong

            qc = np.clip(np.rint(q * (127.0 / max(float(np.abs(q).max()), 1e-12))), -127, 127).astype(np.int8)
            approx = np.asarray(numkong.cdist(self.codes, qc[None, :], metric="dot", out_dtype="float32")
                                ).reshape(-1)
            cand = top_candidates(approx, mask, min(n_ok, max(RESCORE, 4 * k)))
            scores = np.asarray(self.vectors[cand] @ q)
            mask = None
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        at = top if cand is None else cand[top]
        return [(int(self.rows[i]), float(scores[j])) for i, j in zip(at, top)]


def top_candidates(approx: np.ndarray, mask: np.ndarray | None, c: int) -> np.ndarray:
    """Positions of the ``c`` best pre-filter scores among those ``mask`` allows, ascending.

    A full partition of a million scores costs ~9 ms; instead a threshold is read off a strided
    sample (its 4·c/64-th best, so that about 4·c scores pass), the scores at or above it are
    kept, and only those are partitioned. When at least ``c`` allowed scores pass, the ``c``
    best are certainly among them (the c-th best is then at or above the threshold), so the
    result is the same as the full partition; otherwise it falls back to the full partition.
    """
    n = len(approx)
    stride = 64
    if n >= 4 * stride * c:  # a sample of at least 4·c scores
        sample = approx[::stride]
        want = min(len(sample), max(1, 4 * c // stride))
        threshold = np.partition(sample, len(sample) - want)[len(sample) - want]
        passed = np.flatnonzero(approx >= threshold)
        if mask is not None:
            passed = passed[mask[passed]]
        if len(passed) >= c:
            best = passed[np.argpartition(-approx[passed], c - 1)[:c]]
            return np.sort(best)
    scores = approx if mask is None else np.where(mask, approx, -np.inf)
    best = np.argpartition(-scores, c - 1)[:c]
    best = best[np.isfinite(scores[best])]
    return np.sort(best)


def _readable(path: Path) -> bool:
    try:
        Derived(path)
    except (OSError, ValueError, KeyError):
        return False
    return True


def _tmp(root: Path, version: str) -> Path:
    return root / f".tmp-{version}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def write(root: Path, version: str, rows: np.ndarray, docs: Sequence[str], kinds: Sequence[str],
          vectors: np.ndarray, lexical: Iterable[Row] | None = None,
          patch_from: tuple[Path, Sequence[str]] | None = None) -> Path:
    """Write the directory of corpus version ``version`` under ``root`` and move it into place.

    ``lexical`` rows build a new tantivy index; ``patch_from`` = (an older version's directory,
    documents to drop) starts from that one's index instead and adds ``lexical`` to it. Returns
    the final directory. If a readable one already exists (another process built the same
    version), that one is kept; a damaged one is replaced."""
    root.mkdir(parents=True, exist_ok=True)
    final = root / version
    tmp = _tmp(root, version)
    tmp.mkdir()
    try:
        order = np.argsort(rows, kind="stable")
        rows = np.asarray(rows, dtype=np.int64)[order]
        vectors = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32)[order])
        dim = vectors.shape[1] if vectors.ndim == 2 else 0
        doc_codes, doc_names = _codes(docs[i] for i in order)
        kind_codes, kind_names = _codes(kinds[i] for i in order)
        np.save(tmp / "rows.npy", rows)
        np.save(tmp / "docs.npy", doc_codes)
        np.save(tmp / "kinds.npy", kind_codes.astype(np.int16))
        np.save(tmp / "vectors.npy", vectors.reshape(len(rows), dim))
        scale = 1.0
        if len(rows) > EXACT_LIMIT and dim:
            codes, scale = quantize(vectors)
            np.save(tmp / "codes.npy", codes)
        if patch_from is not None:
            LexicalIndex.patch(patch_from[0] / "lexical", tmp / "lexical", patch_from[1], lexical or [])
        else:
            LexicalIndex.build(tmp / "lexical", lexical or [])
        meta = {"format": FORMAT, "version": version, "chunks": len(rows), "dim": dim, "scale": scale,
                "documents": doc_names, "kinds": kind_names}
        (tmp / "meta.json").write_text(json.dumps(meta))
        try:
            os.rename(tmp, final)
        except OSError:
            if _readable(final):
                shutil.rmtree(tmp, ignore_errors=True)  # built meanwhile by another process: same content
            else:  # a damaged folder of this version: set it aside (collected later), put ours in
                os.rename(final, _tmp(root, f"{version}-damaged"))
                os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def collect(root: Path, keep: str | None) -> None:
    """Remove the version directories under ``root`` other than ``keep`` (all when None), and
    temporary directories old enough to be a killed writer's. Processes that still have an
    older version open keep reading it: its files live on until they close them."""
    if not root.exists():
        return
    now = time.time()
    for p in root.iterdir():
        if p.name == keep:
            continue
        try:
            if p.name.startswith(".tmp-") and now - p.stat().st_mtime < STALE_TMP_S:
                continue
        except OSError:
            continue
        shutil.rmtree(p, ignore_errors=True)
    if keep is None:
        shutil.rmtree(root, ignore_errors=True)
