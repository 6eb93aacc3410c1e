"""eval.question_only: the question-wording control for models trained on the fresh sets' labels."""

from __future__ import annotations

import json

import numpy as np

from eval import question_only


def _rows(n: int, corpora=("aiact", "gdpr", "rfc")) -> list[dict]:
    rows = []
    for c in corpora:
        for i in range(n):
            ans = i % 2 == 0
            q = (f"Can we rely on the exemption for case {i}?" if ans
                 else f"Within how many days must we file report {i}?")
            rows.append({"id": f"{c}-{i}", "corpus": c, "question": q, "type": "single" if ans else "unanswerable"})
    return rows


def test_wording_that_gives_the_label_away_is_found_across_corpora():
    rows = _rows(20)
    out = question_only.report(rows, {r["id"]: True for r in rows})
    assert out["all"] is not None and out["all"] > 0.95
    assert out["answered"] is not None and out["answered"] > 0.95


def test_wording_that_says_nothing_scores_about_chance():
    rng = np.random.default_rng(7)
    rows = []
    for c in ("aiact", "gdpr", "rfc"):
        for i in range(60):
            rows.append({"id": f"{c}-{i}", "corpus": c, "question": f"What does rule {i} of part {c} say?",
                         "type": "single" if rng.random() < 0.5 else "unanswerable"})
    value = question_only.report(rows)["all"]
    assert value is not None and 0.3 < value < 0.7


def test_too_few_of_a_class_is_said_not_scored():
    rows = _rows(20)
    answered = {r["id"]: r["type"] != "unanswerable" for r in rows}  # only answerable ones answered
    assert question_only.report(rows, answered)["answered"] is None


def test_main_reads_the_sets_and_the_outcomes(tmp_path, monkeypatch, capsys):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for c in ("aiact", "gdpr"):
        (fresh / f"{c}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _rows(10, corpora=(c,))),
                                          encoding="utf-8")
    outcomes = tmp_path / "rows.jsonl"
    outcomes.write_text("".join(json.dumps({"id": r["id"], "refused": False}) + "\n"
                                for c in ("aiact", "gdpr") for r in _rows(10, corpora=(c,))), encoding="utf-8")
    monkeypatch.setattr(question_only, "FRESH", fresh)
    assert question_only.main(["--sets", "aiact,gdpr", "--rows", str(outcomes)]) == 0
    out = capsys.readouterr().out
    assert "question-only AUC (all): " in out and "question-only AUC (answered): " in out
