"""Reciprocal rank fusion (Cormack et al., 2009), done in the core so that every store and
the eval harness rank the same way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


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


def combine(bm25: Sequence[tuple[str, float]], cosines: Mapping[str, float], weight: float
            ) -> list[tuple[str, float]]:
    """Fuse by score: ``weight × bm25' + (1 - weight) × cosine'``, each min-max normalised over the
    candidates (a candidate the lexical search did not return has ``bm25' = 0``).

    Unlike RRF it keeps how far apart the candidates are: a passage far ahead on one signal stays
    ahead, which is where RRF's flat ``1 / (k + rank)`` lost to BM25 alone on several dev sets
    (``eval/results/retrieval.md``). Min-max makes it indifferent to each backend's score scale
    (Elasticsearch's ``(1 + cos) / 2`` ranks the same as a raw cosine).

    Args:
        bm25: the lexical candidates with their scores.
        cosines: question cosine of every candidate to rank (lexical and dense ones).
        weight: the BM25 share, in [0, 1].

    Returns:
        ``(id, score)`` best first, scores in [0, 1]; ties by id.

    >>> combine([("a", 9.0), ("b", 3.0)], {"a": 0.1, "b": 0.5, "c": 0.9}, 0.5)[0][0]
    'a'
    """
    if not 0 <= weight <= 1:
        raise ValueError(f"weight must be in [0, 1]. Currently, the weight is {weight}")
    if not cosines:
        return []
    lex = dict(bm25)
    lo, hi = (min(lex.values()), max(lex.values())) if lex else (0.0, 0.0)
    clo, chi = min(cosines.values()), max(cosines.values())

    def norm(x: float, a: float, b: float) -> float:
        return (x - a) / (b - a) if b > a else 1.0

    scores = {cid: weight * (norm(lex[cid], lo, hi) if cid in lex else 0.0) + (1 - weight) * norm(cos, clo, chi)
              for cid, cos in cosines.items()}
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
