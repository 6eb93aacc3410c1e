"""The CLI saves its runs in the reports database, reviews them (``anchor reports``), and re-checks any
export of any run; reports written before ask and verify shared one record still read back."""

from __future__ import annotations

import json
import sqlite3

import pytest

from anchor_core import render
from anchor_core.cli import main
from anchor_core.config import Settings
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.reports import ReportStore
from anchor_core.stores import open_store
from tests.ask_fixtures import drone_corpus

QUESTION = "Must drone operators register before the first flight?"
ART4 = "Providers and deployers of AI systems shall take measures to ensure a sufficient level of AI literacy."


def reports() -> ReportStore:
    return ReportStore.in_home(Settings.from_env().home)


@pytest.fixture
def drones():
    ingest(open_store(Settings.from_env()), HashEmbedder(), drone_corpus(), corpus="drones", adapter="test")


@pytest.fixture
def verify_files(tmp_path):
    (tmp_path / "answer.txt").write_text('<cite id="art4">Providers and deployers shall ensure a sufficient level '
                                         'of AI literacy</cite>. Deployers must pay every member of staff a bonus.')
    (tmp_path / "sources.json").write_text(json.dumps({"art4": ART4}))
    return tmp_path


def verify(d, *extra: str) -> int:
    return main(["verify", "-a", str(d / "answer.txt"), "-s", str(d / "sources.json"), "--scorer", "lexical",
                 *extra])


def test_cli_runs_are_saved_and_listed_unless_no_save(drones, verify_files, capsys):
    assert main(["ask", QUESTION, "--corpus", "drones"]) == 0
    out, err = capsys.readouterr()
    assert "saved as run" not in out and "saved as run" in err  # stdout stays the report
    assert verify(verify_files, "--fail-under", "0") == 0
    assert main(["ask", QUESTION, "--corpus", "drones", "--no-save"]) == 0
    assert verify(verify_files, "--fail-under", "0", "--no-save") == 0
    listed = reports().list()
    assert sorted(s.kind for s in listed) == ["ask", "verify"]
    capsys.readouterr()
    assert main(["reports", "list"]) == 0
    out = capsys.readouterr().out
    assert all(s.id in out for s in listed) and "not reviewed" in out and QUESTION in out
    assert main(["reports", "list", "--kind", "verify"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "verify" in out


def test_mark_show_and_export_a_run(verify_files, tmp_path, capsys, monkeypatch):
    verify(verify_files, "--fail-under", "0")
    run = reports().list()[0]
    assert main(["reports", "mark", run.id, "2", "rejected", "--reviewer", "Ada"]) == 2
    assert "needs a comment" in capsys.readouterr().err
    assert main(["reports", "mark", run.id, "1", "accepted"]) == 2
    assert "enter your name" in capsys.readouterr().err
    monkeypatch.setenv("ANCHOR_REVIEWER", "Bo")
    assert main(["reports", "mark", run.id, "1", "accepted"]) == 0
    assert main(["reports", "mark", run.id, "2", "rejected", "-m", "no bonus in art4", "--reviewer", "Ada"]) == 0
    assert "marked rejected by Ada" in capsys.readouterr().out
    assert main(["reports", "show", run.id]) == 0
    shown = capsys.readouterr().out
    assert "accepted by Bo" in shown and "no bonus in art4" in shown and "anchor-report-json" not in shown
    assert main(["reports", "show", run.id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reviews"][1]["comment"] == "no bonus in art4"
    assert main(["reports", "show", "nope"]) == 2
    saved = reports().get(run.id)
    for ext in ("md", "html", "pdf", "json"):
        path = tmp_path / f"run.{ext}"
        assert main(["reports", "export", run.id, str(path)]) == 0
        back = render.read_export(path.read_bytes())
        assert back == saved and back.reviews[1].verdict == "rejected"
    other = tmp_path / "other-home"
    monkeypatch.setenv("ANCHOR_HOME", str(other))
    assert main(["reports", "import", str(tmp_path / "run.pdf")]) == 0
    assert "2 reviewer marks" in capsys.readouterr().out
    assert reports().get(run.id).reviews == saved.reviews


@pytest.mark.parametrize("ext", ["json", "md", "html", "pdf"])
def test_recheck_reads_every_format_of_an_ask_run(drones, tmp_path, capsys, ext):
    out = tmp_path / f"r.{ext}"
    assert main(["ask", QUESTION, "--corpus", "drones", "--output", str(out)]) == 0
    back = render.read_export(out.read_bytes())
    saved = reports().get(reports().list()[0].id)
    assert back == saved  # the CLI's export is the dashboard's: same record, hashes and gate signals
    if ext in ("md", "html"):
        text = out.read_text()
        assert "sha256" in text and "gate signals" in text
    capsys.readouterr()
    assert main(["recheck", str(out)]) == 0
    assert "all quotes intact" in capsys.readouterr().out


def test_recheck_a_verify_run_against_its_sources(verify_files, tmp_path, capsys):
    out = tmp_path / "v.html"
    assert verify(verify_files, "--format", "html", "--output", str(out), "--fail-under", "0") == 0
    capsys.readouterr()
    assert main(["recheck", str(out)]) == 0
    assert "the texts saved with the run" in capsys.readouterr().out
    amended = tmp_path / "new"
    amended.mkdir()
    (amended / "art4.txt").write_text("0. A new first paragraph. " + ART4)
    assert main(["recheck", str(out), "--sources", str(amended)]) == 0
    assert "moved" in capsys.readouterr().out
    (amended / "art4.txt").write_text("Nothing of the kind.")
    assert main(["recheck", str(out), "-s", str(amended)]) == 1


def test_ask_and_dashboard_use_the_same_scorer_threshold(drones, capsys):
    assert main(["ask", QUESTION, "--corpus", "drones", "--json", "--no-save"]) == 0
    data = json.loads(capsys.readouterr().out)
    from anchor_core.scorers import make_scorer

    assert data["threshold"] == make_scorer("learned").threshold == data["claims"][0]["anchor"]["threshold"]


# -- records written before ask and verify shared one --------------------------------------------------

LEGACY_VERIFY = {
    "answer": '<cite id="art4">Providers shall ensure AI literacy</cite>',
    "sources": {"art4": "5e" * 32},
    "claims": [{"index": 1, "text": "Providers shall ensure AI literacy", "line": 1, "cite_ids": ["art4"],
                "atoms": [{"text": "Providers shall ensure AI literacy", "source_id": "art4", "supported": True,
                           "anchor": {"quote": "Providers", "start": 0, "end": 9, "score": 0.9, "supported": True,
                                      "method": "lexical", "threshold": 0.51, "flags": ["modality_change"]}}],
                "verdict": "supported", "reason": "every part is anchored in cited source art4"}],
    "verified_fraction": 1.0, "passed": True, "scorer": "lexical", "threshold": 0.51, "embedder": None,
    "created_at": "2026-11-01T10:00:00+00:00", "note": "",
}
LEGACY_ASK = {
    "kind": "ask", "question": "Must drones register?", "corpus": "drones", "corpus_version": "v1", "refused": False,
    "answer": "Yes [1].", "claims": [{"text": "Drones register.", "cited": [1], "supported": True,
                                      "verdict": "supported", "atoms": ["Drones register."],
                                      "anchor": {"source": 1, "unit_id": "article-3", "quote": "register", "start": 3,
                                                 "end": 11, "score": 1.0, "method": "verbatim", "threshold": 0.47}}],
    "sources": [], "created_at": "2026-11-01T10:00:00+00:00",
}


def test_old_exports_and_old_cli_json_read_back():
    v = render.from_record(LEGACY_VERIFY)  # `anchor verify --format json` of before
    assert v.kind == "verify" and v.claims[0].anchor.unit_id == "art4" and v.claims[0].status == "flagged"
    assert v.sources[0].unit_sha256 == "5e" * 32 and v.models["scorer"] == "lexical"
    a = render.from_record(LEGACY_ASK)  # `anchor ask --output r.json` of before
    assert a.kind == "ask" and a.claims[0].atoms[0].text == "Drones register."
    wrapped = {"format": "anchor-report", "format_version": 1,
               "run": {"id": "abc", "kind": "verify", "title": "t", "created_at": "2026-11-01T10:00:00+00:00",
                       "verify": {"report": LEGACY_VERIFY, "sources": {"art4": "Providers shall …"}},
                       "reviews": [{"claim": 1, "verdict": "accepted", "reviewer": "Ada"}]}}
    w = render.read_export(json.dumps(wrapped))  # a dashboard export of before
    assert w.id == "abc" and w.reviews[0].reviewer == "Ada" and w.sources[0].text == "Providers shall …"


def test_runs_saved_before_still_open(tmp_path):
    rs = ReportStore(tmp_path / "reports.db")
    db = sqlite3.connect(rs.path)
    for rid, kind, payload in (("old-ask", "ask", LEGACY_ASK),
                               ("old-verify", "verify", {"report": LEGACY_VERIFY, "sources": {"art4": "P"}})):
        db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (rid, kind, "t", "", "2026-11-01T10:00:00+00:00", 0, 1, 1.0, json.dumps(payload)))
    db.commit()
    rs.review("old-verify", 1, "accepted", reviewer="Ada")
    assert rs.get("old-ask").question == "Must drones register?"
    old = rs.get("old-verify")
    assert old.sources[0].text == "P" and old.reviews[0].reviewer == "Ada"
    assert {s.id for s in rs.list()} == {"old-ask", "old-verify"}
