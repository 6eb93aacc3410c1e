"""The storage contract. Both the embedded SQLite store and the Elasticsearch store
implement :class:`Store` and pass the same contract tests (``tests/stores/contract.py``).

Ranking fusion is not the store's business: a store returns ranked candidates for one
signal (BM25 or vector) and the core fuses them (:mod:`anchor_core.fusion`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from anchor_core.models import Chunk, CorpusInfo, Document, Filters, Reference, Unit


@runtime_checkable
class Store(Protocol):
    def replace_corpus(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                       chunks: list[Chunk], vectors: np.ndarray, references: list[Reference]) -> None:
        """Atomically swap the corpus ``info.name`` for the given content. If this fails or
        the process dies midway, the previous content of that corpus stays intact."""

    def replace_documents(self, info: CorpusInfo, documents: list[Document], units: list[Unit],
                          chunks: list[Chunk], vectors: np.ndarray, references: list[Reference],
                          remove: Sequence[str] = (), ref_sources: Sequence[str] = ()) -> None:
        """Atomically, inside corpus ``info.name`` (created if absent): drop the documents whose
        ids are in ``remove`` or among ``documents`` (with their units, chunks, vectors and the
        references written in their units), drop the references whose source unit is in
        ``ref_sources`` (units of other documents whose references the caller re-resolved),
        insert the given documents, units, chunks, vectors and ``references``, and store ``info``
        (new version) as the corpus record. Everything else stays untouched, so the cost follows
        the change, not the corpus. Failure leaves the corpus as it was."""

    def corpora(self) -> list[CorpusInfo]: ...

    def corpus(self, name: str) -> CorpusInfo:
        """Raises :class:`~anchor_core.errors.CorpusNotFound` naming the corpora that exist."""

    def delete_corpus(self, name: str) -> None: ...

    def search_bm25(self, corpus: str, terms: list[str], k: int, filters: Filters) -> list[tuple[str, float]]:
        """Best ``k`` chunk ids by BM25 over ``terms`` (any term may match), best first,
        with a score where higher is better."""

    def search_vector(self, corpus: str, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        """Best ``k`` chunk ids by cosine similarity to ``vector``, best first."""

    def get_chunks(self, corpus: str, chunk_ids: list[str]) -> dict[str, Chunk]: ...

    def unit_chunks(self, corpus: str, unit_id: str, filters: Filters) -> list[Chunk]:
        """Chunks of one unit that ``filters`` allow, in text order."""

    def units_chunks(self, corpus: str, unit_ids: list[str], filters: Filters) -> dict[str, list[Chunk]]:
        """``unit_chunks`` for many units in one call (every id present, possibly with no chunks)."""

    def get_units(self, corpus: str, unit_ids: list[str]) -> dict[str, Unit]: ...

    def unit_ids(self, corpus: str, documents: list[str] | None = None) -> list[str]:
        """Ids of the corpus's units (only those of ``documents`` when given), in insertion order.
        With :meth:`get_units` it lets a caller re-read the stored units, e.g. to re-resolve
        references after :meth:`replace_documents`."""

    def documents(self, corpus: str, doc_ids: Sequence[str] | None = None) -> list[Document]:
        """The corpus's documents by id (only ``doc_ids`` when given: a query names a handful of
        the thousands a large corpus holds)."""
        ...

    def references_from(self, corpus: str, unit_ids: list[str], *, unresolved: bool = False) -> list[Reference]:
        """Resolved references whose source is one of ``unit_ids`` (with ``unresolved``, the
        unresolved ones too: every reference written in those units)."""

    def references_to(self, corpus: str, unit_ids: list[str]) -> list[Reference]:
        """Resolved references whose target is one of ``unit_ids`` (who cites these units)."""

    def references(self, corpus: str) -> list[Reference]:
        """All references of the corpus, resolved or not."""

    def units_with_words(self, corpus: str, words: list[str]) -> list[str]:
        """Ids of the units whose chunks (text and heading lead-in) hold every one of ``words``
        as the full-text index tokenises them, each word anywhere in the unit. A superset for
        the caller to narrow with its own matcher (stemming, lead-ins): it answers "who may
        mention this title" from the index instead of reading every unit."""

    def known_terms(self, corpus: str, terms: list[str], filters: Filters) -> set[str]:
        """The ``terms`` that at least one chunk ``filters`` let through matches, as :meth:`search_bm25`
        matches them (analysed the same way): which of a question's words the corpus writes at all."""

    def chunk_vectors(self, corpus: str, chunk_ids: list[str]) -> np.ndarray:
        """Stored vectors of the chunks, in the order given (rows of zeros for unknown ids)."""


def check_content(chunks: Sequence[Chunk], vectors: np.ndarray, documents: Sequence[Document] | None = None,
                  units: Sequence[Unit] = ()) -> None:
    """What every store checks before writing: one vector per chunk, and (when ``documents`` is
    given, as for a document replace) no unit or chunk naming a document outside the batch."""
    if len(chunks) != len(vectors):
        raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
    if documents is None:
        return
    known = {d.doc_id for d in documents}
    stray = sorted({u.doc_id for u in units} - known) + sorted({c.doc_id for c in chunks} - known)
    if stray:
        raise ValueError(f"units or chunks name documents {stray[:5]} that are not among the given documents")

