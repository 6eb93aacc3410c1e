"""Lexical top-k search for the embedded store: a tantivy index derived from the stored chunks.

SQLite's FTS5 ``bm25()`` scores every row that matches any query term before it sorts; at 100k
chunks that is hundreds of milliseconds for a question of ordinary words. Tantivy (BM25 with
block-max pruning, in Rust) returns the top k without scoring the rest; ``bench.scale`` measures
both side by side. The index holds, per chunk, the SQLite row id (the key back into the store of
record), the document id and the kind (filters), and the heading lead-in plus text (BM25).

Filters are part of the query, not a post-filter: a document or access-group filter is a
must-match term set on the document id that adds nothing to the score, an excluded kind a
must-not clause, so a filtered search ranks only what it may see and still returns k hits.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

import tantivy

ANALYZER = "anchor_en"
"""Words split on non-alphanumerics, lower-cased, accents folded, English (Porter/Snowball) stems:
the same family of analysis as the FTS5 table's ``porter unicode61 remove_diacritics 2``."""

Row = tuple[int, str, str, str]
"""One chunk for the index: (SQLite row id, document id, kind, lead-in and text)."""


def _analyzer() -> tantivy.TextAnalyzer:
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(64))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.stemmer("english"))
            .build())


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_text_field("body", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    b.add_integer_field("row", stored=False, indexed=False, fast=True)
    b.add_text_field("doc", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_text_field("kind", stored=False, tokenizer_name="raw", index_option="basic")
    return b.build()


def _writer(index: tantivy.Index) -> tantivy.IndexWriter:
    # One indexing thread: documents land in segments in the order given, so equal scores come
    # back in the same order from every build of the same chunks (two threads split them at random).
    return index.writer(heap_size=256_000_000, num_threads=1)


def _add(writer: tantivy.IndexWriter, rows: Iterable[Row]) -> None:
    for row, doc, kind, body in rows:
        writer.add_document(tantivy.Document(row=row, doc=doc, kind=kind, body=body))


def _finish(writer: tantivy.IndexWriter) -> None:
    writer.commit()
    writer.wait_merging_threads()


class LexicalIndex:
    """A tantivy index in one directory, opened for searching.

    Args:
        path: the directory written by :meth:`build` or :meth:`patch`.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._index = tantivy.Index.open(str(self.path))
        self._analyzer = _analyzer()
        self._index.register_tokenizer(ANALYZER, self._analyzer)
        self._schema = self._index.schema
        self._searcher = self._index.searcher()

    @staticmethod
    def build(path: str | Path, rows: Iterable[Row]) -> None:
        """Write a new index of ``rows`` into the (new or empty) directory ``path``."""
        Path(path).mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(_schema(), path=str(path), reuse=False)
        index.register_tokenizer(ANALYZER, _analyzer())
        writer = _writer(index)
        _add(writer, rows)
        _finish(writer)

    @staticmethod
    def patch(source: str | Path, path: str | Path, remove_docs: Sequence[str], rows: Iterable[Row]) -> None:
        """Write into ``path`` the index at ``source`` without the chunks of ``remove_docs`` and with
        ``rows`` added; ``source`` is not changed (readers of it go on undisturbed).

        Tantivy's segment files are immutable once written and its metadata is replaced by
        rename, so ``path`` starts as hard links to ``source``'s files (a copy where links are
        not possible): the cost follows the change, not the corpus."""
        dst = Path(path)
        dst.mkdir(parents=True, exist_ok=True)
        for f in Path(source).iterdir():
            if f.is_file() and not f.name.endswith(".lock"):
                try:
                    os.link(f, dst / f.name)
                except OSError:
                    shutil.copy2(f, dst / f.name)
        index = tantivy.Index.open(str(dst))
        index.register_tokenizer(ANALYZER, _analyzer())
        writer = _writer(index)
        for doc in remove_docs:
            writer.delete_documents_by_term("doc", doc)
        _add(writer, rows)
        _finish(writer)

    @property
    def num_docs(self) -> int:
        return self._searcher.num_docs

    def tokens(self, terms: Sequence[str]) -> list[str]:
        """``terms`` as the index analyses text (stemmed), distinct, in order."""
        out: dict[str, None] = {}
        for t in terms:
            for tok in self._analyzer.analyze(t):
                out.setdefault(tok, None)
        return list(out)

    def search(self, terms: Sequence[str], k: int, *, documents: Sequence[str] | None = None,
               exclude_kinds: Sequence[str] = ()) -> list[tuple[int, float]]:
        """Best ``k`` (row id, BM25 score) for any of ``terms``, best first.

        Args:
            terms: query words; each is analysed like the indexed text.
            k: how many to return.
            documents: only chunks of these documents (None: every document).
            exclude_kinds: chunks of these kinds are never returned.

        Returns:
            Up to ``k`` pairs, higher score first; equal scores in row-id order.
        """
        tokens = self.tokens(terms)
        if not tokens or k <= 0 or (documents is not None and not documents):
            return []
        words = [(tantivy.Occur.Should, tantivy.Query.term_query(self._schema, "body", t)) for t in tokens]
        query = words[0][1] if len(words) == 1 else tantivy.Query.boolean_query(words)
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        if documents is not None:
            allowed = tantivy.Query.term_set_query(self._schema, "doc", list(documents))
            clauses.append((tantivy.Occur.Must, tantivy.Query.const_score_query(allowed, 0.0)))
        if exclude_kinds:
            clauses.append((tantivy.Occur.MustNot, tantivy.Query.term_set_query(self._schema, "kind",
                                                                                 list(exclude_kinds))))
        if clauses:
            query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), *clauses])
        hits = self._searcher.search(query, limit=k, count=False).hits
        rows = self._searcher.fast_field_values("row", [addr for _, addr in hits])
        out = [(int(r), float(s)) for (s, _), r in zip(hits, rows) if r is not None]
        return sorted(out, key=lambda h: (-h[1], h[0]))  # equal scores: store order
