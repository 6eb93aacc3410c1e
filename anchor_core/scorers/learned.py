"""A learned lexical-semantic support score: logistic regression over hand-built pair features.

This is NOT an entailment probability. It is a calibrated combination of word and number
coverage, rule flags (negation, modality, dropped qualifiers, missing entities) and, when an
embedder is given, embedding similarity, fitted on WiCE and ClapNQ pairs by
``python -m eval.train_scorer``. The coefficients ship in ``data/learned.json`` and are
applied here with numpy alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from anchor_core.embeddings import Embedder
from anchor_core.scorers.features import IDEAL, PairAnalysis, pair_features, reasons_for
from anchor_core.scorers.params import check_pairs, load_params

log = logging.getLogger(__name__)

# A feature must cost at least this much log-odds (relative to a word-for-word premise) to be named.
_REASON_MIN_LOGIT = 0.15


class LinearModel:
    """Standardise, dot, sigmoid: the runtime half of the logistic regression in ``learned.json``."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.features: list[str] = list(spec["features"])
        self.mean = np.asarray(spec["mean"], dtype=np.float64)
        self.scale = np.asarray(spec["scale"], dtype=np.float64)
        self.coef = np.asarray(spec["coef"], dtype=np.float64)
        self.intercept = float(spec["intercept"])
        self.threshold = float(spec["threshold"])
        # Feature values of a typical supported pair; explain() reports what falls short of them.
        self.reference = {**IDEAL, **spec.get("reference", {})}
        n = len(self.features)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise ValueError(f"coefficient set is inconsistent: {n} features, {len(self.coef)} coefficients")

    def logits(self, x: np.ndarray) -> np.ndarray:
        return ((x - self.mean) / self.scale) @ self.coef + self.intercept

    def predict(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.logits(x)))

    def contributions(self, values: dict[str, float]) -> dict[str, float]:
        """Log-odds each feature costs against a typical supported pair (negative: it lowered the score)."""
        out = {}
        for name, w, s in zip(self.features, self.coef, self.scale):
            if name in IDEAL:
                out[name] = float(w * (values[name] - self.reference[name]) / s)
        return out


class LearnedScorer:
    """Learned lexical-semantic support score in [0, 1] (not an entailment probability).

    Args:
        embedder: an :class:`~anchor_core.embeddings.Embedder` (normally ``MiniLMEmbedder``). With one,
            the coefficient set trained with the embedding-cosine feature is used; without, the set
            trained without it.
        threshold: overrides the calibrated threshold of the chosen coefficient set.
        params_path: another ``learned.json`` (default: the one shipped in the package).

    Example:
        >>> s = LearnedScorer()
        >>> s.score(["The fine is EUR 35 000 000."], ["The fine is 35 million euros."])  # doctest: +SKIP
        [0.93]
        >>> s.explain("The fine is EUR 35 000 000.", "The fine is EUR 20 000 000.")
        ['amount 20 000 000 not in the quoted span']
    """

    name = "learned"

    def __init__(self, embedder: Embedder | None = None, *, threshold: float | None = None,
                 params_path: str | Path | None = None) -> None:
        params = load_params("learned.json", params_path)
        key = "with_embedding" if embedder is not None else "without_embedding"
        try:
            spec = params["models"][key]
        except KeyError:
            raise ValueError(f"{params_path or 'learned.json'} has no coefficient set {key!r}") from None
        self.model = LinearModel(spec)
        self.embedder = embedder
        self.calibration = params.get("calibration", {})
        self.threshold = self.model.threshold if threshold is None else float(threshold)
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1]. Currently, the threshold is {self.threshold}")
        trained_on = spec.get("embedder")
        if embedder is not None and trained_on and getattr(embedder, "model_id", None) != trained_on:
            log.warning("learned scorer coefficients were fitted with %s embeddings, not %s; scores are "
                        "uncalibrated", trained_on, getattr(embedder, "model_id", "?"))

    @property
    def feature_names(self) -> list[str]:
        return list(self.model.features)

    def _cosines(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float | None]:
        if self.embedder is None:
            return [None] * len(premises)
        unique = list(dict.fromkeys([*premises, *hypotheses]))
        vecs = self.embedder.embed(unique)
        row = {t: i for i, t in enumerate(unique)}
        return [float(vecs[row[p]] @ vecs[row[h]]) for p, h in zip(premises, hypotheses)]

    def analyse(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[PairAnalysis]:
        """Feature values (and their evidence) of each pair."""
        check_pairs(premises, hypotheses)
        cos = self._cosines(premises, hypotheses)
        return [pair_features(p, h, c) for p, h, c in zip(premises, hypotheses, cos)]

    def features(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Feature matrix (n, len(feature_names)) in the column order of the coefficient set."""
        rows = [[a.values[f] for f in self.model.features] for a in self.analyse(premises, hypotheses)]
        return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(self.model.features))

    def score(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        """Support score of each (premise, hypothesis) pair, parallel to the inputs."""
        if not premises and not hypotheses:
            return []
        return [float(s) for s in self.model.predict(self.features(premises, hypotheses))]

    def explain(self, premise: str, hypothesis: str) -> list[str]:
        """Reasons from the features that pushed the score down, the costliest first.

        >>> LearnedScorer().explain("The controller shall not transfer data.", "The controller shall transfer data.")
        ["negation differs: source says 'shall not'"]
        """
        analysis = self.analyse([premise], [hypothesis])[0]
        costs = self.model.contributions(analysis.values)
        reasons: list[str] = []
        for name, cost in sorted(costs.items(), key=lambda kv: kv[1]):
            if cost > -_REASON_MIN_LOGIT:
                break
            for reason in reasons_for(analysis, name):
                if reason not in reasons:
                    reasons.append(reason)
        return reasons
