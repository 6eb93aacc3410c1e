"""Smoke test of ``python -m eval.answers_bench``: the bundled AI Act, the hash embedder (no model,
no ../shared data), a temporary workspace. The metrics must count what they say."""

from __future__ import annotations

import json

import pytest

from eval import answers_bench as ab


@pytest.mark.slow
def test_the_bench_runs_on_the_bundled_ai_act_and_every_quote_is_stored_whole_text(tmp_path):
    out, dump = tmp_path / "answers.md", tmp_path / "answers.json"
    out.write_text("notes kept\n" + ab.MARKER + "\nold tables\n", encoding="utf-8")
    code = ab.main(["--sets", "aiact", "--embedder", "hash", "--workspace", str(tmp_path / "ws"),
                    "--out", str(out), "--json", str(dump)])
    assert code == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("notes kept\n" + ab.MARKER) and "old tables" not in text  # notes kept, tables redone
    rows = json.loads(dump.read_text(encoding="utf-8"))
    assert len(rows) == 55 and all(r["answered"] is not None for r in rows)
    quotes = sum(r["quotes"] for r in rows)
    assert quotes >= 55
    assert sum(r["exact"] for r in rows) == quotes
    assert sum(r["whole"] for r in rows) == quotes
    assert sum(r["colon_lost"] for r in rows) == 0
    assert not any(r["opening"] in ("yes", "no") for r in rows if r["kind"] != "yes_no")
    # "answered" never exceeds "reachable": a quote can only overlap a label inside the sources
    assert all(r["reachable"] or not r["answered"] for r in rows)


def test_overlap_and_spans():
    assert ab.overlap([("a", 0, 10)], [("a", 9, 12)]) and not ab.overlap([("a", 0, 10)], [("a", 10, 12)])
    assert not ab.overlap([("a", 0, 10)], [("b", 0, 10)])
    assert ab.spans("one  two\nthree two three", "two three") == [(5, 14), (15, 24)]


def test_an_unknown_set_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as e:
        ab.main(["--sets", "nope"])
    assert e.value.code == 2 and "unknown set(s) nope" in capsys.readouterr().err
