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
    assert "corpus aiact: 1 document, 306 units" in aiact
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
    # an upload of an empty folder prints its one error line, not an empty progress bar first
    code, _, err = run(capsys, "ingest", "--path", str(empty), "--corpus", "up")
    assert code == 2 and err == f"error: {empty} holds no files to ingest\n", err
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


@pytest.fixture
def verify_files(tmp_path):
    (tmp_path / "answer.txt").write_text("Providers shall keep logs.")
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "a.txt").write_text("Providers shall keep logs for six months.")
    (tmp_path / "deep.json").write_text('{"a":' * 50_000 + '"x"' + "}" * 50_000)
    os.mkfifo(tmp_path / "pipe")
    zipped = tmp_path / "broken.docx"
    import zipfile

    with zipfile.ZipFile(zipped, "w") as z:  # a ZIP that claims to be Word, with a broken main part
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", "<not xml")
    return tmp_path


BROKEN = [
    (["verify", "-a", "{d}/answer.txt", "-s", "{d}/sources", "--output", "{d}/missing/report.md"],
     "the folder {d}/missing does not exist"),
    (["verify", "-a", "{d}/answer.txt", "-s", "{d}/sources", "--output", "{d}"], "is a folder; give a file name"),
    (["ask", QUESTION, "--output", "{d}/missing/report.json"], "does not exist; create it first"),
    (["verify", "-a", "{d}/answer.txt", "-s", "{d}/deep.json"], "nested too deeply"),
    (["verify", "-a", "{d}/pipe", "-s", "{d}/sources"], "is not a regular file"),
    (["ingest", "--path", "{d}/pipe", "--corpus", "x"], "is not a regular file"),
    (["verify", "-a", "{d}/answer.txt", "-s", "{d}/broken.docx"],
     "the source broken.docx cannot be read: the Word file"),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("argv,message", BROKEN, ids=["output-missing-folder", "output-is-folder", "ask-output",
                                                        "deep-json", "fifo-answer", "fifo-upload", "bad-docx-source"])
def test_broken_invocations_exit_2_with_one_line(verify_files, capsys, argv, message):
    d = str(verify_files)
    code, out, err = run(capsys, *[a.format(d=d) for a in argv])
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and message.format(d=d) in err and "Traceback" not in err


def test_an_answer_is_verified_against_a_pdf_and_a_word_document_with_pages(tmp_path, capsys):
    import docx

    from tests.ingest.uploads import pdfs

    src = tmp_path / "docs"
    src.mkdir()
    (src / "supply.pdf").write_bytes(pdfs.text_pdf([
        ["SUPPLY AGREEMENT", "1. DELIVERY", "1.1 The Supplier shall deliver the Goods to the Customer."],
        ["1.2 The Customer shall notify any defect within 7 days of delivery."]]))
    d = docx.Document()
    d.add_paragraph("The Customer pays each invoice within 30 days.")
    d.save(str(src / "terms.docx"))
    (tmp_path / "answer.md").write_text('Defects must be notified within 7 days of delivery.<cite id="supply"/> '
                                        'Invoices are paid within 60 days.<cite id="terms"/>')
    code, out, err = run(capsys, "verify", "-a", str(tmp_path / "answer.md"), "-s", str(src), "--format", "json",
                         "--no-save")
    assert "Traceback" not in err
    r = json.loads(out)
    first, second = r["claims"]
    assert first["verdict"] == "supported" and first["anchor"]["page"] == 2  # the quote's page, not the first
    assert r["sources"][0]["text"][first["anchor"]["start"]:first["anchor"]["end"]] == first["anchor"]["quote"]
    assert second["verdict"] == "contradicted"  # 60 days against the Word document's 30
    # one PDF given as the sources: the same, and the markdown report names the page
    (tmp_path / "one.md").write_text('Defects must be notified within 7 days of delivery.<cite id="supply"/>')
    code, out, err = run(capsys, "verify", "-a", str(tmp_path / "one.md"), "-s", str(src / "supply.pdf"), "--no-save")
    assert code == 0 and "page 2, characters" in out, err


def test_the_answer_in_its_sources_folder_is_not_one_of_its_sources(verify_files, capsys):
    (verify_files / "sources" / "answer.md").write_text("Providers shall keep logs for ten years.")
    answer = verify_files / "sources" / "answer.md"
    code, out, err = run(capsys, "verify", "-a", str(answer), "-s", str(verify_files / "sources"), "--format", "json",
                         "--no-save")
    r = json.loads(out)
    assert [s["unit_id"] for s in r["sources"]] == ["a"]  # not "answer": it would quote itself
    assert r["claims"][0]["verdict"] != "supported"  # six months, not ten years
    assert "answer.md is the answer being verified: it is not one of its sources" in err
    code, out, err = run(capsys, "verify", "-a", str(answer), "-s", str(answer))
    assert code == 2 and "is the answer itself" in err


def test_malformed_docx_fails_alone_without_a_traceback(verify_files, capsys, caplog):
    code, out, err = run(capsys, "ingest", "--path", str(verify_files / "broken.docx"), "--corpus", "x", "-q")
    assert code == 1  # the file failed; the invocation was fine
    assert "broken.docx: FAILED: the Word file is damaged" in out
    assert "Traceback" not in err + out and not any(r.exc_info for r in caplog.records)


def test_a_damaged_pdf_fails_alone_in_one_line_without_the_pdf_library_s_repair_notes(verify_files, capsys, caplog):
    (verify_files / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    code, out, err = run(capsys, "ingest", "--path", str(verify_files / "bad.pdf"), "--corpus", "x", "-q")
    assert code == 1
    assert "bad.pdf: FAILED: the PDF is damaged" in out and "1 file: 0 ingested" in out
    assert not [r for r in caplog.records if r.name.startswith("pypdf")], "pypdf's notes show only with --verbose"
    assert "Traceback" not in err + out


@pytest.mark.timeout(60)
def test_elasticsearch_down_is_one_message_not_tracebacks(monkeypatch, capsys):
    monkeypatch.setenv("ANCHOR_STORE", "elasticsearch")
    monkeypatch.setenv("ANCHOR_ES_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ANCHOR_ES_RETRIES", "1")
    monkeypatch.setenv("ANCHOR_ES_TIMEOUT", "2")
    code, out, err = run(capsys, "corpora")
    assert code == 2
    assert err.startswith("error: cannot reach Elasticsearch") and "Traceback" not in err
    assert err.count("\n") == 1, err


def test_an_unexpected_failure_is_one_line_exit_2(monkeypatch, capsys):
    import anchor_core.cli as cli

    def boom(args, settings):
        raise RuntimeError("disk on fire\nsecond line")

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with(parser(), "corpora", boom))
    code, out, err = run(capsys, "corpora")
    assert code == 2 and err == "error: RuntimeError: disk on fire (run again with -v to see where; please report it)\n"


def _with(parser, command, func):
    parser._subparsers._group_actions[0].choices[command].set_defaults(func=func)
    return parser


def test_a_reader_that_goes_away_ends_the_output_quietly(verify_files):
    """``anchor verify ... | head -1``: no 'BrokenPipeError' message, the shell's 141. The reader is
    gone before the first write (stdout is a pipe whose read end is closed), so there is no race."""
    env = {**os.environ, "ANCHOR_HOME": str(verify_files / "h"), "ANCHOR_EMBEDDER": "hash", "PYTHONPATH": str(REPO)}
    argv = ["verify", "-a", f"{verify_files}/answer.txt", "-s", f"{verify_files}/sources", "--format", "json",
            "--no-save"]
    code = ("import os, sys\nr, w = os.pipe()\nos.close(r)\nos.dup2(w, 1)\nfrom anchor_core.cli import main\n"
            f"sys.exit(main({argv!r}))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    assert p.stderr == "" and p.returncode == 141


def test_the_dashboard_starts_through_the_preloading_launcher():
    """``anchor dashboard`` runs Streamlit through ``anchor_app.serve``, which imports the pages'
    modules before the server starts (the first visitor no longer waits for them); the import
    alone opens nothing and prints nothing (tests/test_browser.py starts it for real)."""
    import argparse
    import subprocess
    import sys

    from anchor_core.cli import dashboard_command

    cmd = dashboard_command(argparse.Namespace(port=8599, host="127.0.0.1", no_browser=True))
    assert cmd[1:4] == ["-m", "anchor_app.serve", "run"] and cmd[4].endswith("main.py")
    probe = ("import sys; from anchor_app.serve import preload; preload(); "
             "print(all(m in sys.modules for m in ('resources', 'widgets', 'jobs', 'anchor_core.workspace')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_stopping_the_dashboard_command_stops_the_server_it_started(tmp_path):
    """A service manager (or ``kill``) that sends SIGTERM to ``anchor dashboard`` must not leave the
    Streamlit server running as an orphan: the signal is passed on and the command returns."""
    import signal
    import time

    pidfile = tmp_path / "server.pid"
    server = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(120)"
    code = ("import sys\nfrom anchor_core import cli\n"
            f"sys.exit(cli.run_forwarding([sys.executable, '-c', {server!r}], dict(__import__('os').environ)))")
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=REPO)
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.05)
    child = int(pidfile.read_text())
    parent.send_signal(signal.SIGTERM)
    assert parent.wait(timeout=20) == 128 + signal.SIGTERM  # the server's exit by that signal, passed back
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the server outlived the dashboard command")
