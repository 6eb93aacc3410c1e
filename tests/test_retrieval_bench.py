"""The retrieval bench's measures and its leave-one-set-out choice, without the benchmark data."""

from eval.retrieval_bench import BenchSet, Q, leave_one_set_out, load_sets, score


def test_measures_count_what_they_say():
    q = Q("1", "q", "multi", ["a", "b"])
    every = BenchSet("s", "c", 2, "all")
    recall = BenchSet("s", "c", 2, "recall")
    assert score(every, q, ["a", "b", "c"]) == 1.0
    assert score(every, q, ["a", "c", "b"]) == 0.0  # b is third: not in the top 2
    assert score(recall, q, ["a", "c", "b"]) == 0.5


def test_the_held_out_set_never_chooses_its_own_setting():
    grid = [{"w": 0}, {"w": 1}]
    # Setting 1 is best on "x" only; the others prefer setting 0.
    scores = {("x", 0): 0.1, ("x", 1): 0.9, ("y", 0): 0.8, ("y", 1): 0.5, ("z", 0): 0.7, ("z", 1): 0.6}
    rows = {r["held_out"]: r for r in leave_one_set_out(scores, ["x", "y", "z"], grid)}
    assert rows["x"]["chosen"] == {"w": 0} and rows["x"]["held_out_score"] == 0.1
    assert rows["x"]["best_possible"] == 0.9
    assert rows["y"]["chosen"] == {"w": 1}  # fitted on x and z: (0.9 + 0.6) / 2 > (0.1 + 0.7) / 2


def test_sets_without_their_data_are_skipped(tmp_path, monkeypatch, capsys):
    import eval.retrieval_bench as rb

    monkeypatch.setattr(rb, "CORPORA", tmp_path / "corpora")
    monkeypatch.setattr(rb, "BENCH", tmp_path / "bench")
    assert load_sets(["gdpr", "xrefrag", "obliqa"], store=None, embedder=None, rebuild=False, obliqa_limit=None,
                     seed=1) == []
    out = capsys.readouterr().out
    assert "skip gdpr" in out and "skip xrefrag" in out and "skip obliqa" in out
