"""Reciprocal rank fusion (Cormack et al., 2009), done in the core so that every store and
the eval harness rank the same way."""

from __future__ import annotations

from collections.abc import Sequence


def rrf(rankings: Sequence[Sequence[str]], k: int = 60, weights: Sequence[float] | None = None
        ) -> list[tuple[str, float]]:
    """Fuse ranked id lists: ``score(id) = sum_i w_i / (k + rank_i(id))`` with ranks from 1.

    >>> rrf([["a", "b"], ["b", "c"]])[0][0]
    'b'
    """
    if k <= 0:
        raise ValueError(f"k must be greater than 0. Currently, the k is {k}")
    weights = weights or [1.0] * len(rankings)
    scores: dict[str, float] = {}
    for ranking, w in zip(rankings, weights):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
