"""Speed benchmark: cold ingest and warm retrieval on the EU AI Act, and retrieval over a
synthetic corpus of ~100k chunks.

    python -m bench.speed [--only ingest|aiact|synthetic] [--chunks 100000] [--queries 50]

Prints a table and writes ``bench/results/speed.json``. It reports numbers next to the
project's targets; nothing here passes or fails. See ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import multiprocessing as mp
import os
import platform
import pstats
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from anchor_core.chunking import chunk_unit
from anchor_core.embeddings import Embedder, MiniLMEmbedder
from anchor_core.indexing import resolve_references, validate
from anchor_core.models import Chunk, CorpusInfo, Document, Part, Reference, Unit
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from anchor_core.text import STOP_WORDS, query_terms

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
CACHE = RESULTS / "cache"
QUESTIONS = REPO / "eval" / "questions" / "aiact.jsonl"

TARGETS = {
    "aiact_cold_ingest_s": 30.0,
    "aiact_warm_p50_ms": 50.0,
    "synthetic_hybrid_hop1_p50_ms": 100.0,
}
TIMING_KEYS = ("total", "embed", "bm25", "dense", "fuse", "hop")
WARMUP = 3
SYNTH_CORPUS = "synthetic"
SYNTH_FORMAT = 2  # bump when the generator changes so cached databases are rebuilt
SYNTH_SEED = 20240611
PARTS_PER_UNIT = 4
REFS_PER_UNIT = 3

FALLBACK_QUESTIONS = [
    "Which AI practices are prohibited?",
    "When is an AI system classified as high-risk?",
    "What must providers of high-risk AI systems do before placing them on the market?",
    "What are the transparency obligations for deployers of emotion recognition systems?",
    "Who is a deployer under the regulation?",
    "What documentation must accompany a high-risk AI system?",
    "What are the obligations of providers of general-purpose AI models?",
    "When does a general-purpose AI model present systemic risk?",
    "What penalties apply for non-compliance with the prohibited practices?",
    "What does the conformity assessment procedure based on internal control involve?",
    "Which high-risk AI systems must be registered in the EU database?",
    "What human oversight measures are required for high-risk AI systems?",
    "How long must providers keep the technical documentation?",
    "What is an AI regulatory sandbox?",
    "What must be reported as a serious incident?",
    "Which remote biometric identification uses are allowed for law enforcement?",
    "What are the accuracy, robustness and cybersecurity requirements?",
    "What must an authorised representative do?",
    "What are the duties of importers of high-risk AI systems?",
    "When does the regulation apply?",
]


# -- small helpers -----------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def _stats(values: list[float]) -> dict[str, float]:
    a = np.asarray(values, dtype=float)
    if a.size == 0:
        return {"n": 0}
    p50, p95 = np.percentile(a, [50, 95])
    return {"n": int(a.size), "p50": round(float(p50), 2), "p95": round(float(p95), 2),
            "max": round(float(a.max()), 2), "mean": round(float(a.mean()), 2)}


def rss_mb() -> float:
    """Current resident set size of this process in MB (VmRSS), or the peak if /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return peak_rss_mb()


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def _file_mb(path: Path) -> float:
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    return round(size / 1e6, 1)


def _log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# -- 1. cold ingest of the AI Act -------------------------------------------------------------


def _anchor_cmd() -> list[str]:
    """The ``anchor`` console script of this interpreter (not a pyenv shim), else ``python -m``."""
    local = Path(sys.executable).parent / "anchor"
    if local.exists():
        return [str(local)]
    found = shutil.which("anchor")
    return [found] if found else [sys.executable, "-m", "anchor_core.cli"]


def cold_ingest(home: Path) -> dict[str, Any]:
    """``anchor ingest aiact -q`` in a fresh process and workspace; wall clock of the whole process."""
    env = {**os.environ, "ANCHOR_HOME": str(home), "ANCHOR_EMBEDDER": "minilm", "HF_HUB_OFFLINE": "1"}
    cmd = [*_anchor_cmd(), "ingest", "aiact", "-q"]
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    store = SQLiteStore(home / "anchor.db")
    info = store.corpus("aiact")
    store.close()
    reused = re.search(r"\((\d+) embeddings reused", proc.stdout)  # must be 0: the cache lives in ANCHOR_HOME
    return {"command": " ".join([Path(cmd[0]).name, *cmd[1:]]), "wall_s": round(wall, 2), "units": info.units,
            "chunks": info.chunks, "chunks_per_s": round(info.chunks / wall, 1),
            "embeddings_reused": int(reused.group(1)) if reused else None, "cli_output": proc.stdout.strip()}


def ingest_breakdown(home: Path, embedder: MiniLMEmbedder | None = None) -> tuple[dict[str, Any], MiniLMEmbedder]:
    """The steps of ``anchor_core.indexing.ingest`` timed one by one in this process.

    Returns the loaded embedder so later sections reuse it. Pass a fresh (unloaded) one to
    time the model load."""
    from ingest import get_adapter

    embedder = embedder or MiniLMEmbedder()
    steps: dict[str, float] = {}
    t = time.perf_counter()
    parsed = get_adapter("aiact").load(None)
    steps["parse_s"] = time.perf_counter() - t

    t = time.perf_counter()
    validate(parsed, "aiact")
    chunks = [c for u in parsed.units for c in chunk_unit(u)]
    refs, _ = resolve_references(parsed.units, parsed.references)
    steps["chunk_s"] = time.perf_counter() - t

    t = time.perf_counter()
    embedder._load()  # import torch + transformers, read the weights
    steps["model_load_s"] = time.perf_counter() - t

    t = time.perf_counter()
    vectors = embedder.embed([c.embed_text for c in chunks])
    steps["embed_s"] = time.perf_counter() - t

    t = time.perf_counter()
    store = SQLiteStore(home / "anchor.db")
    info = CorpusInfo(name="aiact", adapter="aiact", version=uuid.uuid4().hex, documents=len(parsed.documents),
                      units=len(parsed.units), chunks=len(chunks), references=sum(r.resolved for r in refs),
                      unresolved=sum(not r.resolved for r in refs), embedder=embedder.model_id, dim=embedder.dim,
                      source="aiact demo corpus")
    store.replace_corpus(info, parsed.documents, parsed.units, chunks, vectors, refs)
    store.close()
    steps["store_write_s"] = time.perf_counter() - t

    out: dict[str, Any] = {k: round(v, 3) for k, v in steps.items()}
    out["sum_s"] = round(sum(steps.values()), 2)
    out["units"] = len(parsed.units)
    out["chunks"] = len(chunks)
    out["references"] = len(refs)
    out["embed_chunks_per_s"] = round(len(chunks) / steps["embed_s"], 1)
    return out, embedder


# -- 2. warm retrieval ---------------------------------------------------------------------------


def load_questions() -> list[str]:
    """The ``question`` field of eval/questions/aiact.jsonl, or a built-in list of 20."""
    questions: list[str] = []
    if QUESTIONS.exists():
        for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line).get("question")
                if q:
                    questions.append(q)
    return questions or list(FALLBACK_QUESTIONS)


def query_loop(store: SQLiteStore, embedder: Embedder | None, corpus: str, questions: list[str],
               settings: RetrievalSettings, warmup: list[str] = ()) -> dict[str, dict[str, float]]:
    """Run ``warmup`` unmeasured, then ``questions``; percentiles of every ``timings_ms`` key."""
    for q in warmup:
        retrieve(q, store=store, embedder=embedder, corpus=corpus, settings=settings)
    samples: dict[str, list[float]] = {k: [] for k in TIMING_KEYS}
    for q in questions:
        r = retrieve(q, store=store, embedder=embedder, corpus=corpus, settings=settings)
        for k, v in r.timings_ms.items():
            samples.setdefault(k, []).append(v)
    return {k: _stats(v) for k, v in samples.items() if v}


def _cycle(items: list[str], n: int, offset: int = 0) -> list[str]:
    return [items[(offset + i) % len(items)] for i in range(n)]


def warm_retrieval(db_path: Path, embedder: Embedder, n_queries: int, corpus: str = "aiact") -> dict[str, Any]:
    """Hybrid k=5 retrieval over an ingested AI Act with a loaded model: hops 1, then 0 and 2."""
    store = SQLiteStore(db_path)
    info = store.corpus(corpus)
    pool = load_questions()
    questions = _cycle(pool, n_queries)
    warmup = _cycle(pool, WARMUP, offset=len(pool) - WARMUP)  # the last ones, unmeasured when n < len(pool)
    out: dict[str, Any] = {"chunks": info.chunks, "queries": len(questions), "warmup": len(warmup),
                           "questions_from": str(QUESTIONS.relative_to(REPO)) if QUESTIONS.exists() else "built-in"}
    out["bm25_matching_chunks"] = _bm25_matches(db_path, questions)
    for hops in (1, 0, 2):
        s = RetrievalSettings(k=5, hops=hops, mode="hybrid")
        out[f"hybrid_hops{hops}"] = query_loop(store, embedder, corpus, questions, s, warmup)
    store.close()
    return out


# -- 3. synthetic corpus ------------------------------------------------------------------------


@dataclass(frozen=True)
class EmbedderSpec:
    """What the store needs to know about the query embedder (picklable, for the build process)."""

    model_id: str
    dim: int


_CONSONANTS = "bcdfghklmnprstvz"
_VOWELS = "aeiou"
# The head of a Zipf vocabulary is function words; ``query_terms`` drops them from questions,
# as it does for real ones, while the FTS index still holds them (it has no stop-word list).
# Only the 15 commonest: below them, frequent content words ("shall", "system", "provider" in
# the AI Act) make a question's OR-query match most chunks, as it does on the real corpus.
_FUNCTION_WORDS = "the of and to a in or that be by for this with as on".split()


def make_vocabulary(size: int = 4000, seed: int = SYNTH_SEED) -> tuple[list[str], np.ndarray]:
    """``size`` words in rank order with Zipf weights (s=1.05): 15 English function words, then
    pseudo-words of 2-4 consonant-vowel syllables."""
    rng = np.random.default_rng(seed)
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    vocab: list[str] = list(_FUNCTION_WORDS)
    seen: set[str] = set(vocab)
    while len(vocab) < size:
        n = int(rng.integers(2, 5))
        w = "".join(syllables[i] for i in rng.integers(0, len(syllables), n))
        if w not in seen and w not in STOP_WORDS:
            seen.add(w)
            vocab.append(w)
    ranks = np.arange(1, size + 1, dtype=float)
    weights = 1.0 / ranks**1.05
    return vocab, weights / weights.sum()


def make_questions(n: int, seed: int = SYNTH_SEED + 1, vocab_seed: int = SYNTH_SEED) -> list[str]:
    """Questions drawn word by word with the text's Zipf weights until they hold 8-18 distinct
    content terms (the AI Act eval questions have a median of 13); function words stay in."""
    vocab, p = make_vocabulary(seed=vocab_seed)
    rng = np.random.default_rng(seed)
    qs = []
    for _ in range(n):
        want = int(rng.integers(8, 19))
        words: list[str] = []
        terms: set[str] = set()
        while len(terms) < want:
            w = vocab[int(rng.choice(len(vocab), p=p))]
            words.append(w)
            if w not in STOP_WORDS:
                terms.add(w)
        qs.append(" ".join(words).capitalize() + "?")
    return qs


def generate_synthetic(n_chunks: int, seed: int = SYNTH_SEED) -> tuple[list[Document], list[Unit], list[Reference]]:
    """``n_chunks / 4`` units of 4 numbered parts each, every part 50-130 Zipf-distributed words,
    and about 3 references per unit (``Section 17(2)`` or ``Section 17``) written inside its parts."""
    vocab, p = make_vocabulary(seed=seed)
    rng = np.random.default_rng(seed + 7)
    n_units = max(2, n_chunks // PARTS_PER_UNIT)
    n_docs = max(1, n_units // 250)
    documents = [Document(doc_id=f"doc-{d}", title=f"Synthetic document {d}") for d in range(n_docs)]

    lengths = rng.integers(50, 131, size=n_units * PARTS_PER_UNIT)
    title_lengths = rng.integers(3, 7, size=n_units)
    pool = rng.choice(len(vocab), size=int(lengths.sum() + title_lengths.sum()), p=p)
    words = np.asarray(vocab, dtype=object)[pool]
    sentence_breaks = rng.integers(8, 21, size=len(words) // 8 + 1)

    ref_part = rng.integers(0, PARTS_PER_UNIT, size=(n_units, REFS_PER_UNIT))
    ref_dst = rng.integers(0, n_units - 1, size=(n_units, REFS_PER_UNIT))
    ref_dst_part = rng.integers(0, PARTS_PER_UNIT + 2, size=(n_units, REFS_PER_UNIT))  # > 4: whole unit

    units: list[Unit] = []
    refs: list[Reference] = []
    pos = 0
    brk = 0
    for u in range(n_units):
        unit_id = f"section-{u + 1}"
        tl = int(title_lengths[u])
        title = " ".join(words[pos:pos + tl]).capitalize()
        pos += tl
        pieces: list[str] = []
        parts: list[Part] = []
        unit_refs: list[Reference] = []
        offset = 0
        for j in range(PARTS_PER_UNIT):
            label = str(j + 1)
            n = int(lengths[u * PARTS_PER_UNIT + j])
            toks = list(words[pos:pos + n])
            pos += n
            sentences: list[str] = []
            i = 0
            while i < len(toks):
                step = int(sentence_breaks[brk % len(sentence_breaks)])
                brk += 1
                sentences.append(" ".join(toks[i:i + step]).capitalize() + ".")
                i += step
            targets = [r for r in range(REFS_PER_UNIT) if ref_part[u, r] == j]
            ref_slots: dict[int, list[int]] = {}
            for r in targets:  # a reference sentence goes after a random sentence of the part
                ref_slots.setdefault(int(rng.integers(0, len(sentences))), []).append(r)
            text = f"{label}."
            part_start = offset
            for si, sent in enumerate(sentences):
                text += " " + sent
                for r in ref_slots.get(si, []):
                    dst = int(ref_dst[u, r])
                    dst = dst + 1 if dst >= u else dst  # never the unit itself
                    dpart = int(ref_dst_part[u, r])
                    raw = f"Section {dst + 1}" + (f"({dpart + 1})" if dpart < PARTS_PER_UNIT else "")
                    text += " As referred to in "
                    start = part_start + len(text)
                    text += raw + "."
                    unit_refs.append(Reference(
                        src_unit=unit_id, src_part=label, start=start, end=start + len(raw), raw=raw,
                        dst_unit=f"section-{dst + 1}", dst_part=str(dpart + 1) if dpart < PARTS_PER_UNIT else None))
            parts.append(Part(label=label, start=part_start, end=part_start + len(text)))
            pieces.append(text)
            offset += len(text) + 1  # the "\n" between parts
        units.append(Unit(unit_id=unit_id, doc_id=documents[u % n_docs].doc_id, kind="section",
                          heading=f"Section {u + 1}", title=title, text="\n".join(pieces), parts=parts))
        refs.extend(unit_refs)
    return documents, units, refs


def random_vectors(n: int, dim: int, seed: int = SYNTH_SEED + 3) -> np.ndarray:
    """Unit-normalised float32 rows, generated in blocks to bound the float64 temporaries."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, dim), dtype=np.float32)
    for i in range(0, n, 20000):
        block = rng.standard_normal((min(20000, n - i), dim), dtype=np.float32)
        out[i:i + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def build_synthetic(db_path: Path, n_chunks: int, embedder: Embedder | EmbedderSpec,
                    seed: int = SYNTH_SEED) -> dict[str, Any]:
    """Generate the synthetic corpus and write it to a new SQLite store at ``db_path``
    (via a temporary file, so an interrupted build leaves no half database behind)."""
    db_path = Path(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = db_path.with_name(db_path.name + ".building")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    t0 = time.perf_counter()
    documents, units, raw_refs = generate_synthetic(n_chunks, seed)
    t_gen = time.perf_counter() - t0

    t = time.perf_counter()
    chunks: list[Chunk] = [c for u in units for c in chunk_unit(u)]
    refs, _ = resolve_references(units, raw_refs)
    vectors = random_vectors(len(chunks), embedder.dim, seed + 3)
    t_chunk = time.perf_counter() - t

    t = time.perf_counter()
    store = SQLiteStore(tmp)
    info = CorpusInfo(name=SYNTH_CORPUS, adapter="synthetic", version=uuid.uuid4().hex, documents=len(documents),
                      units=len(units), chunks=len(chunks), references=sum(r.resolved for r in refs),
                      unresolved=sum(not r.resolved for r in refs), embedder=embedder.model_id, dim=embedder.dim,
                      source=f"bench.speed synthetic seed={seed} format={SYNTH_FORMAT}")
    store.replace_corpus(info, documents, units, chunks, vectors, refs)
    store.close()
    t_write = time.perf_counter() - t
    tmp.replace(db_path)
    return {"built_at": _now(), "seed": seed, "documents": len(documents), "units": len(units),
            "chunks": len(chunks), "references": info.references, "chars_per_chunk": round(
                sum(len(c.text) for c in chunks) / len(chunks)),
            "generate_s": round(t_gen, 2), "chunk_and_vectors_s": round(t_chunk, 2), "write_s": round(t_write, 2),
            "build_s": round(time.perf_counter() - t0, 2), "db_mb": _file_mb(db_path),
            "build_peak_rss_mb": peak_rss_mb()}


def _bm25_matches(db_path: Path, questions: list[str]) -> dict[str, float]:
    """How many chunks each question's FTS5 OR-query matches: the rows ``bm25()`` has to score."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        counts = []
        fts = con.execute("SELECT fts FROM corpora LIMIT 1").fetchone()[0]  # one FTS5 table per corpus
        for q in questions:
            match = " OR ".join('"' + t.replace('"', '""') + '"' for t in query_terms(q))
            row = con.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (match,)).fetchone()
            counts.append(row[0])
    finally:
        con.close()
    return _stats(counts)


def profile_queries(store: SQLiteStore, embedder: Embedder, corpus: str, questions: list[str],
                    settings: RetrievalSettings, top: int = 15) -> dict[str, Any]:
    """cProfile over ``questions``; the functions with the most own time, per query."""
    prof = cProfile.Profile()
    prof.enable()
    for q in questions:
        retrieve(q, store=store, embedder=embedder, corpus=corpus, settings=settings)
    prof.disable()
    st = pstats.Stats(prof)
    rows = []
    for (file, line, func), (_, ncalls, tottime, cumtime, _) in st.stats.items():
        where = func if file == "~" else f"{Path(file).name}:{line}({func})"
        rows.append((tottime, cumtime, ncalls, where))
    rows.sort(reverse=True)
    n = max(len(questions), 1)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(40)
    return {"queries": len(questions),
            "top_tottime": [{"function": w, "own_ms_per_query": round(tt * 1000 / n, 2),
                             "cum_ms_per_query": round(ct * 1000 / n, 2), "calls_per_query": round(nc / n, 1)}
                            for tt, ct, nc, w in rows[:top]],
            "text": buf.getvalue()}


def synthetic_queries(db_path: Path, embedder: Embedder, n_queries: int, *, seed: int = SYNTH_SEED,
                      profile_above_ms: float | None = TARGETS["synthetic_hybrid_hop1_p50_ms"]) -> dict[str, Any]:
    """Load the vector matrix (RSS before/after), then hybrid hops=1 k=5, and hybrid hops=0,
    bm25-only and dense-only, over ``n_queries`` vocabulary questions after 3 warm-ups.
    Profiles the hybrid loop when its p50 exceeds ``profile_above_ms``."""
    store = SQLiteStore(db_path)
    info = store.corpus(SYNTH_CORPUS)
    out: dict[str, Any] = {"chunks": info.chunks, "queries": n_queries, "warmup": WARMUP}
    out["rss_before_matrix_mb"] = rss_mb()
    t = time.perf_counter()
    store.search_vector(SYNTH_CORPUS, random_vectors(1, info.dim, seed + 11)[0], 5, RetrievalSettings().filters)
    out["matrix_load_s"] = round(time.perf_counter() - t, 3)
    out["rss_after_matrix_mb"] = rss_mb()
    out["matrix_mb"] = round(info.chunks * info.dim * 4 / 1e6, 1)

    all_q = make_questions(n_queries + WARMUP, seed=seed + 1, vocab_seed=seed)
    warmup, questions = all_q[:WARMUP], all_q[WARMUP:]
    out["bm25_matching_chunks"] = _bm25_matches(db_path, questions)
    hybrid = RetrievalSettings(k=5, hops=1, mode="hybrid")
    out["hybrid_hops1"] = query_loop(store, embedder, SYNTH_CORPUS, questions, hybrid, warmup)
    out["hybrid_hops0"] = query_loop(store, embedder, SYNTH_CORPUS, questions,
                                     RetrievalSettings(k=5, hops=0, mode="hybrid"), warmup)
    out["bm25_hops1"] = query_loop(store, embedder, SYNTH_CORPUS, questions,
                                   RetrievalSettings(k=5, hops=1, mode="bm25"), warmup)
    out["dense_hops1"] = query_loop(store, embedder, SYNTH_CORPUS, questions,
                                    RetrievalSettings(k=5, hops=1, mode="dense"), warmup)
    out["rss_end_mb"] = rss_mb()
    if profile_above_ms is not None and out["hybrid_hops1"]["total"]["p50"] > profile_above_ms:
        out["profile"] = profile_queries(store, embedder, SYNTH_CORPUS, questions[:10], hybrid)
    store.close()
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def synthetic_cache_path(cache_dir: Path, n_chunks: int, embedder: Embedder | EmbedderSpec) -> Path:
    return Path(cache_dir) / f"synthetic-{n_chunks}-{_slug(embedder.model_id)}-f{SYNTH_FORMAT}.db"


def _cached_build(path: Path, embedder: Embedder | EmbedderSpec) -> dict[str, Any] | None:
    sidecar = path.with_suffix(".json")
    if not (path.exists() and sidecar.exists()):
        return None
    try:
        store = SQLiteStore(path)
        try:
            info = store.corpus(SYNTH_CORPUS)
        finally:
            store.close()
        build = json.loads(sidecar.read_text())
    except Exception:  # a damaged cache is rebuilt
        return None
    if info.embedder != embedder.model_id or info.dim != embedder.dim or info.chunks != build.get("chunks"):
        return None
    return build


def _build_in_child(path: Path, n_chunks: int, spec: EmbedderSpec) -> dict[str, Any]:
    """Build in a fresh process so the query phase's RSS is not inflated by the build."""
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        return pool.submit(build_synthetic, path, n_chunks, spec).result()


def bench_synthetic(n_chunks: int, n_queries: int, embedder: Embedder, *, cache_dir: Path = CACHE,
                    build_in_subprocess: bool = True, profile_above_ms: float | None = 100.0,
                    log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Build (or reuse from ``cache_dir``) the synthetic store, then time queries over it."""
    path = synthetic_cache_path(cache_dir, n_chunks, embedder)
    build = _cached_build(path, embedder)
    if build is not None:
        log(f"synthetic: reusing cached {path.name} built {build.get('built_at')} (build skipped)")
        build = {**build, "cached": True}
    else:
        log(f"synthetic: building {n_chunks} chunks into {path} ...")
        spec = EmbedderSpec(embedder.model_id, embedder.dim)
        build = _build_in_child(path, n_chunks, spec) if build_in_subprocess else build_synthetic(path, n_chunks, spec)
        path.with_suffix(".json").write_text(json.dumps(build, indent=2))
        build = {**build, "cached": False}
        log(f"synthetic: built {build['chunks']} chunks in {build['build_s']} s ({build['db_mb']} MB)")
    out: dict[str, Any] = {"db": str(path.relative_to(REPO) if path.is_relative_to(REPO) else path),
                           "db_mb": _file_mb(path), "build": build}
    log(f"synthetic: {n_queries} queries x 4 settings ...")
    out.update(synthetic_queries(path, embedder, n_queries, profile_above_ms=profile_above_ms))
    return out


# -- report -------------------------------------------------------------------------------------


def _fmt(v: Any, unit: str = "") -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        v = f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}"
    return f"{v} {unit}".strip()


def summary_rows(results: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    ing = results.get("ingest")
    if ing:
        c, b = ing["cold"], ing["breakdown"]
        rows += [
            ("ingest", "cold `anchor ingest aiact -q` wall", _fmt(c["wall_s"], "s"),
             f"<= {TARGETS['aiact_cold_ingest_s']:.0f} s"),
            ("ingest", "chunks / chunks per s (cold wall)", f"{c['chunks']} / {c['chunks_per_s']}", ""),
            ("ingest", "in-process: parse", _fmt(b["parse_s"], "s"), ""),
            ("ingest", "in-process: chunk + resolve refs", _fmt(b["chunk_s"], "s"), ""),
            ("ingest", "in-process: model load (torch import incl.)", _fmt(b["model_load_s"], "s"), ""),
            ("ingest", "in-process: embed", f"{_fmt(b['embed_s'], 's')} ({b['embed_chunks_per_s']} chunks/s)", ""),
            ("ingest", "in-process: store write", _fmt(b["store_write_s"], "s"), ""),
            ("ingest", "in-process: sum of steps", _fmt(b["sum_s"], "s"), ""),
            ("ingest", "cold wall minus steps (interpreter, imports)",
             _fmt(round(c["wall_s"] - b["sum_s"], 2), "s"), ""),
        ]
    ai = results.get("aiact")
    if ai:
        h = ai["hybrid_hops1"]
        rows.append(("aiact", f"hybrid k=5 hops=1 total p50 ({ai['queries']} q)", _fmt(h["total"]["p50"], "ms"),
                     f"<= {TARGETS['aiact_warm_p50_ms']:.0f} ms"))
        rows.append(("aiact", "  total p95 / max", f"{_fmt(h['total']['p95'])} / {_fmt(h['total']['max'], 'ms')}", ""))
        for k in TIMING_KEYS[1:]:
            if k in h:
                rows.append(("aiact", f"  {k} p50 / p95 / max",
                             f"{_fmt(h[k]['p50'])} / {_fmt(h[k]['p95'])} / {_fmt(h[k]['max'], 'ms')}", ""))
        rows.append(("aiact", "hybrid hops=0 total p50", _fmt(ai["hybrid_hops0"]["total"]["p50"], "ms"), ""))
        rows.append(("aiact", "chunks matched by the BM25 OR-query p50",
                     f"{_fmt(ai['bm25_matching_chunks']['p50'])} of {ai['chunks']}", ""))
        rows.append(("aiact", "hybrid hops=2 total p50", _fmt(ai["hybrid_hops2"]["total"]["p50"], "ms"), ""))
    sy = results.get("synthetic")
    if sy:
        b, h = sy["build"], sy["hybrid_hops1"]
        rows += [
            ("synthetic", "units / chunks / resolved refs", f"{b['units']} / {sy['chunks']} / {b['references']}", ""),
            ("synthetic", "build (generate+chunk+write)" + (" [cached]" if b.get("cached") else ""),
             _fmt(b["build_s"], "s") + f" (write {_fmt(b['write_s'], 's')})", ""),
            ("synthetic", "DB file size", _fmt(sy["db_mb"], "MB"), ""),
            ("synthetic", "matrix load / RSS before -> after",
             f"{_fmt(sy['matrix_load_s'], 's')} / {_fmt(sy['rss_before_matrix_mb'])} -> "
             f"{_fmt(sy['rss_after_matrix_mb'], 'MB')}", ""),
            ("synthetic", "chunks matched by the BM25 OR-query p50",
             f"{_fmt(sy['bm25_matching_chunks'].get('p50'))} of {sy['chunks']}", ""),
            ("synthetic", f"hybrid k=5 hops=1 total p50 ({sy['queries']} q)", _fmt(h["total"]["p50"], "ms"),
             f"<= {TARGETS['synthetic_hybrid_hop1_p50_ms']:.0f} ms"),
            ("synthetic", "  total p95 / max", f"{_fmt(h['total']['p95'])} / {_fmt(h['total']['max'], 'ms')}", ""),
        ]
        for k in TIMING_KEYS[1:]:
            if k in h:
                rows.append(("synthetic", f"  {k} p50 / p95", f"{_fmt(h[k]['p50'])} / {_fmt(h[k]['p95'], 'ms')}", ""))
        rows += [
            ("synthetic", "hybrid hops=0 total p50", _fmt(sy["hybrid_hops0"]["total"]["p50"], "ms"), ""),
            ("synthetic", "bm25-only hops=1 total p50", _fmt(sy["bm25_hops1"]["total"]["p50"], "ms"), ""),
            ("synthetic", "dense-only hops=1 total p50", _fmt(sy["dense_hops1"]["total"]["p50"], "ms"), ""),
        ]
        for p in sy.get("profile", {}).get("top_tottime", [])[:5]:
            rows.append(("profile", p["function"][:60], f"{p['own_ms_per_query']} ms/q own", ""))
    return rows


def render(rows: list[tuple[str, str, str, str]]) -> str:
    head = ("section", "metric", "measured", "target")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    line = "  ".join("-" * w for w in widths)
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*head), line, *(fmt.format(*r) for r in rows)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.speed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", choices=["ingest", "aiact", "synthetic"],
                    help="run only this section (repeatable); default: all three")
    ap.add_argument("--chunks", type=int, default=100_000, help="size of the synthetic corpus (default 100000)")
    ap.add_argument("--queries", type=int, default=50, help="measured queries per setting (default 50)")
    ap.add_argument("--out", type=Path, default=RESULTS / "speed.json")
    args = ap.parse_args(argv)
    if args.chunks < 8 or args.queries < 1:
        ap.error("--chunks must be at least 8 and --queries at least 1")
    sections = args.only or ["ingest", "aiact", "synthetic"]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    RESULTS.mkdir(parents=True, exist_ok=True)

    results: dict[str, Any] = {}
    if args.out.exists():  # keep the sections this run does not repeat
        try:
            results = json.loads(args.out.read_text())
        except json.JSONDecodeError:
            results = {}
    results["meta"] = {"started_at": _now(), "sections": sections, "cpus": os.cpu_count(),
                       "python": platform.python_version(), "platform": platform.platform(),
                       "sqlite": sqlite3.sqlite_version, "numpy": np.__version__, "loadavg_start": _loadavg()}
    embedder: MiniLMEmbedder | None = None
    aiact_db: Path | None = None
    work = Path(tempfile.mkdtemp(prefix="anchor-bench-"))
    try:
        if "ingest" in sections:
            _log(f"ingest: cold `anchor ingest aiact -q` in a fresh process (load {_loadavg()}) ...")
            la = _loadavg()
            cold = cold_ingest(work / "cold")
            _log(f"ingest: cold wall {cold['wall_s']} s; now the in-process breakdown ...")
            breakdown, embedder = ingest_breakdown(work / "inproc")
            results["ingest"] = {"measured_at": _now(), "loadavg": la, "target_s": TARGETS["aiact_cold_ingest_s"],
                                 "cold": cold, "breakdown": breakdown}
            aiact_db = work / "cold" / "anchor.db"
        if "aiact" in sections:
            if embedder is None:
                embedder = MiniLMEmbedder()
                embedder._load()
            if aiact_db is None:
                from anchor_core.indexing import ingest
                from ingest import load_adapter_corpus

                _log("aiact: ingesting the AI Act in-process for the warm retrieval ...")
                aiact_db = work / "warm" / "anchor.db"
                ingest(SQLiteStore(aiact_db), embedder, load_adapter_corpus("aiact", None), corpus="aiact",
                       adapter="aiact", source="aiact demo corpus")
            la = _loadavg()
            _log(f"aiact: {args.queries} questions x hops 1, 0, 2 (load {la}) ...")
            results["aiact"] = {"measured_at": _now(), "loadavg": la, "target_p50_ms": TARGETS["aiact_warm_p50_ms"],
                                **warm_retrieval(aiact_db, embedder, args.queries)}
        if "synthetic" in sections:
            if embedder is None:
                embedder = MiniLMEmbedder()
                embedder._load()
            la = _loadavg()
            sy = bench_synthetic(args.chunks, args.queries, embedder)
            prof = sy.get("profile")
            if prof:
                path = RESULTS / "profile_synthetic.txt"
                path.write_text(prof.pop("text"))
                prof["file"] = str(path.relative_to(REPO))
            results["synthetic"] = {"measured_at": _now(), "loadavg": la,
                                    "target_p50_ms": TARGETS["synthetic_hybrid_hop1_p50_ms"], **sy}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["meta"].update({"finished_at": _now(), "loadavg_end": _loadavg(), "peak_rss_mb": peak_rss_mb()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    print(render(summary_rows({k: v for k, v in results.items() if k in sections})))
    print(f"\nload average start {results['meta']['loadavg_start']}, end {results['meta']['loadavg_end']}; "
          f"results in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
