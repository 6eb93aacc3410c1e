"""The ObliQA audit's labelled sample is well formed, and its bound is computed as stated."""

import json

import pytest

from eval import obliqa_audit


def test_the_labelled_sample_is_complete_and_unique():
    rows = [json.loads(line) for line in obliqa_audit.LABELS.read_text(encoding="utf-8").splitlines() if line]
    assert len(rows) == 40
    assert {r["label"] for r in rows} <= {"R", "T", "U"}
    assert len({(r["qid"], r["unit_id"]) for r in rows}) == len(rows)
    assert all(r["question"] and r["shown"] for r in rows)


def test_the_bound_adds_the_related_share_of_what_is_missed():
    rows = [{"label": lab} for lab in "RRTU"]  # half related
    out = obliqa_audit.report(rows, recall=0.8, target=0.85)
    assert "finding every related miss and nothing else: 0.900" in out
    assert "every related and tangential miss:          0.950" in out
    assert "needs 50% of the related misses" in out


def test_wilson_interval_brackets_the_share():
    lo, hi = obliqa_audit.wilson(14, 40)
    assert lo < 14 / 40 < hi and lo == pytest.approx(0.221, abs=0.005) and hi == pytest.approx(0.503, abs=0.005)
    assert obliqa_audit.wilson(0, 0) == (0.0, 1.0)
