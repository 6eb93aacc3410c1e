import json
import os
import subprocess
import sys

import pytest

from anchor_core.cli import main
from tests.conftest import REPO

QUESTION = "Is an AI system used to evaluate job applicants considered high risk?"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def aiact(capsys):
    code, out, _ = run(capsys, "ingest", "aiact", "-q")
    assert code == 0
    return out


def test_ingest_reports_counts(aiact):
    assert "corpus aiact: 1 documents, 306 units" in aiact
    assert "resolved" in aiact and "unresolved" in aiact


def test_retrieve_json_schema(aiact, capsys):
    code, out, _ = run(capsys, "retrieve", QUESTION, "--json", "--k", "5")
    assert code == 0
    data = json.loads(out)
    assert data["question"] == QUESTION
    assert set(data["timings_ms"]) >= {"total", "bm25", "dense", "hop"}
    assert len(data["hits"]) == 5
    for i, h in enumerate(data["hits"], start=1):
        assert set(h) >= {"unit_id", "part", "chunk_id", "score", "rank", "via", "text"}
        assert h["rank"] == i
        assert all(isinstance(v, str) and "(" not in v for v in h["via"])
    scores = [h["score"] for h in data["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_retrieve_text_shows_paths(aiact, capsys):
    code, out, _ = run(capsys, "retrieve", QUESTION, "--k", "8", "--hops", "1")
    assert code == 0
    assert "direct" in out and "timings (ms)" in out


def test_reingest_replaces_and_corpora_lists(aiact, capsys):
    run(capsys, "ingest", "aiact", "-q", "--chunking", "fixed")
    code, out, _ = run(capsys, "corpora")
    assert code == 0 and out.count("aiact") == 2 and "fixed" in out  # name + adapter columns, one row


@pytest.mark.parametrize("argv, message", [
    (["ingest", "nosuch"], "unknown corpus adapter 'nosuch'; choose one of"),
    (["ingest", "peps"], "needs --path"),
    (["ingest", "files", "--path", "/does/not/exist"], "does not exist"),
    (["retrieve", "the of and", "--corpus", "aiact"], "no corpus named 'aiact'"),
])
def test_bad_input_exits_non_zero_with_a_message(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_empty_folder_and_stop_word_question(tmp_path, aiact, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "ingest", "files", "--path", str(empty))
    assert code == 2 and "nothing was ingested" in err
    code, _, err = run(capsys, "retrieve", "what is the of and?")
    assert code == 2 and "only stop-words" in err
    code, _, err = run(capsys, "retrieve", "high risk", "--k", "0")
    assert code == 2 and "k must be greater than 0" in err
    code, out, _ = run(capsys, "corpora")
    assert "aiact" in out  # nothing stored was lost by the failures


def test_failed_ingest_keeps_the_previous_corpus(tmp_path, capsys):
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "travel.md").write_text("# Travel\n\nTrains are preferred over planes for trips under 500 km.\n")
    assert run(capsys, "ingest", "files", "--path", str(folder), "-q")[0] == 0
    (folder / "bad.txt").write_bytes(b"\xff\xfe\x00broken")
    code, _, err = run(capsys, "ingest", "files", "--path", str(folder), "-q")
    assert code == 2 and "bad.txt" in err
    code, out, _ = run(capsys, "retrieve", "trains or planes for short trips", "--corpus", "files", "--json")
    assert code == 0 and "Trains are preferred" in json.loads(out)["hits"][0]["text"]


def test_console_script_runs(tmp_path):
    env = {**os.environ, "ANCHOR_HOME": str(tmp_path / "h"), "ANCHOR_EMBEDDER": "hash"}
    p = subprocess.run([sys.executable, "-m", "anchor_core.cli", "corpora"], capture_output=True, text=True, env=env,
                       cwd=REPO, timeout=60)
    assert p.returncode == 0 and "no corpora" in p.stdout
