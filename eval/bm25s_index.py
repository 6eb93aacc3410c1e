"""Plain BM25 from the ``bm25s`` library (Okapi, k1=1.5, b=0.75, English stop-words): the peer
baseline that the retrieval bench and the embedder experiment run on the same questions."""

from __future__ import annotations

import logging

import numpy as np


class Bm25s:
    """A bm25s index over ``texts``; :meth:`top` ranks them for each question."""

    def __init__(self, texts: list[str]) -> None:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG
        self._bm25s = bm25s
        self.size = len(texts)
        self.model = bm25s.BM25()
        self.model.index(self._tokens(texts), show_progress=False)

    def _tokens(self, texts: list[str]):
        return self._bm25s.tokenize(texts, stopwords="en", show_progress=False)

    def top(self, questions: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """The indices into ``texts`` of the ``k`` best for each question, and their scores (one row per
        question); empty rows for a question with no indexed word."""
        tokens = self._tokens(questions)
        if not tokens.vocab:
            return np.zeros((len(questions), 0), dtype=int), np.zeros((len(questions), 0))
        return self.model.retrieve(tokens, k=min(k, self.size), show_progress=False, n_threads=1)
