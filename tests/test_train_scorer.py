"""The support scorer's calibration rule (eval.train_scorer.choose_threshold): precision and rejection."""

from __future__ import annotations

import numpy as np

from eval.train_scorer import TARGET_PRECISION, TARGET_REJECTION, choose_threshold


def _rates(scores: np.ndarray, y: np.ndarray, t: float) -> tuple[float, float, float]:
    pred = scores >= t
    tp = int((pred & (y == 1)).sum())
    return tp / max(int(pred.sum()), 1), tp / int(y.sum()), float((~pred & (y == 0)).sum() / (y == 0).sum())


def test_precision_alone_does_not_let_a_further_unsupported_claim_in():
    # 60 supported claims from 0.41 to 1.0; 20 unsupported, one at 0.95, one at 0.45, the rest below 0.31.
    # Precision alone would take t just under 0.41 (62 ticked, 60 right: 0.968) and let both in (rejected
    # 18/20 = 0.90); rejection >= 0.93 allows one of the 20 through, so the 0.45 claim must be rejected.
    pos = np.linspace(0.41, 1.0, 60)
    neg = np.array([0.95, 0.45] + [0.05 + 0.0125 * i for i in range(18)])
    scores, y = np.concatenate([pos, neg]), np.array([1] * 60 + [0] * 20)
    t, met = choose_threshold(scores, y)
    precision, recall, rejected = _rates(scores, y, t)
    assert met and precision >= TARGET_PRECISION and rejected >= TARGET_REJECTION
    assert 0.45 < t < 0.5 and rejected == 19 / 20
    # no lower threshold meets both targets
    assert all(_rates(scores, y, x)[2] < TARGET_REJECTION for x in np.unique(scores) if x < t)


def test_when_no_threshold_meets_both_the_flag_says_so():
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    y = np.array([0, 1, 0, 1])
    t, met = choose_threshold(scores, y)
    assert not met and 0.0 <= t <= 1.0
