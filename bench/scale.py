"""Scale benchmark of the embedded store: corpora of N chunks (default 100k and 1M) built in
SQLite, reporting the store's ingest rate, lexical top-50 latency of FTS5 / tantivy (the
store's engine) / bm25s side by side, hybrid-retrieval latency (k=5, one reference hop) warm
and in a fresh process, vector recall@50 against exact search, and peak memory.

    python -m bench.scale --sizes 100000                 # real and synthetic text, 100k chunks
    python -m bench.scale --sizes 100000,1000000 --text real

Two kinds of text:

- ``real``: the regulatory and standards corpora (AI Act, GDPR, PEPs, RFCs, ADGM; from
  ``ANCHOR_BENCH_DATA`` or ``../shared/data/corpora``) cut into 800-character chunks by the
  product's chunker and topped up to N with sentence-shuffled copies of their units (other
  document ids), asked the eval questions of those corpora (``eval/questions``). Skipped with a
  note when the corpora are absent.
- ``synthetic``: bench.speed's generator (Zipf vocabulary, 4 parts per unit, ~3 references per
  unit) and its Zipf questions, which match most chunks (the worst case for FTS5).

Vectors are random unit vectors (384 dims) and question vectors derived from the question text,
so no model is loaded: the numbers are the store's and the retrieval core's, without the ~10 ms
of MiniLM query embedding. Recall@50 is measured for two kinds of query vector: random ones (no
close neighbour: the hardest case for a quantized pre-filter) and stored vectors plus noise
(cosine ~0.7 to their source, like a question and its passage). Each size and text runs in its
own process, so its peak RSS is its own. Writes ``bench/results/scale.json`` and prints tables.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
DIM = 384
REAL = ("aiact", "gdpr", "peps", "rfc", "adgm")
LEXICAL_K = 50


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
    return round(float(np.percentile(values, q)), 2) if values else float("nan")


def corpora_dir() -> Path:
    from eval.data import CORPORA

    return CORPORA


def real_corpus(n_chunks: int):
    """The real corpora as 800-character chunks, topped up to ``n_chunks`` with copies of their
    units whose sentences are shuffled (documents ``<doc>~<copy>``); the eval questions."""
    from anchor_core.chunking import chunk_unit
    from anchor_core.indexing import resolve_references
    from anchor_core.models import Document
    from ingest import load_adapter_corpus

    documents, units, raw_refs, questions = [], [], [], []
    for name in REAL:
        parsed = load_adapter_corpus(name, corpora_dir() / name)
        # Unit and document ids are unique within a corpus only ("article-1" of the AI Act and GDPR).
        documents += [d.model_copy(update={"doc_id": f"{name}/{d.doc_id}"}) for d in parsed.documents]
        units += [u.model_copy(update={"unit_id": f"{name}/{u.unit_id}", "doc_id": f"{name}/{u.doc_id}"})
                  for u in parsed.units]
        raw_refs += [r.model_copy(update={"src_unit": f"{name}/{r.src_unit}",
                                          "dst_unit": f"{name}/{r.dst_unit}" if r.dst_unit else None})
                     for r in parsed.references]
        qfile = REPO / "eval" / "questions" / f"{name}.jsonl"
        if qfile.exists():
            questions += [json.loads(line)["question"] for line in qfile.read_text().splitlines() if line.strip()]
    refs, _ = resolve_references(units, raw_refs)

    def cut(u):
        return chunk_unit(u, "fixed", window=800)

    chunks = [c for u in units for c in cut(u)]
    originals = list(units)
    original_docs = list(documents)
    rng = random.Random(15)
    copy = 0
    while len(chunks) < n_chunks:
        copy += 1
        documents += [Document(doc_id=f"{d.doc_id}~{copy}", title=f"{d.title} (copy {copy})", groups=d.groups)
                      for d in original_docs]
        for u in originals:
            sentences = re.split(r"(?<=[.;:])\s+", u.text)
            rng.shuffle(sentences)
            c_unit = u.model_copy(update={"unit_id": f"{u.unit_id}~{copy}", "doc_id": f"{u.doc_id}~{copy}",
                                          "text": " ".join(sentences), "parts": []})
            units.append(c_unit)
            chunks += cut(c_unit)
            if len(chunks) >= n_chunks:
                break
    chunks = chunks[:n_chunks]
    keep_units = {c.unit_id for c in chunks}
    units = [u for u in units if u.unit_id in keep_units]
    keep_docs = {u.doc_id for u in units}
    documents = [d for d in documents if d.doc_id in keep_docs]
    return documents, units, chunks, refs, questions


def synthetic_corpus(n_chunks: int, n_questions: int):
    from anchor_core.chunking import chunk_unit
    from anchor_core.indexing import resolve_references
    from bench.speed import generate_synthetic, make_questions

    documents, units, raw_refs = generate_synthetic(n_chunks)
    chunks = [c for u in units for c in chunk_unit(u)]
    refs, _ = resolve_references(units, raw_refs)
    return documents, units, chunks, refs, make_questions(n_questions)


def lexical_side_by_side(store, corpus: str, chunks, questions: list[str], with_bm25s: bool,
                         limit: int | None = None) -> dict[str, Any]:
    """Top-50 for every question (the first ``limit`` with a limit) through FTS5 (the store's own
    table, in the query shape the store used before tantivy: a join on the chunks with the corpus
    and kind filter), tantivy (the store's ``search_bm25``, with the same filter and the chunk-id
    lookup) and bm25s (its own index of the same bodies, English stemmer), in one process, one
    after the other per question."""
    from anchor_core.models import Filters
    from anchor_core.text import query_terms

    f = store._rows("SELECT fts FROM corpora WHERE name = ?", (corpus,))[0][0]
    fts_sql = (f"SELECT c.chunk_id, bm25({f}) AS s FROM {f} JOIN chunks c ON c.id = {f}.rowid "
               f"WHERE {f} MATCH ? AND c.corpus = ? AND c.kind NOT IN (?) ORDER BY s LIMIT ?")
    out: dict[str, Any] = {}
    retriever = None
    if with_bm25s:
        import bm25s
        import Stemmer

        t = time.perf_counter()
        stemmer = Stemmer.Stemmer("english")
        tokens = bm25s.tokenize([f"{c.lead}\n{c.text}" for c in chunks], stopwords="en", stemmer=stemmer,
                                show_progress=False)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        out["bm25s_index_s"] = round(time.perf_counter() - t, 1)
    filters = Filters(exclude_kinds=["recital"])
    times: dict[str, list[float]] = {"fts5": [], "tantivy": [], "bm25s": []}
    overlap: list[float] = []
    asked = [t for t in map(query_terms, questions) if t][:limit]
    for i, terms in enumerate(asked):
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        t0 = time.perf_counter()
        fts = store._rows(fts_sql, [match, corpus, "recital", LEXICAL_K])
        t1 = time.perf_counter()
        tan = store.search_bm25(corpus, terms, LEXICAL_K, filters)
        t2 = time.perf_counter()
        if i >= 3:  # the first questions warm the caches of both
            times["fts5"].append((t1 - t0) * 1000)
            times["tantivy"].append((t2 - t1) * 1000)
        if fts:
            overlap.append(len({r[0] for r in fts} & {c for c, _ in tan}) / len(fts))
        if retriever is not None:
            qt = bm25s.tokenize([" ".join(terms)], stopwords="en", stemmer=stemmer, show_progress=False)
            t3 = time.perf_counter()
            if qt.ids and qt.ids[0]:
                retriever.retrieve(qt, k=LEXICAL_K, show_progress=False, n_threads=1)
            if i >= 3:
                times["bm25s"].append((time.perf_counter() - t3) * 1000)
    for name, v in times.items():
        if v:
            out[f"{name}_p50_ms"], out[f"{name}_p95_ms"] = _pct(v, 50), _pct(v, 95)
    out["lexical_questions"] = len(times["tantivy"])
    out["fts5_tantivy_top50_overlap"] = round(float(np.mean(overlap)), 3) if overlap else None
    return out


def vector_recall(store, corpus: str, vectors: np.ndarray, n: int = 100) -> dict[str, Any]:
    """recall@50 of the store's vector search against exact float32 search, two query kinds."""
    from anchor_core.models import Filters

    rng = np.random.default_rng(5)
    rand = rng.standard_normal((n, DIM)).astype(np.float32)
    src = vectors[rng.integers(0, len(vectors), n)]
    near = src + rng.standard_normal((n, DIM)).astype(np.float32) * (1.0 / np.sqrt(DIM))
    out: dict[str, Any] = {}
    rows = store._rows("SELECT chunk_id FROM chunks WHERE corpus = ? ORDER BY id", (corpus,))
    ids = np.array([r[0] for r in rows], dtype=object)
    for name, qs in (("random", rand), ("near", near)):
        qs = qs / np.linalg.norm(qs, axis=1, keepdims=True)
        recalls, times = [], []
        for q in qs:
            exact = set(ids[np.argpartition(-(vectors @ q), 49)[:50]])
            t = time.perf_counter()
            got = store.search_vector(corpus, q, 50, Filters())
            times.append((time.perf_counter() - t) * 1000)
            recalls.append(len(exact & {c for c, _ in got}) / 50)
        out[f"recall50_{name}_mean"] = round(float(np.mean(recalls)), 4)
        out[f"recall50_{name}_min"] = round(float(np.min(recalls)), 4)
        out[f"vector_top50_{name}_p50_ms"] = _pct(times, 50)
    return out


FRESH = """
import json, sys, time
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from bench.scale import QuestionVectors
t0 = time.perf_counter()
store = SQLiteStore(sys.argv[1])
questions = json.loads(sys.argv[2])
out = []
for q in questions:
    r = retrieve(q, store=store, embedder=QuestionVectors(), corpus="scale", settings=RetrievalSettings(k=5, hops=1))
    out.append(r.timings_ms["total"] - r.timings_ms.get("embed", 0.0))
print(json.dumps({"first_ms": out[0], "rest": out[1:], "process_s": time.perf_counter() - t0}))
"""


def _retrieval_times(store, questions: list[str]) -> tuple[list[float], dict[str, list[float]]]:
    from anchor_core.retrieve import RetrievalSettings, retrieve

    embedder = QuestionVectors()
    rs = RetrievalSettings(k=5, hops=1)
    totals: list[float] = []
    parts: dict[str, list[float]] = {}
    for q in questions:
        r = retrieve(q, store=store, embedder=embedder, corpus="scale", settings=rs)
        totals.append(r.timings_ms["total"] - r.timings_ms.get("embed", 0.0))
        for key in ("bm25", "dense", "fuse", "hop"):
            parts.setdefault(key, []).append(r.timings_ms.get(key, 0.0))
    return totals, parts


def _phase(name: str, t0: float) -> None:
    print(f"  [{time.perf_counter() - t0:7.1f} s] {name}", file=sys.stderr, flush=True)


def run_size(n_chunks: int, n_queries: int, workdir: str, text: str, with_bm25s: bool,
             lexical_limit: int | None = None) -> dict[str, Any]:
    """Build one corpus and query it; runs in a child process (phases go to stderr)."""
    from anchor_core.models import CorpusInfo
    from anchor_core.stores.sqlite import SQLiteStore
    from bench.speed import random_vectors

    out: dict[str, Any] = {"text": text, "target_chunks": n_chunks}
    t0 = time.perf_counter()
    if text == "real":
        documents, units, chunks, refs, questions = real_corpus(n_chunks)
    else:
        documents, units, chunks, refs, questions = synthetic_corpus(n_chunks, n_queries + 3)
    vectors = random_vectors(len(chunks), DIM)
    out["generate_s"] = round(time.perf_counter() - t0, 1)
    _phase(f"{text} {n_chunks:,}: generated {len(chunks):,} chunks", t0)
    out.update(chunks=len(chunks), units=len(units), documents=len(documents), references=len(refs),
               questions=len(questions))
    out["rss_after_generate_mb"] = _peak_rss_mb()

    db = Path(workdir) / f"scale-{text}-{n_chunks}.db"
    store = SQLiteStore(db)
    embedder = QuestionVectors()
    info = CorpusInfo(name="scale", adapter=text, version=uuid.uuid4().hex, documents=len(documents),
                      units=len(units), chunks=len(chunks), references=sum(r.resolved for r in refs),
                      unresolved=sum(not r.resolved for r in refs), embedder=embedder.model_id, dim=DIM)
    t = time.perf_counter()
    store.replace_corpus(info, documents, units, chunks, vectors, refs)
    ingest_s = time.perf_counter() - t
    out["ingest_s"] = round(ingest_s, 1)
    out["ingest_chunks_per_s"] = round(len(chunks) / ingest_s)
    out["db_mb"] = round(sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file()) / 1e6, 1)
    out["index_mb"] = round(sum(p.stat().st_size for p in store.index_root.rglob("*") if p.is_file()) / 1e6, 1)
    out["rss_after_ingest_mb"] = _peak_rss_mb()
    _phase(f"stored ({out['ingest_chunks_per_s']:,} chunks/s)", t0)

    out.update(lexical_side_by_side(store, "scale", chunks, questions, with_bm25s, lexical_limit))
    _phase("lexical side by side", t0)
    del documents, units, chunks
    out.update(vector_recall(store, "scale", vectors))
    _phase("vector recall", t0)
    del vectors

    qs = (questions * (1 + (n_queries + 3) // max(1, len(questions))))[:n_queries + 3]
    _retrieval_times(store, qs[:3])  # warm-up
    totals, parts = _retrieval_times(store, qs[3:])
    out["queries"] = len(totals)
    out["warm_p50_ms"], out["warm_p95_ms"] = _pct(totals, 50), _pct(totals, 95)
    out.update({f"warm_{k}_p50_ms": _pct(v, 50) for k, v in parts.items()})
    out["peak_rss_mb"] = _peak_rss_mb()
    store.close()
    _phase("warm hybrid retrieval", t0)

    # A fresh process: opens the store, memory-maps the derived indexes, answers 20 questions.
    fresh = subprocess.run([sys.executable, "-c", FRESH, str(db), json.dumps(qs[3:23])], cwd=REPO,
                           capture_output=True, text=True, check=True)
    res = json.loads(fresh.stdout.strip().splitlines()[-1])
    out["fresh_first_ms"] = round(res["first_ms"], 2)
    out["fresh_rest_p50_ms"] = _pct(res["rest"], 50)
    out["fresh_rest_p95_ms"] = _pct(res["rest"], 95)
    db.unlink(missing_ok=True)
    return out


def _child(n: int, q: int, workdir: str, text: str, with_bm25s: bool, lexical_limit: int | None, conn) -> None:
    try:
        conn.send(run_size(n, q, workdir, text, with_bm25s, lexical_limit))
    except BaseException as err:  # report, don't hang the parent
        conn.send({"text": text, "target_chunks": n, "error": f"{type(err).__name__}: {err}"})


def _table(runs: list[dict]) -> None:
    print("\n| text | chunks | ingest chunks/s | FTS5 top-50 p50/p95 ms | tantivy p50/p95 | bm25s p50/p95 | "
          "hybrid warm p50/p95 | fresh process 1st / p50 | recall@50 random / near | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        if "error" in r:
            print(f"| {r['text']} | {r['target_chunks']} | error: {r['error']} |")
            continue
        bm = f"{r['bm25s_p50_ms']} / {r['bm25s_p95_ms']}" if "bm25s_p50_ms" in r else "-"
        print(f"| {r['text']} | {r['chunks']:,} | {r['ingest_chunks_per_s']:,} | {r['fts5_p50_ms']} / "
              f"{r['fts5_p95_ms']} | {r['tantivy_p50_ms']} / {r['tantivy_p95_ms']} | {bm} | {r['warm_p50_ms']} / "
              f"{r['warm_p95_ms']} | {r['fresh_first_ms']} / {r['fresh_rest_p50_ms']} | "
              f"{r['recall50_random_mean']} / {r['recall50_near_mean']} | {r['peak_rss_mb']} |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100000,1000000", help="comma-separated chunk counts")
    p.add_argument("--text", default="real,synthetic", help="real, synthetic or both (comma-separated)")
    p.add_argument("--queries", type=int, default=100, help="timed hybrid queries per size (after 3 warm-ups)")
    p.add_argument("--no-bm25s", action="store_true", help="leave bm25s out of the lexical comparison")
    p.add_argument("--lexical-questions", type=int, default=None,
                   help="time the lexical side by side on the first N questions only (FTS5 takes seconds a "
                        "question at 1M chunks); default all")
    p.add_argument("--workdir", help="where the databases are built (default: a temp dir; deleted after)")
    p.add_argument("--out", default=str(RESULTS / "scale.json"))
    args = p.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        p.error(f"--sizes takes comma-separated whole numbers, got {args.sizes!r}")
    texts = [t.strip() for t in args.text.split(",") if t.strip()]
    if any(s < 8 for s in sizes) or args.queries < 1:
        p.error("sizes must be at least 8 chunks and --queries at least 1")
    if args.lexical_questions is not None and args.lexical_questions < 4:
        p.error("--lexical-questions must be at least 4 (the first 3 only warm the caches)")
    if not texts or set(texts) - {"real", "synthetic"}:
        p.error(f"--text takes real and/or synthetic, got {args.text!r}")
    if "real" in texts and not all((corpora_dir() / n).exists() for n in REAL):
        print(f"note: the real corpora are not at {corpora_dir()} (set ANCHOR_BENCH_DATA); real text skipped")
        texts.remove("real")
    if not args.no_bm25s:
        try:
            import bm25s  # noqa: F401
            import Stemmer  # noqa: F401
        except ImportError:
            print("note: bm25s or PyStemmer is not installed (pip install -e '.[dev]'); bm25s left out")
            args.no_bm25s = True
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                           "loadavg_start": list(os.getloadavg())}, "runs": []}
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        for text in texts:
            for n in sizes:
                parent, child = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(n, args.queries, work, text, not args.no_bm25s,
                                                         args.lexical_questions, child))
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
    _table(results["runs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
