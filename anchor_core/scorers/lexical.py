"""Lexical support score: how much of the hypothesis the premise says in the same words. No model.

The score is the share of hypothesis content tokens (lower-cased, lightly stemmed, stop-words
removed) found in the premise; numbers match by value only (``35,000,000`` = ``35 million``,
but ``2019`` ≠ ``2018``), and each hypothesis number missing from the premise halves the score,
because a wrong figure is a wrong claim however many words agree.
"""

from __future__ import annotations

from pathlib import Path

from anchor_core.scorers.features import coverage
from anchor_core.scorers.params import check_pairs, load_params
from anchor_core.scorers.text import analyse

NUMBER_PENALTY = 0.5


def lexical_score(premise: str, hypothesis: str) -> float:
    """Content-token coverage of ``hypothesis`` by ``premise``, halved per missing number.

    >>> lexical_score("The fine is EUR 35 000 000.", "A fine of 35 million euros")
    1.0
    >>> lexical_score("The fine is EUR 35 000 000.", "A fine of 20 million euros")
    0.25
    """
    p, h = analyse(premise), analyse(hypothesis)
    cov, missing = coverage(p, h)
    numbers = {t.key for t in missing if t.kind == "number"}
    return cov * NUMBER_PENALTY ** len(numbers)


class LexicalScorer:
    """Content-token coverage score in [0, 1] with a calibrated threshold (``data/lexical.json``).

    Args:
        threshold: overrides the calibrated threshold.
        params_path: another ``lexical.json`` (default: the one shipped in the package).

    Example:
        >>> s = LexicalScorer()
        >>> s.score(["Providers shall register the system."], ["Providers shall register systems."])
        [1.0]
        >>> s.explain("Providers shall register the system.", "Deployers shall register the system in 2019.")
        ['number 2019 not in the quoted span', "claim words not in the quoted span: 'deployers'"]
    """

    name = "lexical"

    def __init__(self, threshold: float | None = None, *, params_path: str | Path | None = None) -> None:
        params = load_params("lexical.json", params_path)
        self.calibration = params.get("calibration", {})
        self.threshold = float(params["threshold"] if threshold is None else threshold)
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1]. Currently, the threshold is {self.threshold}")

    def score(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        """Score of each (premise, hypothesis) pair, parallel to the inputs."""
        check_pairs(premises, hypotheses)
        return [lexical_score(p, h) for p, h in zip(premises, hypotheses)]

    def explain(self, premise: str, hypothesis: str) -> list[str]:
        """The hypothesis numbers and words the premise does not contain."""
        _, missing = coverage(analyse(premise), analyse(hypothesis))
        reasons: list[str] = []
        for t in missing:
            if t.kind == "number":
                reason = f"{'amount' if t.amount else 'number'} {t.text} not in the quoted span"
                if reason not in reasons:
                    reasons.append(reason)
        words = list(dict.fromkeys(t.text.lower() for t in missing if t.kind == "word"))
        if words:
            shown = ", ".join(f"'{w}'" for w in words[:6])
            more = f" and {len(words) - 6} more" if len(words) > 6 else ""
            reasons.append(f"claim words not in the quoted span: {shown}{more}")
        return reasons
