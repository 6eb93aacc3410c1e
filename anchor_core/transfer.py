"""Move a corpus between stores as one JSONL file (``anchor export-corpus`` / ``import-corpus``).

Line 1 is a header (format, version, the :class:`CorpusInfo`); then one line per document,
unit, chunk (with its vector as base64 float32, exact) and reference; the last line is an
``end`` record with the counts, so a truncated file is refused instead of half-imported.
Only the Store protocol is used, so any store exports to any other (SQLite → Elasticsearch).
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from anchor_core.errors import AnchorError
from anchor_core.models import Chunk, CorpusInfo, Document, Reference, Unit
from anchor_core.stores.base import Store

FORMAT = "anchor-corpus"
VERSION = 1
BATCH = 500


def _records(store: Store, name: str) -> Iterator[dict[str, Any]]:
    info = store.corpus(name)
    yield {"format": FORMAT, "version": VERSION, "corpus": info.model_dump(mode="json")}
    counts = {"document": 0, "unit": 0, "chunk": 0, "reference": 0}
    for d in store.documents(name):
        counts["document"] += 1
        yield {"record": "document", "data": d.model_dump(mode="json")}
    unit_ids = store.unit_ids(name)
    from anchor_core.models import Filters

    for i in range(0, len(unit_ids), BATCH):
        batch = unit_ids[i:i + BATCH]
        units = store.get_units(name, batch)
        chunks_of = store.units_chunks(name, batch, Filters())
        for uid in batch:
            counts["unit"] += 1
            yield {"record": "unit", "data": units[uid].model_dump(mode="json")}
        chunks = [c for uid in batch for c in chunks_of[uid]]
        vectors = store.chunk_vectors(name, [c.chunk_id for c in chunks]) if chunks else np.empty((0, 0))
        for c, v in zip(chunks, vectors):
            counts["chunk"] += 1
            yield {"record": "chunk", "data": c.model_dump(mode="json"),
                   "vector": base64.b64encode(np.asarray(v, dtype="<f4").tobytes()).decode()}
    for r in store.references(name):
        counts["reference"] += 1
        yield {"record": "reference", "data": r.model_dump(mode="json")}
    yield {"record": "end", "counts": counts}


def export_corpus(store: Store, name: str, path: Path) -> dict[str, int]:
    """Write corpus ``name`` to ``path`` (JSONL); returns the record counts."""
    tmp = path.with_name(path.name + ".partial")
    counts: dict[str, int] = {}
    try:
        with tmp.open("w", encoding="utf-8") as f:
            for rec in _records(store, name):
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
                if rec.get("record") == "end":
                    counts = rec["counts"]
        tmp.replace(path)  # a reader never sees a half-written export under the real name
    except OSError as err:
        raise AnchorError(f"cannot write the export {path}: {err.strerror}") from err
    finally:
        # a failed export (no such corpus, a store error, a full disk) leaves nothing behind; an existing file of the
        # same name is untouched
        tmp.unlink(missing_ok=True)
    return counts


def read_export(path: Path) -> tuple[CorpusInfo, list[Document], list[Unit], list[Chunk], np.ndarray,
                                     list[Reference]]:
    """Parse and check an export file. Raises :class:`AnchorError` naming the line on bad input."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise AnchorError(f"cannot read the export {path}: {err}") from err
    if not lines:
        raise AnchorError(f"{path} is empty; export a corpus with `anchor export-corpus NAME FILE`")
    docs: list[Document] = []
    units: list[Unit] = []
    chunks: list[Chunk] = []
    vectors: list[np.ndarray] = []
    refs: list[Reference] = []
    end: dict[str, int] | None = None
    info: CorpusInfo | None = None
    for n, line in enumerate(lines, start=1):
        try:
            rec = json.loads(line)
            if n == 1:
                if rec.get("format") != FORMAT or rec.get("version") != VERSION:
                    raise AnchorError(f"{path} is not an Anchor corpus export (format {FORMAT} v{VERSION})")
                info = CorpusInfo.model_validate(rec["corpus"])
                continue
            kind = rec.get("record")
            if kind == "document":
                docs.append(Document.model_validate(rec["data"]))
            elif kind == "unit":
                units.append(Unit.model_validate(rec["data"]))
            elif kind == "chunk":
                chunks.append(Chunk.model_validate(rec["data"]))
                vectors.append(np.frombuffer(base64.b64decode(rec["vector"]), dtype="<f4").astype(np.float32))
            elif kind == "reference":
                refs.append(Reference.model_validate(rec["data"]))
            elif kind == "end":
                end = rec["counts"]
            else:
                raise AnchorError(f"{path} line {n}: unknown record {kind!r}")
        except AnchorError:
            raise
        except (ValueError, KeyError, TypeError) as err:
            raise AnchorError(f"{path} line {n} is not a valid export record: {err}") from err
    got = {"document": len(docs), "unit": len(units), "chunk": len(chunks), "reference": len(refs)}
    if end is None or end != got:
        raise AnchorError(f"{path} is incomplete (expected {end}, found {got}); export the corpus again.")
    if info is None:  # pragma: no cover - line 1 always sets it or raises
        raise AnchorError(f"{path} has no header line")
    dims = {len(v) for v in vectors}
    if len(dims) > 1 or (dims and info.dim and dims != {info.dim}):
        raise AnchorError(f"{path} has vectors of {sorted(dims)} dimensions but the corpus says {info.dim}")
    matrix = np.vstack(vectors) if vectors else np.zeros((0, info.dim or 384), np.float32)
    return info, docs, units, chunks, matrix, refs


def import_corpus(store: Store, path: Path, name: str | None = None) -> CorpusInfo:
    """Load an export into ``store`` as corpus ``name`` (default: the exported name), replacing a
    corpus of that name atomically. The vectors are imported as they are, so the corpus keeps
    its embedder; retrieval checks that the query embedder matches."""
    info, docs, units, chunks, vectors, refs = read_export(path)
    info = info.model_copy(update={"name": name or info.name, "version": uuid.uuid4().hex})
    store.replace_corpus(info, docs, units, chunks, vectors, refs)
    return info
