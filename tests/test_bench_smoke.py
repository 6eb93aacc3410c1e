"""Smoke test of the speed benchmark: a tiny synthetic corpus, the hash embedder, no MiniLM."""

from __future__ import annotations

from anchor_core.embeddings import HashEmbedder
from anchor_core.stores.sqlite import SQLiteStore
from bench import speed


def _positive_stats(stats: dict) -> None:
    assert stats["n"] == 5
    for key in ("p50", "p95", "max", "mean"):
        assert stats[key] > 0, (key, stats)


def test_synthetic_builder_and_query_loop(tmp_path):
    embedder = HashEmbedder()
    logs: list[str] = []
    res = speed.bench_synthetic(200, 5, embedder, cache_dir=tmp_path, build_in_subprocess=False,
                                profile_above_ms=0.0, log=logs.append)

    build = res["build"]
    assert build["cached"] is False
    assert build["units"] == 50 and build["chunks"] == 200 == res["chunks"]
    assert build["references"] == 150
    for key in ("generate_s", "write_s", "build_s", "db_mb"):
        assert build[key] > 0, key
    assert res["db_mb"] > 0
    assert res["rss_after_matrix_mb"] > 0 and res["matrix_load_s"] > 0
    assert res["bm25_matching_chunks"]["p50"] > 0

    for setting in ("hybrid_hops1", "hybrid_hops0", "bm25_hops1", "dense_hops1"):
        _positive_stats(res[setting]["total"])
    for key in ("embed", "bm25", "dense", "fuse", "hop"):
        _positive_stats(res["hybrid_hops1"][key])
    assert "dense" not in res["bm25_hops1"] and "bm25" not in res["dense_hops1"]
    assert res["profile"]["top_tottime"] and res["profile"]["queries"] == 5

    # The store carries the embedder it was given, so retrieve() accepts the hash embedder.
    store = SQLiteStore(speed.synthetic_cache_path(tmp_path, 200, embedder))
    info = store.corpus(speed.SYNTH_CORPUS)
    assert info.embedder == embedder.model_id and info.dim == embedder.dim
    refs = store.references(speed.SYNTH_CORPUS)
    assert refs and all(r.resolved and r.dst_unit != r.src_unit for r in refs)
    units = store.get_units(speed.SYNTH_CORPUS, [r.src_unit for r in refs[:10]])
    for r in refs[:10]:
        assert units[r.src_unit].text[r.start:r.end] == r.raw
    store.close()

    # A rerun reuses the cached database and says so.
    again = speed.bench_synthetic(200, 5, embedder, cache_dir=tmp_path, build_in_subprocess=False,
                                  profile_above_ms=None, log=logs.append)
    assert again["build"]["cached"] is True and "profile" not in again
    assert any("build skipped" in line for line in logs)

    rows = speed.summary_rows({"synthetic": res})
    assert "hybrid k=5 hops=1" in speed.render(rows)
