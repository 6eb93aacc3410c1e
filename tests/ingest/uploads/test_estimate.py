"""An upload says up front how many chunks it will embed and how long that will take."""

from __future__ import annotations

from anchor_core.cli import main
from anchor_core.embed_cache import CachedEmbedder
from anchor_core.embeddings import HashEmbedder, MiniLMEmbedder
from ingest.uploads import estimate as E
from ingest.uploads import ingest_uploads


def test_a_50_mb_text_is_announced_in_minutes_with_the_model_named():
    est = E.estimate("contract.txt", 50_000_000, MiniLMEmbedder())
    assert est.summary() == "contract.txt: 50.0 MB, about 71,429 chunks, about 60 min with minilm"
    assert est.large and not est.exact
    small = E.estimate("note.md", 2_000, MiniLMEmbedder())
    assert not small.large and small.summary() == "note.md: 2.0 kB, about 3 chunks, about 1 s with minilm"
    assert E.estimate("scan.pdf", 10_000_000, MiniLMEmbedder()).chunks == 7_143  # PDFs carry layout bytes


def test_counted_chunks_leave_out_the_cached_ones_and_a_measured_rate_wins(tmp_path):
    cache = CachedEmbedder(HashEmbedder(), tmp_path / "c.db", batch=20)
    assert E.throughput(cache) == E.KNOWN_RATES["hash-bow-384"]  # nothing measured yet
    cache.embed([f"text number {i}" for i in range(100)])  # five batches: four are measured
    assert cache.throughput() is not None and E.throughput(cache) == cache.throughput()
    est = E.estimate("a.txt", 5_000, cache, chunks=10, cached=4)
    assert est.exact and est.summary().startswith("a.txt: 5.0 kB, 10 chunks (4 already embedded), about ")
    assert est.seconds == 6 / cache.throughput()
    assert E.estimate("b.txt", 10, HashEmbedder()).seconds is not None
    unknown = E.estimate("b.txt", 10, type("X", (), {"model_id": "other", "dim": 3})())
    assert unknown.seconds is None and unknown.summary() == "b.txt: 0.0 kB, about 1 chunk"


def test_progress_carries_the_counted_estimate_before_embedding(tmp_path):
    seen = []
    text = "\n\n".join(f"Paragraph {i} " + "word " * 150 for i in range(30)).encode()
    cache = CachedEmbedder(HashEmbedder(), tmp_path / "c.db")
    [res] = ingest_uploads_with(seen, cache, text, tmp_path)
    [embed] = [p for p in seen if p.stage == "embed" and p.done == 0]
    assert embed.estimate is not None and embed.estimate.exact and embed.estimate.chunks == res.chunks
    assert res.estimate == embed.estimate and embed.estimate.cached == 0


def ingest_uploads_with(seen, embedder, text, tmp_path):
    from anchor_core.stores.sqlite import SQLiteStore

    return ingest_uploads(SQLiteStore(tmp_path / "a.db"), embedder, [("long.txt", text)], corpus="c",
                          progress=seen.append)


def test_the_cli_prints_the_estimate_of_a_long_upload_before_it_starts(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(E, "WARN_SECONDS", 0.0)  # every upload counts as long
    f = tmp_path / "big.txt"
    f.write_text("\n\n".join(f"Paragraph {i} " + "word " * 150 for i in range(200)))
    assert main(["ingest", "--path", str(f), "--corpus", "c", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("big.txt: 0.2 MB, about 219 chunks, about ")
    assert lines[0].endswith("(estimated from the size; it is counted before embedding starts)")
    assert lines[1].startswith("embedding big.txt: 0.2 MB, ") and " chunks, about " in lines[1]
    assert lines[2].startswith("big.txt: ingested as big")
    monkeypatch.setattr(E, "WARN_SECONDS", 120.0)
    f.write_text("A short note.")
    assert main(["ingest", "--path", str(f), "--corpus", "c", "-q"]) == 0
    assert capsys.readouterr().out.startswith("big.txt: replaced")  # a short upload says nothing extra
