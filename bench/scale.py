"""Scale benchmark of the embedded store: synthetic corpora of N chunks (default 100k and 1M)
built in SQLite, reporting ingest rate, hybrid-retrieval latency (p50/p95, one reference hop)
and peak memory, to show where the embedded store stops being enough (README "Elasticsearch").

    python -m bench.scale --sizes 100000            # ~100k chunks
    python -m bench.scale --sizes 100000,1000000 --queries 100

Each size runs in its own process, so its peak RSS is its own. The corpus text and references
come from bench.speed's generator (Zipf vocabulary, 4 parts per unit, ~3 references per unit);
vectors are random unit vectors (384 dims) and question vectors are derived from the question
text, so no model is loaded: the numbers are the store's and the retrieval core's, without the
~10 ms of MiniLM query embedding. Writes ``bench/results/scale.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import platform
import resource
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
DIM = 384


class QuestionVectors:
    """A stand-in embedder: a fixed random unit vector per text (the corpus vectors are random too)."""

    model_id = f"synthetic-random-{DIM}"
    dim = DIM

    def embed(self, texts, *, progress=None) -> np.ndarray:
        out = np.zeros((len(texts), DIM), np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux: KiB


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 2)


def run_size(n_chunks: int, n_queries: int, workdir: str) -> dict[str, Any]:
    """Build one corpus and query it; runs in a child process."""
    from anchor_core.chunking import chunk_unit
    from anchor_core.indexing import resolve_references
    from anchor_core.models import CorpusInfo
    from anchor_core.retrieve import RetrievalSettings, retrieve
    from anchor_core.stores.sqlite import SQLiteStore
    from bench.speed import generate_synthetic, make_questions, random_vectors

    out: dict[str, Any] = {"target_chunks": n_chunks}
    t0 = time.perf_counter()
    documents, units, raw_refs = generate_synthetic(n_chunks)
    chunks = [c for u in units for c in chunk_unit(u)]
    refs, _ = resolve_references(units, raw_refs)
    vectors = random_vectors(len(chunks), DIM)
    out["generate_s"] = round(time.perf_counter() - t0, 1)
    out.update(chunks=len(chunks), units=len(units), references=len(refs))
    out["rss_after_generate_mb"] = _peak_rss_mb()

    db = Path(workdir) / f"scale-{n_chunks}.db"
    store = SQLiteStore(db)
    embedder = QuestionVectors()
    info = CorpusInfo(name="scale", adapter="synthetic", version=uuid.uuid4().hex, documents=len(documents),
                      units=len(units), chunks=len(chunks), references=sum(r.resolved for r in refs),
                      unresolved=sum(not r.resolved for r in refs), embedder=embedder.model_id, dim=DIM)
    t = time.perf_counter()
    store.replace_corpus(info, documents, units, chunks, vectors, refs)
    ingest_s = time.perf_counter() - t
    out["ingest_s"] = round(ingest_s, 1)
    out["ingest_chunks_per_s"] = round(len(chunks) / ingest_s)
    out["db_mb"] = round(sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) / 1e6, 1)
    del documents, units, chunks, vectors, raw_refs

    questions = make_questions(n_queries + 3)
    rs = RetrievalSettings(k=5, hops=1)
    t = time.perf_counter()
    retrieve(questions[0], store=store, embedder=embedder, corpus="scale", settings=rs)
    out["first_query_ms"] = round((time.perf_counter() - t) * 1000, 1)  # loads the vector matrix
    for q in questions[1:3]:
        retrieve(q, store=store, embedder=embedder, corpus="scale", settings=rs)
    totals: list[float] = []
    parts: dict[str, list[float]] = {}
    for q in questions[3:]:
        t = time.perf_counter()
        r = retrieve(q, store=store, embedder=embedder, corpus="scale", settings=rs)
        totals.append((time.perf_counter() - t) * 1000)
        for key in ("bm25", "dense", "hop"):
            parts.setdefault(key, []).append(r.timings_ms.get(key, 0.0))
    out["queries"] = len(totals)
    out["query_p50_ms"], out["query_p95_ms"] = _pct(totals, 50), _pct(totals, 95)
    out.update({f"{k}_p50_ms": _pct(v, 50) for k, v in parts.items()})
    out["peak_rss_mb"] = _peak_rss_mb()
    store.close()
    db.unlink(missing_ok=True)
    return out


def _child(n: int, q: int, workdir: str, conn) -> None:
    try:
        conn.send(run_size(n, q, workdir))
    except BaseException as err:  # report, don't hang the parent
        conn.send({"target_chunks": n, "error": f"{type(err).__name__}: {err}"})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100000,1000000", help="comma-separated chunk counts")
    p.add_argument("--queries", type=int, default=100, help="timed queries per size (after 3 warm-ups)")
    p.add_argument("--workdir", help="where the databases are built (default: a temp dir; deleted after)")
    p.add_argument("--out", default=str(RESULTS / "scale.json"))
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if any(s < 8 for s in sizes) or args.queries < 1:
        p.error("sizes must be at least 8 chunks and --queries at least 1")
    results = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                           "loadavg_start": list(os.getloadavg())}, "runs": []}
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        for n in sizes:
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(n, args.queries, work, child))
            t = time.perf_counter()
            proc.start()
            res = parent.recv()
            proc.join()
            res["wall_s"] = round(time.perf_counter() - t, 1)
            results["runs"].append(res)
            print(json.dumps(res), flush=True)
    results["machine"]["loadavg_end"] = list(os.getloadavg())
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    print("\n| chunks | ingest (chunks/s) | db MB | first query ms | p50 ms | p95 ms | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for r in results["runs"]:
        if "error" in r:
            print(f"| {r['target_chunks']} | error: {r['error']} |")
            continue
        print(f"| {r['chunks']:,} | {r['ingest_chunks_per_s']:,} | {r['db_mb']} | {r['first_query_ms']} | "
              f"{r['query_p50_ms']} | {r['query_p95_ms']} | {r['peak_rss_mb']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
