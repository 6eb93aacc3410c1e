"""``anchor ingest --path FILE_OR_DIR --corpus NAME [--groups ...]`` and hits with pages in ``--json``."""

from __future__ import annotations

import json

from anchor_core.cli import main
from tests.ingest.uploads import pdfs


def _folder(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "policy.pdf").write_bytes(pdfs.contract_pdf())
    (d / "scan.pdf").write_bytes(pdfs.image_only_pdf())
    (d / "notes.md").write_text("# Notes\n\n## Travel\n\nTrains are booked in second class.\n\n## Hotels\n\n"
                                "See clause 6 of the Group Personal Accident Agreement.\n")
    (d / ".hidden.txt").write_text("never read")
    return d


def test_upload_a_folder_prints_a_summary_per_file(tmp_path, capsys):
    d = _folder(tmp_path)
    assert main(["ingest", "--path", str(d), "--corpus", "c", "--groups", "hr, legal", "-q"]) == 1  # scan.pdf failed
    out = capsys.readouterr().out
    assert "policy.pdf: ingested as policy (version 1, pdf), 3 pages, 10 units" in out
    assert "structure: 7 numbered clauses, 2 schedules" in out
    assert ("warning: removed 3 running header/footer lines (1 distinct): 'ACME Group Accident Policy - "
            "Confidential'; and 3 page numbers") in out
    assert "scan.pdf: FAILED: no text layer; run OCR first" in out
    assert "notes.md: ingested as notes" in out and ".hidden" not in out
    assert "3 files: 2 ingested, 0 replaced, 0 unchanged, 1 failed" in out

    (d / "scan.pdf").unlink()
    assert main(["ingest", "uploads", "--path", str(d / "policy.pdf"), "--corpus", "c", "--groups", "hr,legal",
                 "-q"]) == 0
    assert "skipped, identical to the stored version 1" in capsys.readouterr().out

    assert main(["retrieve", "Where must notice of a claim be sent?", "--corpus", "c", "--group", "hr",
                 "--json", "--k", "3"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    top = hits[0]
    assert (top["unit_id"], top["part"], top["page"], top["document"]) == ("policy/6", "6.2", 2, "policy.pdf")
    assert main(["retrieve", "notice of a claim", "--corpus", "c", "--group", "finance", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"] == []  # the documents belong to hr and legal only


def test_upload_needs_a_corpus_and_an_existing_path(tmp_path, capsys):
    assert main(["ingest", "--path", str(tmp_path)]) == 2
    assert "--corpus NAME" in capsys.readouterr().err
    assert main(["ingest", "--path", str(tmp_path / "nope"), "--corpus", "c"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_size_limit_from_the_environment(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ANCHOR_MAX_UPLOAD_MB", "0.001")
    f = tmp_path / "big.txt"
    f.write_text("Some words. " * 200)
    assert main(["ingest", "--path", str(f), "--corpus", "c", "-q"]) == 1
    assert "over the upload limit of 0.001 MB" in capsys.readouterr().out
