"""Smoke test of the ask ablation harness on the bundled AI Act with the hash embedder."""

from __future__ import annotations

import json

from eval import run_eval


def test_ablation_writes_a_table_with_every_metric(tmp_path):
    out = tmp_path / "ask_eval"
    dump = tmp_path / "dump.jsonl"
    assert run_eval.main(["--sets", "aiact", "--configs", "naive,full", "--embedder", "hash", "--limit", "4",
                          "--workspace", str(tmp_path / "ws"), "--out", str(out), "--dump", str(dump)]) == 0
    rows = json.loads(out.with_suffix(".json").read_text())
    assert [r["config"] for r in rows] == ["naive", "full"]
    naive, full = rows
    assert naive["answered"] == 1.0 and naive["false_refusals"] == 0.0  # no gate: never refuses
    for r in rows:
        assert r["answerable"] == 4 and r["p50_ms"] > 0
        done, total = map(int, r["exact_offsets"].split("/"))
        assert done == total  # every anchor re-slices the stored unit text
    assert "| aiact | full |" in out.with_suffix(".md").read_text()
    assert len(dump.read_text().splitlines()) == 8


def test_unanswerable_rows_count_as_refusals():
    outs = [run_eval.Outcome("a", "single", False, None, True, 2, 2, 2, 10.0, 0.9, {}, True),
            run_eval.Outcome("b", "multi", True, "not_answered", False, 0, 0, 0, 20.0, 0.1, {}),
            run_eval.Outcome("c", "unanswerable", True, "term_missing", False, 0, 0, 0, 30.0, 0.0, {}),
            run_eval.Outcome("d", "unanswerable", False, None, False, 1, 0, 1, 40.0, 0.7, {})]
    s = run_eval.summarise(outs)
    assert s["hit_single"] == 1.0 and s["hit_multi"] == 0.0 and s["answer_in_gold"] == 0.5
    assert s["correct_refusals"] == 0.5 and s["false_refusals"] == 0.5
    assert s["faithfulness"] == round(2 / 3, 3) and s["exact_offsets"] == "3/3" and s["p50_ms"] == 25.0
