"""The WiCE threshold of eval.claims_bench is chosen at the target's operating point (recall >= 0.70)."""

from __future__ import annotations

from eval.claims_bench import MIN_RECALL, choose_t, wice_cv, wice_metrics


def _rows(scores: list[tuple[str, float]]) -> list[dict]:
    return [{"label": lab, "score": sc, "contradicted": False, "restated": False} for lab, sc in scores]


def test_a_threshold_never_buys_rejection_below_the_recall_the_target_allows():
    # ten supported claims spread over the scale, one unsupported claim that scores high
    rows = _rows([("supported", x / 10) for x in range(1, 11)] + [("not_supported", 0.85)])
    t = choose_t(rows)
    m = wice_metrics(rows, t)
    # rejecting the 0.85 claim would need t > 0.85 and keep recall at 0.2: not allowed
    assert m["recall"] >= MIN_RECALL and m["rejected"] == 0.0
    # where the targets can be met above the recall floor, the middle of the feasible run is taken
    # (0.51 .. 0.90), not its lowest end beside the highest unsupported claim
    easy = _rows([("supported", 0.9)] * 8 + [("supported", 0.3)] * 2 + [("not_supported", 0.5)] * 3)
    t = choose_t(easy)
    assert 0.3 < t <= 0.9 and wice_metrics(easy, t)["rejected"] == 1.0
    assert abs(t - (0.51 + 0.90) / 2) <= 0.006


def test_cross_validation_pools_the_held_out_folds():
    rows = _rows([("supported", 0.9)] * 20 + [("not_supported", 0.2)] * 10)
    m, ts = wice_cv(rows, folds=5)
    assert len(ts) == 5 and m["precision"] == 1.0 and m["recall"] == 1.0 and m["rejected"] == 1.0
