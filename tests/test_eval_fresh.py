"""The fresh question sets are well-formed, and eval.fresh counts what it says."""

from __future__ import annotations

import json

from eval import fresh


def test_every_fresh_set_is_well_formed():
    files = sorted(fresh.FRESH.glob("*.jsonl"))
    assert files
    for f in files:
        rows = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        assert len({r["id"] for r in rows}) == len(rows)
        for r in rows:
            # a question asks (a practitioner may add a sentence after it: "... be? I have a long heading.")
            assert r["type"] in ("single", "multi", "unanswerable") and "?" in r["question"]
            if r["type"] == "unanswerable":
                assert not r["gold"] and r["why"]
            else:
                assert r["gold"] and r["evidence_note"] and r["fact"].strip()


def test_summary_counts_refusals_and_gold_quotes():
    pick = {"extractive": True, "checks_passed": True}  # an extractive answer open only for being one
    rows = [{"type": "single", "refused": False, "gold_quoted": True, "fact_quoted": True, "state": "verified"},
            {"type": "single", "refused": False, "gold_quoted": True, "fact_quoted": False, "state": "unconfirmed",
             **pick},
            {"type": "single", "refused": False, "gold_quoted": False, "fact_quoted": False, "state": "verified"},
            {"type": "single", "refused": True, "gold_quoted": False, "fact_quoted": False, "state": "refused"},
            {"type": "unanswerable", "refused": True, "gold_quoted": False, "fact_quoted": False, "state": "refused"},
            {"type": "unanswerable", "refused": False, "gold_quoted": False, "fact_quoted": False,
             "state": "unconfirmed", **pick}]
    assert fresh.summary(rows) == {"unanswerable refused": "1/2", "answerable falsely refused": "1/4",
                                   "answered with a gold unit quoted": "2/3",
                                   "answered with the asked fact quoted": "1/3",
                                   "answered unanswerable headlined verified": "0/1",
                                   "answered answerable headlined verified": "2/3",
                                   "passed every check, fact quoted": "0/2"}
    assert fresh.extractive_figure(rows) == {"answers": 2, "fact_quoted": 0, "unanswerable": 1}


def test_passed_means_verified_or_open_only_for_being_an_extractive_pick():
    from anchor_core.assessment import EXTRACTIVE_OPEN, Assessment, Faithfulness, RelevanceCheck, Support

    def a(state, *reasons):
        return Assessment(state=state, headline="", reasons=list(reasons), faithfulness=Faithfulness(state="verbatim"),
                          relevance=RelevanceCheck(state="addressed"), support=Support(claims=1, supported=1))
    assert fresh.passed(a("verified"))
    assert fresh.passed(a("unconfirmed", EXTRACTIVE_OPEN + " (3 of 7 ...)"))
    assert not fresh.passed(a("unconfirmed", "the evidence barely passed", EXTRACTIVE_OPEN))
    assert not fresh.passed(a("not_verified", EXTRACTIVE_OPEN))


def test_outcomes_written_by_out_are_summarised_again_without_a_run(tmp_path, monkeypatch, capsys):
    fresh_dir = tmp_path / "fresh"
    fresh_dir.mkdir()
    qs = [{"id": f"t-{i}", "type": t, "question": "?"} for i, t in enumerate(["single", "unanswerable"])]
    (fresh_dir / "t1.jsonl").write_text("".join(json.dumps(q) + "\n" for q in qs), encoding="utf-8")
    (fresh_dir / "t2.jsonl").write_text(json.dumps({"id": "u-0", "type": "single", "question": "?"}) + "\n",
                                        encoding="utf-8")
    pick = {"extractive": True, "checks_passed": True, "gold_quoted": False, "state": "unconfirmed"}
    rows = [{"id": "t-0", "type": "single", "refused": False, "fact_quoted": True, **pick},
            {"id": "t-1", "type": "unanswerable", "refused": False, "fact_quoted": False, **pick},
            {"id": "x-9", "type": "single", "refused": False, "fact_quoted": True, **pick}]  # not of the sets named
    out = tmp_path / "rows.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    target = tmp_path / "extractive.json"
    monkeypatch.setattr(fresh, "FRESH", fresh_dir)
    monkeypatch.setattr(fresh, "EXTRACTIVE_JSON", target)
    assert fresh.main(["--sets", "t1", "--rows", str(out), "--write-extractive"]) == 0
    assert "passed every check, fact quoted 1/2" in capsys.readouterr().out
    assert json.loads(target.read_text())["answers"] == 2 and json.loads(target.read_text())["sets"] == ["t1"]
    # a set the file holds no outcome for is not counted as if it had none
    assert fresh.main(["--sets", "t1,t2", "--rows", str(out)]) == 1
    assert "no outcome for 1 questions of t2" in capsys.readouterr().out
