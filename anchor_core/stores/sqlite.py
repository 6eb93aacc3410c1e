"""Embedded store: one SQLite file per workspace.

- BM25 from FTS5 (``bm25()``, porter stemming) over the chunk heading lead-in and text.
- Vectors as float32 BLOBs, served from an in-memory numpy matrix per corpus; the matrix
  is reloaded when the corpus version in the database differs from the cached one, which
  is how a write by another process becomes visible.
- Access filters are SQL ``WHERE`` clauses (BM25) and a boolean mask (vectors) applied
  before the top-k cut, so a filtered query ranks only what it may see.
- ``replace_corpus`` is one transaction in WAL mode: a crash or SIGKILL midway rolls back to
  the previous corpus. ``replace_documents`` swaps single documents inside a corpus the same
  way (uploads), keeping the corpus's full-text table and changing its version.
- Chunks keep the PDF pages they come from (``page``/``page_end``, layout 3).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from anchor_core.config import SQLiteSettings
from anchor_core.errors import CorpusNotFound, StoreError
from anchor_core.models import Chunk, CorpusInfo, Document, Filters, Reference, Unit
from anchor_core.stores.base import check_content

log = logging.getLogger(__name__)

LAYOUT = 3
"""Store layout: 2 = one FTS5 table per corpus version; 3 = chunk ``page``/``page_end`` columns."""

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
    in_title INTEGER NOT NULL DEFAULT 0);
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


@dataclass
class _Matrix:
    version: str
    chunk_ids: list[str]
    row_of: dict[str, int]
    doc_ids: np.ndarray
    kinds: np.ndarray
    vectors: np.ndarray


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
        self._matrices: dict[str, _Matrix] = {}

    def _migrate(self) -> None:
        """Layout 3 added the chunk page columns (PDF provenance). They are nullable, so a store of
        layout 2 is upgraded in place: its chunks simply have no page, which is true of them."""
        chunk_cols = {r[1] for r in self._db.execute("PRAGMA table_info(chunks)")}
        for col in ("page", "page_end"):
            if col not in chunk_cols:
                self._db.execute(f"ALTER TABLE chunks ADD COLUMN {col} INTEGER")
        self._db.execute(f"PRAGMA user_version = {LAYOUT}")

    def close(self) -> None:
        self._db.close()

    # -- writing --------------------------------------------------------------------------

    @contextmanager
    def _write(self, name: str, keep_matrix: bool = False) -> Iterator[sqlite3.Cursor]:
        """One write transaction on corpus ``name``: taken at once (``BEGIN IMMEDIATE``), committed
        when the block ends, rolled back on any error; the corpus's cached vector matrix is dropped
        unless the caller patches it (``keep_matrix``)."""
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
            if not keep_matrix:
                self._matrices.pop(name, None)

    def replace_corpus(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                       chunks: list[Chunk], vectors: np.ndarray, references: list[Reference]) -> None:
        check_content(chunks, vectors)
        vecs = np.asarray(vectors, dtype=np.float32)
        name = info.name
        with self._write(name) as cur:
            self._delete(cur, name)
            self._insert_documents(cur, name, documents, units)
            # One FTS5 table per corpus version: BM25 statistics (IDF, average length) are the
            # corpus's own, and a search never walks another corpus's postings.
            fts = self._create_fts(cur, info.version)
            self._insert_chunks(cur, name, fts, chunks, vecs)
            self._insert_refs(cur, name, references)
            cur.execute("INSERT INTO corpora VALUES (?, ?, ?, ?)",
                        (name, info.version, info.model_dump_json(), fts))

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
    def _insert_chunks(cur: sqlite3.Cursor, name: str, fts: str, chunks: list[Chunk], vecs: np.ndarray) -> None:
        for c, v in zip(chunks, vecs):
            cur.execute(
                'INSERT INTO chunks (corpus, chunk_id, unit_id, doc_id, kind, part, start, "end", text, '
                "lead, vector, page, page_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, c.chunk_id, c.unit_id, c.doc_id, c.kind, c.part, c.start, c.end, c.text,
                 c.lead, v.tobytes(), c.page, c.page_end))
            cur.execute(f"INSERT INTO {fts} (rowid, body) VALUES (?, ?)", (cur.lastrowid, f"{c.lead}\n{c.text}"))

    @staticmethod
    def _create_fts(cur: sqlite3.Cursor, version: str) -> str:
        """The full-text table of one corpus version (BM25 statistics are the corpus's own)."""
        fts = f"fts_{version}"
        if not fts.replace("_", "").isalnum():
            raise ValueError(f"corpus version must be alphanumeric, got {version!r}")
        cur.execute(f"CREATE VIRTUAL TABLE {fts} USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')")
        return fts

    @staticmethod
    def _insert_refs(cur: sqlite3.Cursor, name: str, references: list[Reference]) -> None:
        cur.executemany(
            "INSERT INTO refs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(name, r.src_unit, r.src_part, r.start, r.end, r.raw, r.dst_unit, r.dst_part,
              int(r.resolved), int(r.in_title)) for r in references])

    def replace_documents(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                          chunks: list[Chunk], vectors: np.ndarray, references: list[Reference],
                          remove: Sequence[str] = (), ref_sources: Sequence[str] = ()) -> None:
        check_content(chunks, vectors, documents, units)
        vecs = np.asarray(vectors, dtype=np.float32)
        name = info.name
        gone = sorted({*remove, *(d.doc_id for d in documents)})
        sources = sorted(set(ref_sources))
        with self._write(name, keep_matrix=True) as cur:
            for stmt in filter(str.strip, DOC_INDEXES.split(";")):
                cur.execute(stmt)
            row = cur.execute("SELECT fts, version FROM corpora WHERE name = ?", (name,)).fetchone()
            if row is None:
                fts, before = self._create_fts(cur, info.version), None
            else:
                # The corpus keeps its full-text table across document replaces; only the version
                # (which invalidates cached vector matrices) changes.
                fts, before = row
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
            self._insert_chunks(cur, name, fts, chunks, vecs)
            self._insert_refs(cur, name, references)
            cur.execute("INSERT OR REPLACE INTO corpora VALUES (?, ?, ?, ?)",
                        (name, info.version, info.model_dump_json(), fts))
        self._patch_matrix(name, before, info.version, gone, chunks, vecs)

    def _patch_matrix(self, name: str, before: str | None, version: str, gone: list[str], chunks: list[Chunk],
                      vecs: np.ndarray) -> None:
        """Bring a cached vector matrix to the new version without re-reading every vector: drop
        the rows of the replaced documents and append the new chunks (new rows come last, as a
        reload ordered by row id would put them). Any doubt (no cache, another writer's version
        in between) drops the cache and the next query reloads."""
        with self._lock:
            m = self._matrices.pop(name, None)
            if m is None or before is None or m.version != before or (len(m.chunk_ids) and vecs.size and
                                                                    m.vectors.shape[1] != vecs.shape[1]):
                return
            keep = ~np.isin(m.doc_ids, gone) if gone and len(m.chunk_ids) else np.ones(len(m.chunk_ids), bool)
            chunk_ids = [c for c, k in zip(m.chunk_ids, keep) if k] + [c.chunk_id for c in chunks]
            vectors = np.vstack([m.vectors[keep], vecs]) if len(chunks) else m.vectors[keep]
            self._matrices[name] = _Matrix(
                version=version, chunk_ids=chunk_ids, row_of={c: i for i, c in enumerate(chunk_ids)},
                doc_ids=np.concatenate([m.doc_ids[keep], np.array([c.doc_id for c in chunks], dtype=object)]),
                kinds=np.concatenate([m.kinds[keep], np.array([c.kind for c in chunks], dtype=object)]),
                vectors=vectors)

    def _delete(self, cur: sqlite3.Cursor, name: str) -> None:
        for (fts,) in cur.execute("SELECT fts FROM corpora WHERE name = ?", (name,)).fetchall():
            cur.execute(f"DROP TABLE IF EXISTS {fts}")
        for table in ("chunks", "units", "documents", "doc_groups", "refs", "corpora"):
            cur.execute(f"DELETE FROM {table} WHERE {'name' if table == 'corpora' else 'corpus'} = ?", (name,))

    def delete_corpus(self, name: str) -> None:
        self.corpus(name)
        with self._write(name) as cur:
            self._delete(cur, name)

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

    def search_bm25(self, corpus: str, terms: list[str], k: int, filters: Filters) -> list[tuple[str, float]]:
        if not terms or k <= 0:
            return []
        where, params = self._filter_sql(corpus, filters)
        match = " OR ".join(_fts_term(t) for t in terms)
        fts = self._rows("SELECT fts FROM corpora WHERE name = ?", (corpus,))
        if not fts:
            self.corpus(corpus)  # raises CorpusNotFound with the list of corpora
        f = fts[0][0]
        sql = (f"SELECT c.chunk_id, bm25({f}) AS s FROM {f} JOIN chunks c ON c.id = {f}.rowid "
               f"WHERE {f} MATCH ? AND {where} ORDER BY s LIMIT ?")
        # FTS5's bm25() is lower-is-better; negate so every store returns higher-is-better.
        return [(cid, -score) for cid, score in self._rows(sql, [match, *params, k])]

    def _matrix(self, corpus: str) -> _Matrix:
        version = self.corpus(corpus).version
        cached = self._matrices.get(corpus)
        if cached is not None and cached.version == version:
            return cached
        rows = self._rows("SELECT chunk_id, doc_id, kind, vector FROM chunks WHERE corpus = ? ORDER BY id", (corpus,))
        if rows:
            vectors = np.vstack([np.frombuffer(r[3], dtype=np.float32) for r in rows])
        else:
            vectors = np.zeros((0, self.corpus(corpus).dim or 1), dtype=np.float32)
        chunk_ids = [r[0] for r in rows]
        m = _Matrix(version=version, chunk_ids=chunk_ids, row_of={c: i for i, c in enumerate(chunk_ids)},
                    doc_ids=np.array([r[1] for r in rows], dtype=object),
                    kinds=np.array([r[2] for r in rows], dtype=object),
                    vectors=vectors)
        self._matrices[corpus] = m
        log.debug("loaded %d vectors of corpus %s (version %s)", len(rows), corpus, version)
        return m

    def _mask(self, corpus: str, m: _Matrix, filters: Filters) -> np.ndarray | None:
        mask = None
        if filters.exclude_kinds:
            mask = ~np.isin(m.kinds, filters.exclude_kinds)
        docs: set[str] | None = None
        if filters.documents is not None:
            docs = set(filters.documents)
        if filters.groups is not None:
            allowed = self._allowed_docs(corpus, filters.groups)
            docs = allowed if docs is None else docs & allowed
        if docs is not None:
            dm = np.isin(m.doc_ids, list(docs))
            mask = dm if mask is None else mask & dm
        return mask

    def search_vector(self, corpus: str, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        m = self._matrix(corpus)
        if k <= 0 or not m.chunk_ids:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != m.vectors.shape[1]:
            raise StoreError(f"query vector has {q.shape[0]} dimensions but corpus {corpus!r} stores "
                             f"{m.vectors.shape[1]}; re-ingest it with the current embedding model.")
        scores = m.vectors @ q
        mask = self._mask(corpus, m, filters)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        n_ok = int(mask.sum()) if mask is not None else len(scores)
        k = min(k, n_ok)
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(m.chunk_ids[i], float(scores[i])) for i in top]

    def chunk_vectors(self, corpus: str, chunk_ids: list[str]) -> np.ndarray:
        m = self._matrix(corpus)
        out = np.zeros((len(chunk_ids), m.vectors.shape[1]), dtype=np.float32)
        for i, cid in enumerate(chunk_ids):
            row = m.row_of.get(cid)
            if row is not None:
                out[i] = m.vectors[row]
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

    def documents(self, corpus: str) -> list[Document]:
        return [Document.model_validate_json(r[0])
                for r in self._rows("SELECT data FROM documents WHERE corpus = ? ORDER BY doc_id", (corpus,))]

    def _refs(self, sql: str, params: list) -> list[Reference]:
        return [Reference(src_unit=r[0], src_part=r[1], start=r[2], end=r[3], raw=r[4], dst_unit=r[5],
                          dst_part=r[6], resolved=bool(r[7]), in_title=bool(r[8])) for r in self._rows(sql, params)]

    _REF_COLS = 'src_unit, src_part, start, "end", raw, dst_unit, dst_part, resolved, in_title'

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

