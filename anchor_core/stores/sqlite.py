"""Embedded store: one SQLite file per workspace.

- SQLite is the store of record: units, chunks, float32 vectors as BLOBs, references, and an
  FTS5 table per corpus (``units_with_words``).
- Search runs on indexes derived from it per corpus version (:mod:`anchor_core.stores.derived`):
  BM25 top-k from tantivy, vectors memory-mapped from a file, so a new process reads no BLOB.
  A reader compares the corpus version in the database with the one it has open, which is how
  a write by another process becomes visible; a missing derived directory is rebuilt from SQLite.
- Access filters are part of the lexical query and a boolean mask on the vectors, applied
  before the top-k cut, so a filtered query ranks only what it may see.
- ``replace_corpus`` is one transaction in WAL mode: a crash or SIGKILL midway rolls back to
  the previous corpus. The new version's derived directory is moved into place before the
  commit, so whatever version is committed has its indexes. ``replace_documents`` swaps single
  documents inside a corpus the same way (uploads), patching the previous version's indexes.
- Chunks keep the PDF pages they come from (``page``/``page_end``, layout 3); a reference keeps
  the container it was written against (``container``, layout 4).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from anchor_core.config import SQLiteSettings
from anchor_core.errors import CorpusNotFound, StoreError
from anchor_core.models import Chunk, CorpusInfo, Document, Filters, Reference, Unit
from anchor_core.stores import derived
from anchor_core.stores.base import check_content
from anchor_core.stores.derived import Derived

log = logging.getLogger(__name__)

LAYOUT = 4
"""Store layout: 2 = one FTS5 table per corpus version; 3 = chunk ``page``/``page_end`` columns;
4 = reference ``container`` column."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS corpora (
    name TEXT PRIMARY KEY, version TEXT NOT NULL, info TEXT NOT NULL, fts TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    corpus TEXT NOT NULL, doc_id TEXT NOT NULL, public INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (corpus, doc_id));
CREATE TABLE IF NOT EXISTS doc_groups (corpus TEXT NOT NULL, doc_id TEXT NOT NULL, grp TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS doc_groups_by_grp ON doc_groups (corpus, grp);
CREATE TABLE IF NOT EXISTS units (
    corpus TEXT NOT NULL, unit_id TEXT NOT NULL, doc_id TEXT NOT NULL, kind TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (corpus, unit_id));
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, corpus TEXT NOT NULL, chunk_id TEXT NOT NULL, unit_id TEXT NOT NULL,
    doc_id TEXT NOT NULL, kind TEXT NOT NULL, part TEXT, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    text TEXT NOT NULL, lead TEXT NOT NULL, vector BLOB, page INTEGER, page_end INTEGER);
CREATE UNIQUE INDEX IF NOT EXISTS chunks_by_id ON chunks (corpus, chunk_id);
CREATE INDEX IF NOT EXISTS chunks_by_unit ON chunks (corpus, unit_id);
CREATE TABLE IF NOT EXISTS refs (
    corpus TEXT NOT NULL, src_unit TEXT NOT NULL, src_part TEXT, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, raw TEXT NOT NULL, dst_unit TEXT, dst_part TEXT, resolved INTEGER NOT NULL,
    in_title INTEGER NOT NULL DEFAULT 0, container TEXT);
CREATE INDEX IF NOT EXISTS refs_by_src ON refs (corpus, src_unit);
CREATE INDEX IF NOT EXISTS refs_by_dst ON refs (corpus, dst_unit);
"""

DOC_INDEXES = """
CREATE INDEX IF NOT EXISTS units_by_doc ON units (corpus, doc_id);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks (corpus, doc_id);
CREATE INDEX IF NOT EXISTS doc_groups_by_doc ON doc_groups (corpus, doc_id);
"""
"""Lookups by document (document replaces, uploads), so a replace reads the document's rows and
not the corpus's. Created by the first document replace of a store that lacks them, inside its
transaction: opening a store stays read-only, and the layout number does not change."""


def _fts_term(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class SQLiteStore:
    """The embedded default store. Thread-safe for the dashboard's threads."""

    @classmethod
    def from_settings(cls, settings: SQLiteSettings) -> SQLiteStore:
        return cls(settings.path)

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA synchronous=NORMAL")
            # Opening a store that is already current writes nothing, so a reader (anchor
            # retrieve, the dashboard) never waits behind a long ingest holding the write lock;
            # WAL lets it read the last committed corpus meanwhile.
            current = self._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
            if not current:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.executescript(SCHEMA)
            columns = {r[1] for r in self._db.execute("PRAGMA table_info(corpora)")}
        except sqlite3.DatabaseError as err:
            raise StoreError(f"cannot open the store at {self.path}: {err}. If the file is damaged, move it "
                             "away and ingest again; set ANCHOR_HOME to use another workspace.") from err
        if "fts" not in columns:
            raise StoreError(f"the store at {self.path} was written by an older Anchor (one shared full-text "
                             "index); move the file away and ingest again.")
        if not current:
            self._migrate()
        self._lock = threading.RLock()
        self._derived: dict[str, Derived] = {}
        self.index_root = self.path.with_name(self.path.name + ".idx")
        """Where the derived search indexes live (one folder per corpus, one per version inside)."""

    def _migrate(self) -> None:
        """Layout 3 added the chunk page columns (PDF provenance), layout 4 the reference container.
        They are nullable, so an older store is upgraded in place: its chunks simply have no page
        and its references no container (a new ingest records them)."""
        chunk_cols = {r[1] for r in self._db.execute("PRAGMA table_info(chunks)")}
        for col in ("page", "page_end"):
            if col not in chunk_cols:
                self._db.execute(f"ALTER TABLE chunks ADD COLUMN {col} INTEGER")
        if "container" not in {r[1] for r in self._db.execute("PRAGMA table_info(refs)")}:
            self._db.execute("ALTER TABLE refs ADD COLUMN container TEXT")
        self._db.execute(f"PRAGMA user_version = {LAYOUT}")

    def close(self) -> None:
        self._db.close()

    # -- writing --------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Cursor]:
        """One write transaction: taken at once (``BEGIN IMMEDIATE``), committed when the block
        ends, rolled back on any error."""
        with self._lock:
            cur = self._db.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE")
                yield cur
                cur.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    cur.execute("ROLLBACK")
                raise

    def _corpus_dir(self, name: str) -> Path:
        return self.index_root / hashlib.sha256(name.encode()).hexdigest()[:20]

    def _committed(self, name: str, path: Path | None, version: str | None) -> None:
        """After a commit: open the new version's indexes, drop every other version's folder."""
        self._derived.pop(name, None)
        if path is not None:
            try:
                self._derived[name] = Derived(path)
            except (OSError, ValueError) as err:  # rebuilt on the next query
                log.warning("derived index of corpus %s unreadable after writing it: %s", name, err)
        derived.collect(self._corpus_dir(name), keep=version)

    def replace_corpus(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                       chunks: list[Chunk], vectors: np.ndarray, references: list[Reference]) -> None:
        check_content(chunks, vectors)
        vecs = np.asarray(vectors, dtype=np.float32)
        name = info.name
        self._check_version(info.version)
        with self._write() as cur:
            self._delete(cur, name)
            first = cur.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0]
            rows = np.arange(first, first + len(chunks), dtype=np.int64)
            # The derived indexes (tantivy, vector files) need only the row ids, which are known
            # now: they are built in a thread while SQLite inserts (both release the GIL for most
            # of their work), and the transaction commits only once both are done.
            with ThreadPoolExecutor(1, thread_name_prefix="anchor-derived") as pool:
                build = pool.submit(
                    derived.write, self._corpus_dir(name), info.version, rows, [c.doc_id for c in chunks],
                    [c.kind for c in chunks], vecs.reshape(len(chunks), -1) if len(chunks) else
                    np.zeros((0, info.dim or 1), np.float32), _lexical_rows(rows, chunks))
                try:
                    self._insert_documents(cur, name, documents, units)
                    # One FTS5 table per corpus version: BM25 statistics (IDF, average length) are the
                    # corpus's own, and a search never walks another corpus's postings.
                    fts = self._create_fts(cur, info.version)
                    self._insert_chunks(cur, name, fts, chunks, vecs, first)
                    self._insert_refs(cur, name, references)
                    cur.execute("INSERT INTO corpora VALUES (?, ?, ?, ?)",
                                (name, info.version, info.model_dump_json(), fts))
                except BaseException:
                    wait([build])  # never leave a half-written folder behind a rolled-back write
                    raise
                path = build.result()
        self._committed(name, path, info.version)

    @staticmethod
    def _insert_documents(cur: sqlite3.Cursor, name: str, documents: list[Document], units: list[Unit]) -> None:
        cur.executemany(
            "INSERT INTO documents VALUES (?, ?, ?, ?)",
            [(name, d.doc_id, int(not d.groups), d.model_dump_json()) for d in documents])
        cur.executemany("INSERT INTO doc_groups VALUES (?, ?, ?)",
                        [(name, d.doc_id, g) for d in documents for g in d.groups])
        cur.executemany("INSERT INTO units VALUES (?, ?, ?, ?, ?)",
                        [(name, u.unit_id, u.doc_id, u.kind, u.model_dump_json()) for u in units])

    @staticmethod
    def _insert_chunks(cur: sqlite3.Cursor, name: str, fts: str, chunks: list[Chunk], vecs: np.ndarray,
                       first: int | None = None) -> np.ndarray:
        """Insert the chunks with consecutive new row ids from ``first`` (default: after the last
        one; returned) and their full-text rows."""
        if first is None:
            first = cur.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0]
        cur.executemany(
            'INSERT INTO chunks (id, corpus, chunk_id, unit_id, doc_id, kind, part, start, "end", text, '
            "lead, vector, page, page_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(first + i, name, c.chunk_id, c.unit_id, c.doc_id, c.kind, c.part, c.start, c.end, c.text,
              c.lead, v.tobytes(), c.page, c.page_end) for i, (c, v) in enumerate(zip(chunks, vecs))])
        cur.execute(f"INSERT INTO {fts} (rowid, body) SELECT id, lead || char(10) || text FROM chunks "
                    "WHERE id >= ? AND id < ?", (first, first + len(chunks)))
        return np.arange(first, first + len(chunks), dtype=np.int64)

    @staticmethod
    def _check_version(version: str) -> None:
        if not version.replace("_", "").isalnum():
            raise ValueError(f"corpus version must be alphanumeric, got {version!r}")

    @classmethod
    def _create_fts(cls, cur: sqlite3.Cursor, version: str) -> str:
        """The full-text table of one corpus version (BM25 statistics are the corpus's own)."""
        cls._check_version(version)
        fts = f"fts_{version}"
        cur.execute(f"CREATE VIRTUAL TABLE {fts} USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')")
        return fts

    @staticmethod
    def _insert_refs(cur: sqlite3.Cursor, name: str, references: list[Reference]) -> None:
        cur.executemany(
            "INSERT INTO refs (corpus, src_unit, src_part, start, \"end\", raw, dst_unit, dst_part, resolved, "
            "in_title, container) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(name, r.src_unit, r.src_part, r.start, r.end, r.raw, r.dst_unit, r.dst_part,
              int(r.resolved), int(r.in_title), r.container) for r in references])

    def replace_documents(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                          chunks: list[Chunk], vectors: np.ndarray, references: list[Reference],
                          remove: Sequence[str] = (), ref_sources: Sequence[str] = ()) -> None:
        check_content(chunks, vectors, documents, units)
        vecs = np.asarray(vectors, dtype=np.float32)
        name = info.name
        gone = sorted({*remove, *(d.doc_id for d in documents)})
        sources = sorted(set(ref_sources))
        self._check_version(info.version)
        with self._write() as cur:
            for stmt in filter(str.strip, DOC_INDEXES.split(";")):
                cur.execute(stmt)
            row = cur.execute("SELECT fts, version FROM corpora WHERE name = ?", (name,)).fetchone()
            if row is None:
                fts, before = self._create_fts(cur, info.version), None
            else:
                # The corpus keeps its full-text table across document replaces; only the version
                # (which names the derived indexes) changes.
                fts, before = row
            old = self._open_derived(name, before) if before else None
            for i in range(0, len(gone), 500):
                batch = gone[i:i + 500]
                marks = ",".join("?" * len(batch))
                cur.execute(f"DELETE FROM {fts} WHERE rowid IN (SELECT id FROM chunks WHERE corpus = ? AND "
                            f"doc_id IN ({marks}))", [name, *batch])
                cur.execute(f"DELETE FROM refs WHERE corpus = ? AND src_unit IN (SELECT unit_id FROM units WHERE "
                            f"corpus = ? AND doc_id IN ({marks}))", [name, name, *batch])
                for table in ("chunks", "units", "documents", "doc_groups"):
                    cur.execute(f"DELETE FROM {table} WHERE corpus = ? AND doc_id IN ({marks})", [name, *batch])
            for i in range(0, len(sources), 500):
                batch = sources[i:i + 500]
                cur.execute(f"DELETE FROM refs WHERE corpus = ? AND src_unit IN ({','.join('?' * len(batch))})",
                            [name, *batch])
            self._insert_documents(cur, name, documents, units)
            rows = self._insert_chunks(cur, name, fts, chunks, vecs)
            self._insert_refs(cur, name, references)
            cur.execute("INSERT OR REPLACE INTO corpora VALUES (?, ?, ?, ?)",
                        (name, info.version, info.model_dump_json(), fts))
            path = self._patch_derived(cur, name, info, old, gone, rows, chunks, vecs)
        self._committed(name, path, info.version)

    def _patch_derived(self, cur: sqlite3.Cursor, name: str, info: CorpusInfo, old: Derived | None,
                       gone: list[str], rows: np.ndarray, chunks: list[Chunk], vecs: np.ndarray) -> Path:
        """The new version's derived folder from the previous one: its rows minus the replaced
        documents plus the new chunks, its lexical index patched, so an upload reads no stored
        vector. Without a previous one (or with vectors of another width), from SQLite."""
        if old is None or (len(old) and len(chunks) and old.dim != vecs.shape[1]):
            return self._build_derived(cur, name, info.version)
        gone_codes = [old.doc_code[d] for d in gone if d in old.doc_code]
        keep = ~np.isin(old.docs, gone_codes) if gone_codes else np.ones(len(old), bool)
        dim = old.dim if len(old) else (vecs.shape[1] if len(chunks) else old.dim)
        vectors = np.vstack([np.asarray(old.vectors[keep]).reshape(-1, dim), vecs.reshape(len(chunks), dim)])
        docs = [old.doc_names[c] for c in old.docs[keep]] + [c.doc_id for c in chunks]
        kinds = [old.kind_names[c] for c in old.kinds[keep]] + [c.kind for c in chunks]
        return derived.write(self._corpus_dir(name), info.version, np.concatenate([old.rows[keep], rows]), docs,
                             kinds, vectors, _lexical_rows(rows, chunks), patch_from=(old.path, gone))

    def _build_derived(self, cur: sqlite3.Cursor | sqlite3.Connection, name: str, version: str) -> Path:
        """Build the derived folder of ``name`` at ``version`` from what ``cur`` reads in SQLite."""
        data = cur.execute("SELECT id, doc_id, kind, lead, text, vector FROM chunks WHERE corpus = ? ORDER BY id",
                           (name,)).fetchall()
        info = cur.execute("SELECT info FROM corpora WHERE name = ?", (name,)).fetchone()
        dim = CorpusInfo.model_validate_json(info[0]).dim if info else 0
        if data:
            vectors = np.frombuffer(b"".join(r[5] for r in data), dtype=np.float32).reshape(len(data), -1)
        else:
            vectors = np.zeros((0, dim or 1), np.float32)
        rows = np.array([r[0] for r in data], dtype=np.int64)
        return derived.write(self._corpus_dir(name), version, rows, [r[1] for r in data], [r[2] for r in data],
                             vectors, ((r[0], r[1], r[2], f"{r[3]}\n{r[4]}") for r in data))

    def _open_derived(self, name: str, version: str) -> Derived | None:
        cached = self._derived.get(name)
        if cached is not None and cached.version == version:
            return cached
        path = self._corpus_dir(name) / version
        if not path.exists():
            return None
        try:
            return Derived(path)
        except (OSError, ValueError, KeyError) as err:
            log.warning("derived index %s unreadable (%s); rebuilding it from the store", path, err)
            return None

    def _delete(self, cur: sqlite3.Cursor, name: str) -> None:
        for (fts,) in cur.execute("SELECT fts FROM corpora WHERE name = ?", (name,)).fetchall():
            cur.execute(f"DROP TABLE IF EXISTS {fts}")
        for table in ("chunks", "units", "documents", "doc_groups", "refs", "corpora"):
            cur.execute(f"DELETE FROM {table} WHERE {'name' if table == 'corpora' else 'corpus'} = ?", (name,))

    def delete_corpus(self, name: str) -> None:
        self.corpus(name)
        with self._write() as cur:
            self._delete(cur, name)
        self._committed(name, None, None)

    # -- reading --------------------------------------------------------------------------

    def _rows(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def corpora(self) -> list[CorpusInfo]:
        return [CorpusInfo.model_validate_json(r[0]) for r in self._rows("SELECT info FROM corpora ORDER BY name")]

    def corpus(self, name: str) -> CorpusInfo:
        rows = self._rows("SELECT info FROM corpora WHERE name = ?", (name,))
        if not rows:
            known = [c.name for c in self.corpora()]
            hint = f"stored corpora: {', '.join(known)}" if known else "the store is empty"
            raise CorpusNotFound(f"no corpus named {name!r} in {self.path} ({hint}); "
                                 f"ingest it first, e.g. `anchor ingest aiact`.")
        return CorpusInfo.model_validate_json(rows[0][0])

    def _filter_sql(self, corpus: str, filters: Filters, alias: str = "c") -> tuple[str, list]:
        where = [f"{alias}.corpus = ?"]
        params: list = [corpus]
        if filters.exclude_kinds:
            where.append(f"{alias}.kind NOT IN ({','.join('?' * len(filters.exclude_kinds))})")
            params += filters.exclude_kinds
        if filters.documents is not None:
            where.append(f"{alias}.doc_id IN ({','.join('?' * len(filters.documents)) or 'NULL'})")
            params += filters.documents
        if filters.groups is not None:
            allowed = self._allowed_docs(corpus, filters.groups)
            where.append(f"{alias}.doc_id IN ({','.join('?' * len(allowed)) or 'NULL'})")
            params += sorted(allowed)
        return " AND ".join(where), params

    def _allowed_docs(self, corpus: str, groups: list[str]) -> set[str]:
        rows = self._rows("SELECT doc_id FROM documents WHERE corpus = ? AND public = 1", (corpus,))
        allowed = {r[0] for r in rows}
        if groups:
            rows = self._rows(f"SELECT doc_id FROM doc_groups WHERE corpus = ? AND grp IN "
                              f"({','.join('?' * len(groups))})", [corpus, *groups])
            allowed |= {r[0] for r in rows}
        return allowed

    def _index(self, corpus: str) -> Derived:
        """The derived indexes of the corpus's committed version (built from SQLite if missing)."""
        version = self.corpus(corpus).version
        with self._lock:
            d = self._open_derived(corpus, version)
            if d is None:
                t = time.perf_counter()
                # One read transaction: the chunks and the version come from the same snapshot.
                self._db.execute("BEGIN")
                try:
                    row = self._db.execute("SELECT version FROM corpora WHERE name = ?", (corpus,)).fetchone()
                    if row is None:
                        self._db.execute("COMMIT")
                        self.corpus(corpus)  # raises CorpusNotFound: deleted meanwhile
                    version = row[0]
                    d = self._open_derived(corpus, version) or Derived(self._build_derived(self._db, corpus, version))
                finally:
                    if self._db.in_transaction:
                        self._db.execute("COMMIT")
                log.info("built the search indexes of corpus %s (%d chunks) in %.1fs", corpus, len(d),
                         time.perf_counter() - t)
            self._derived[corpus] = d
            return d

    def _chunk_ids(self, rows: list[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for i in range(0, len(rows), 500):
            batch = rows[i:i + 500]
            out.update(self._rows(f"SELECT id, chunk_id FROM chunks WHERE id IN ({','.join('?' * len(batch))})",
                                  batch))
        return out

    def _visible_docs(self, corpus: str, filters: Filters) -> set[str] | None:
        docs: set[str] | None = None
        if filters.documents is not None:
            docs = set(filters.documents)
        if filters.groups is not None:
            allowed = self._allowed_docs(corpus, filters.groups)
            docs = allowed if docs is None else docs & allowed
        return docs

    def _lexical_documents(self, d: Derived, corpus: str, filters: Filters) -> list[str] | None:
        """The documents a lexical search is narrowed to (``None``: every one)."""
        docs = self._visible_docs(corpus, filters)
        if docs is not None and len(docs) >= len(d.doc_names) and docs.issuperset(d.doc_names):
            return None  # the filter lets every document through: no need to send it
        return None if docs is None else sorted(docs)

    def search_bm25(self, corpus: str, terms: list[str], k: int, filters: Filters) -> list[tuple[str, float]]:
        if not terms or k <= 0:
            self.corpus(corpus)
            return []
        d = self._index(corpus)
        hits = d.lexical.search(terms, k, documents=self._lexical_documents(d, corpus, filters),
                                exclude_kinds=filters.exclude_kinds)
        ids = self._chunk_ids([r for r, _ in hits])
        return [(ids[r], s) for r, s in hits if r in ids]

    def known_terms(self, corpus: str, terms: list[str], filters: Filters) -> set[str]:
        # one index, one document filter and one id lookup for all the terms, not one of each per term
        if not terms:
            self.corpus(corpus)
            return set()
        d = self._index(corpus)
        documents = self._lexical_documents(d, corpus, filters)
        first = {t: hits[0][0] for t in dict.fromkeys(terms)
                 if (hits := d.lexical.search([t], 1, documents=documents, exclude_kinds=filters.exclude_kinds))}
        ids = self._chunk_ids(list(first.values()))
        return {t for t, r in first.items() if r in ids}

    def search_vector(self, corpus: str, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        d = self._index(corpus)
        if k <= 0 or not len(d):
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != d.dim:
            raise StoreError(f"query vector has {q.shape[0]} dimensions but corpus {corpus!r} stores "
                             f"{d.dim}; re-ingest it with the current embedding model.")
        hits = d.search_vector(q, k, d.mask(self._visible_docs(corpus, filters), filters.exclude_kinds))
        ids = self._chunk_ids([r for r, _ in hits])
        return [(ids[r], s) for r, s in hits if r in ids]

    def chunk_vectors(self, corpus: str, chunk_ids: list[str]) -> np.ndarray:
        d = self._index(corpus)
        row_of: dict[str, int] = {}
        for i in range(0, len(chunk_ids), 500):
            batch = chunk_ids[i:i + 500]
            row_of.update(self._rows(f"SELECT chunk_id, id FROM chunks WHERE corpus = ? AND chunk_id IN "
                                     f"({','.join('?' * len(batch))})", [corpus, *batch]))
        out = np.zeros((len(chunk_ids), d.dim), dtype=np.float32)
        if not len(d):
            return out
        pos = d.positions([row_of.get(c, -1) for c in chunk_ids])
        found = pos >= 0
        out[found] = d.vectors[pos[found]]
        return out

    def _chunk(self, row: tuple) -> Chunk:
        return Chunk(chunk_id=row[0], unit_id=row[1], doc_id=row[2], kind=row[3], part=row[4], start=row[5],
                     end=row[6], text=row[7], lead=row[8], page=row[9], page_end=row[10])

    _CHUNK_COLS = 'chunk_id, unit_id, doc_id, kind, part, start, "end", text, lead, page, page_end'

    def get_chunks(self, corpus: str, chunk_ids: list[str]) -> dict[str, Chunk]:
        out: dict[str, Chunk] = {}
        for i in range(0, len(chunk_ids), 500):
            batch = chunk_ids[i:i + 500]
            rows = self._rows(f"SELECT {self._CHUNK_COLS} FROM chunks WHERE corpus = ? AND chunk_id IN "
                              f"({','.join('?' * len(batch))})", [corpus, *batch])
            out.update({r[0]: self._chunk(r) for r in rows})
        return out

    def unit_chunks(self, corpus: str, unit_id: str, filters: Filters) -> list[Chunk]:
        where, params = self._filter_sql(corpus, filters)
        rows = self._rows(f"SELECT {self._CHUNK_COLS} FROM chunks c WHERE {where} AND c.unit_id = ? ORDER BY c.start",
                          [*params, unit_id])
        return [self._chunk(r) for r in rows]

    def units_chunks(self, corpus: str, unit_ids: list[str], filters: Filters) -> dict[str, list[Chunk]]:
        out: dict[str, list[Chunk]] = {u: [] for u in unit_ids}
        where, params = self._filter_sql(corpus, filters)
        for i in range(0, len(unit_ids), 500):
            batch = unit_ids[i:i + 500]
            rows = self._rows(f"SELECT {self._CHUNK_COLS} FROM chunks c WHERE {where} AND c.unit_id IN "
                              f"({','.join('?' * len(batch))}) ORDER BY c.unit_id, c.start", [*params, *batch])
            for r in rows:
                out[r[1]].append(self._chunk(r))
        return out

    def get_units(self, corpus: str, unit_ids: list[str]) -> dict[str, Unit]:
        out: dict[str, Unit] = {}
        for i in range(0, len(unit_ids), 500):
            batch = unit_ids[i:i + 500]
            rows = self._rows(f"SELECT data FROM units WHERE corpus = ? AND unit_id IN ({','.join('?' * len(batch))})",
                              [corpus, *batch])
            for (data,) in rows:
                u = Unit.model_validate_json(data)
                out[u.unit_id] = u
        return out

    def unit_ids(self, corpus: str, documents: list[str] | None = None) -> list[str]:
        if documents is None:
            return [r[0] for r in self._rows("SELECT unit_id FROM units WHERE corpus = ? ORDER BY rowid", (corpus,))]
        out: list[str] = []
        for i in range(0, len(documents), 500):
            batch = documents[i:i + 500]
            out += [r[0] for r in self._rows(f"SELECT unit_id FROM units WHERE corpus = ? AND doc_id IN "
                                             f"({','.join('?' * len(batch))}) ORDER BY rowid", [corpus, *batch])]
        return out

    def documents(self, corpus: str, doc_ids: Sequence[str] | None = None) -> list[Document]:
        if doc_ids is None:
            rows = self._rows("SELECT data FROM documents WHERE corpus = ? ORDER BY doc_id", (corpus,))
        else:
            ids = sorted(set(doc_ids))
            rows = []
            for i in range(0, len(ids), 500):
                batch = ids[i:i + 500]
                rows += self._rows(f"SELECT data FROM documents WHERE corpus = ? AND doc_id IN "
                                   f"({','.join('?' * len(batch))}) ORDER BY doc_id", [corpus, *batch])
        return [Document.model_validate_json(r[0]) for r in rows]

    def _refs(self, sql: str, params: list) -> list[Reference]:
        return [Reference(src_unit=r[0], src_part=r[1], start=r[2], end=r[3], raw=r[4], dst_unit=r[5],
                          dst_part=r[6], resolved=bool(r[7]), in_title=bool(r[8]), container=r[9])
                for r in self._rows(sql, params)]

    _REF_COLS = 'src_unit, src_part, start, "end", raw, dst_unit, dst_part, resolved, in_title, container'

    def references_from(self, corpus: str, unit_ids: list[str], *, unresolved: bool = False) -> list[Reference]:
        out: list[Reference] = []
        which = "" if unresolved else "AND resolved = 1 "
        for i in range(0, len(unit_ids), 500):
            batch = unit_ids[i:i + 500]
            out += self._refs(f"SELECT {self._REF_COLS} FROM refs WHERE corpus = ? {which}AND src_unit IN "
                              f"({','.join('?' * len(batch))})", [corpus, *batch])
        return sorted(out, key=lambda r: (r.src_unit, r.start))

    def references_to(self, corpus: str, unit_ids: list[str]) -> list[Reference]:
        out: list[Reference] = []
        for i in range(0, len(unit_ids), 500):
            batch = unit_ids[i:i + 500]
            out += self._refs(f"SELECT {self._REF_COLS} FROM refs WHERE corpus = ? AND resolved = 1 AND dst_unit IN "
                              f"({','.join('?' * len(batch))})", [corpus, *batch])
        return sorted(out, key=lambda r: (r.src_unit, r.start))

    def references(self, corpus: str) -> list[Reference]:
        return self._refs(f"SELECT {self._REF_COLS} FROM refs WHERE corpus = ? ORDER BY src_unit, start", [corpus])

    def units_with_words(self, corpus: str, words: list[str]) -> list[str]:
        # One FTS phrase per word (FTS5 tokenises it as it tokenised the chunks), each looked up per
        # unit, so a title cut by a chunk boundary is still found. The rarest word picks the
        # candidate units; the others only narrow them, so a common word never joins every chunk.
        phrases = [_fts_term(w) for w in dict.fromkeys(words) if any(ch.isalnum() for ch in w)]
        rows = self._rows("SELECT fts FROM corpora WHERE name = ?", (corpus,))
        if not rows:
            self.corpus(corpus)  # raises CorpusNotFound with the list of corpora
        if not phrases:
            return []
        f = rows[0][0]
        phrases.sort(key=lambda p: self._rows(f"SELECT count(*) FROM {f} WHERE {f} MATCH ?", [p])[0][0])
        # Chunk ids first, then the units: driving the join from the full-text side keeps SQLite
        # from walking the corpus's chunks and probing the index for each.
        first = [r[0] for r in self._rows(f"SELECT DISTINCT unit_id FROM chunks WHERE id IN (SELECT rowid FROM {f} "
                                          f"WHERE {f} MATCH ?) AND corpus = ?", [phrases[0], corpus])]
        if not first or len(phrases) == 1:
            return sorted(first)
        unit_of: dict[int, str] = {}
        for i in range(0, len(first), 500):
            batch = first[i:i + 500]
            unit_of.update(self._rows(f"SELECT id, unit_id FROM chunks WHERE corpus = ? AND unit_id IN "
                                      f"({','.join('?' * len(batch))})", [corpus, *batch]))
        found = set(first)
        for p in phrases[1:]:
            ids = [i for i, u in unit_of.items() if u in found]
            hit: set[str] = set()
            for i in range(0, len(ids), 500):
                batch = ids[i:i + 500]
                hit |= {unit_of[r[0]] for r in self._rows(f"SELECT rowid FROM {f} WHERE {f} MATCH ? AND rowid IN "
                                                          f"({','.join('?' * len(batch))})", [p, *batch])}
            found &= hit
            if not found:
                break
        return sorted(found)

    def stats(self) -> dict[str, int]:
        return {"corpora": len(self.corpora()), "chunks": self._rows("SELECT count(*) FROM chunks")[0][0]}



def _lexical_rows(rows: np.ndarray, chunks: list[Chunk]) -> Iterator[tuple[int, str, str, str]]:
    return ((int(r), c.doc_id, c.kind, f"{c.lead}\n{c.text}") for r, c in zip(rows, chunks))
