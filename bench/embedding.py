"""Embedding benchmark: throughput and query latency of the MiniLM variants on the AI Act
chunks, and how close each variant's vectors are to float32.

    python -m bench.embedding [--embedders minilm-fp32,minilm-int8] [--limit 959] [--queries 50]

Each variant embeds the same texts (every chunk of the bundled AI Act, structural chunking)
in this process, one after the other; the first variant is the reference for the cosine
agreement. Query latency is one question at a time (eval/questions/aiact.jsonl), as
``retrieve`` does it. The load average is printed with every figure because the machine is
shared. Writes ``bench/results/embedding.json``. See ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
QUESTIONS = BENCH.parent / "eval" / "questions" / "aiact.jsonl"


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def aiact_texts() -> list[str]:
    from anchor_core.chunking import chunk_unit
    from ingest import get_adapter

    return [c.embed_text for u in get_adapter("aiact").load(None).units for c in chunk_unit(u)]


def measure(name: str, texts: list[str], questions: list[str]) -> tuple[dict, np.ndarray]:
    from anchor_core.embeddings import make_embedder

    e = make_embedder(name)
    t = time.perf_counter()
    getattr(e, "_load", lambda: None)()
    load_s = time.perf_counter() - t
    e.embed(questions[:2])  # first call pays one-off allocations
    load_before = _load()
    t, c = time.perf_counter(), time.process_time()
    vectors = e.embed(texts)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    lat = []
    for q in questions:
        t = time.perf_counter()
        e.embed([q])
        lat.append((time.perf_counter() - t) * 1000)
    row = {"embedder": name, "model_id": e.model_id, "threads": getattr(e, "threads", None),
           "model_load_s": round(load_s, 2), "chunks": len(texts), "embed_s": round(wall, 2),
           "embed_cpu_s": round(cpu, 2), "chunks_per_s": round(len(texts) / wall, 1),
           "query_p50_ms": round(float(np.percentile(lat, 50)), 1),
           "query_p95_ms": round(float(np.percentile(lat, 95)), 1),
           "load_before": load_before, "load_after": _load()}
    return row, vectors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embedders", default="minilm-fp32,minilm-int8")
    ap.add_argument("--limit", type=int, default=0, help="embed only the first N chunks (0: all)")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--out", default=str(BENCH / "results" / "embedding.json"))
    args = ap.parse_args(argv)

    texts = aiact_texts()
    texts = texts[:args.limit] if args.limit else texts
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines()
                 if line.strip()][:args.queries]
    rows, ref = [], None
    for name in args.embedders.split(","):
        row, vectors = measure(name, texts, questions)
        ref = vectors if ref is None else ref
        cos = (vectors * ref).sum(1)
        row.update(cosine_to_first={"min": round(float(cos.min()), 4), "p1": round(float(np.percentile(cos, 1)), 4),
                                    "mean": round(float(cos.mean()), 4)})
        rows.append(row)
        print(f"{name:12s} {row['chunks']} chunks in {row['embed_s']:6.1f}s = {row['chunks_per_s']:5.1f} chunks/s "
              f"(cpu {row['embed_cpu_s']:.1f}s, {row['threads']} threads); query p50/p95 {row['query_p50_ms']}/"
              f"{row['query_p95_ms']} ms; cosine to {rows[0]['embedder']} min {row['cosine_to_first']['min']} "
              f"mean {row['cosine_to_first']['mean']}; load {row['load_before']} -> {row['load_after']}", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"rows": rows, "cpus": os.cpu_count(), "python": platform.python_version()},
                                         indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
