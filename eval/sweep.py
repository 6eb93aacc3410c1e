"""Retrieval sweep: chunking × k × hops × signal → hit rates.

    python -m eval.sweep                      # AI Act + PEPs + XRefRAG ADGM dev, MiniLM
    python -m eval.sweep --sets aiact --embedder hash

A question is a hit at k when every gold unit is among the k hits (for XRefRAG: both the
source and the target passage). Unanswerable questions have no gold and are not counted in
the hit rates (the refusal gate is measured elsewhere). The corpora are ingested once into
a cache workspace (``eval/results/cache/``) on every run, reusing cached embeddings.

Corpora other than the bundled AI Act are read from ``$ANCHOR_BENCH_DATA`` (``eval/data.py``); a set whose data is
absent is skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from anchor_core.embed_cache import CachedEmbedder as PersistentCache
from anchor_core.embeddings import make_embedder
from anchor_core.errors import CorpusNotFound
from anchor_core.indexing import ingest
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from eval.data import DATA
from ingest import load_adapter_corpus

log = logging.getLogger("eval.sweep")
HERE = Path(__file__).resolve().parent
SHARED = DATA
CHUNKINGS = ("structural", "fixed")
KS = (3, 5, 8)
HOPS = (0, 1, 2)
MODES = ("bm25", "dense", "hybrid")


@dataclass
class Question:
    qid: str
    question: str
    kind: str  # single | multi | unanswerable
    gold: list[str]


@dataclass
class EvalSet:
    name: str
    adapter: str
    path: Path | None
    questions: list[Question] = field(default_factory=list)


def load_questions(path: Path) -> list[Question]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Question(r["id"], r["question"], r["type"], list(r["gold"])) for r in rows]


def load_xrefrag(path: Path) -> list[Question]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Question(r.get("item_id", str(i)), r["question"], "multi", [r["source_passage_id"], r["target_passage_id"]])
            for i, r in enumerate(rows)]


def eval_sets(names: list[str]) -> list[EvalSet]:
    sets: list[EvalSet] = []
    for name in names:
        if name == "aiact":
            sets.append(EvalSet("aiact", "aiact", None, load_questions(HERE / "questions" / "aiact.jsonl")))
        elif name == "peps":
            path = SHARED / "corpora" / "peps"
            if not path.exists():
                print(f"skip peps: {path} not found")
                continue
            sets.append(EvalSet("peps", "peps", path, load_questions(HERE / "questions" / "peps.jsonl")))
        elif name == "xrefrag":
            corpus = SHARED / "corpora" / "adgm"
            dev = SHARED / "bench" / "xrefrag" / "XRefRAG-ADGM-ALL-dev.jsonl"
            if not (corpus.exists() and dev.exists()):
                print(f"skip xrefrag: {corpus} or {dev} not found")
                continue
            sets.append(EvalSet("xrefrag-adgm-dev", "adgm", corpus, load_xrefrag(dev)))
        else:
            raise SystemExit(f"unknown set {name!r}; choose from aiact, peps, xrefrag")
    return sets


class CachedEmbedder:
    """Embeds each question once for the whole sweep."""

    def __init__(self, inner) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.cache: dict[str, np.ndarray] = {}

    def embed(self, texts, *, progress=None):
        missing = [t for t in texts if t not in self.cache]
        if missing:
            for t, v in zip(missing, self.inner.embed(missing, progress=progress)):
                self.cache[t] = v
        return np.vstack([self.cache[t] for t in texts])


def ensure_corpus(store: SQLiteStore, embedder, es: EvalSet, chunking: str, rebuild: bool) -> str:
    """Ingest the corpus afresh (adapters change between runs; the persistent embedding cache
    makes this cheap) unless ``--reuse`` asked to keep what is stored."""
    name = f"{es.name}-{chunking}"
    try:
        info = store.corpus(name)
        if not rebuild and info.embedder == embedder.model_id:
            return name
    except CorpusNotFound:
        pass
    t = time.perf_counter()
    parsed = load_adapter_corpus(es.adapter, es.path) if es.path else load_adapter_corpus_default(es.adapter)
    info = ingest(store, embedder, parsed, corpus=name, adapter=es.adapter, chunking=chunking)
    print(f"ingested {name}: {info.chunks} chunks in {time.perf_counter() - t:.0f}s")
    return name


def load_adapter_corpus_default(adapter: str):
    from ingest import get_adapter

    return get_adapter(adapter).load(None)


def hit(gold: list[str], units: list[str]) -> bool:
    return all(g in units for g in gold)


def run_set(store, embedder, es: EvalSet, chunkings, ks, hops_list, modes, rebuild: bool,
            extra: dict | None = None) -> list[dict]:
    answerable = [q for q in es.questions if q.gold]
    rows = []
    for chunking in chunkings:
        corpus = ensure_corpus(store, embedder.inner, es, chunking, rebuild)
        for mode in modes:
            for k in ks:
                for hops in hops_list:
                    s = RetrievalSettings(k=k, hops=hops, mode=mode, **(extra or {}))
                    res = {"single": [], "multi": []}
                    for q in answerable:
                        r = retrieve(q.question, store=store, embedder=embedder, corpus=corpus, settings=s)
                        res[q.kind].append(hit(q.gold, [h.unit_id for h in r.hits]))
                    row = {"set": es.name, "chunking": chunking, "mode": mode, "k": k, "hops": hops}
                    for kind in ("single", "multi"):
                        row[kind] = float(np.mean(res[kind])) if res[kind] else None
                    allh = res["single"] + res["multi"]
                    row["overall"] = float(np.mean(allh)) if allh else None
                    row["n"] = len(allh)
                    rows.append(row)
    return rows


def fmt(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def table(rows: list[dict]) -> str:
    out = ["| set | chunking | mode | k | hops | single | multi | overall | n |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['set']} | {r['chunking']} | {r['mode']} | {r['k']} | {r['hops']} | {fmt(r['single'])} | "
                   f"{fmt(r['multi'])} | {fmt(r['overall'])} | {r['n']} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", default="aiact,peps,xrefrag")
    p.add_argument("--embedder", default="minilm", choices=["minilm", "hash"])
    p.add_argument("--chunking", default=",".join(CHUNKINGS))
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--ks", default=",".join(map(str, KS)))
    p.add_argument("--hops", default=",".join(map(str, HOPS)))
    p.add_argument("--hop-slots", type=int, default=None)
    p.add_argument("--hop-decay", type=float, default=None)
    p.add_argument("--workspace", type=Path, default=HERE / "results" / "cache")
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--tag", default="", help="suffix of the result files")
    p.add_argument("--reuse", action="store_true", help="keep corpora already in the workspace")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    inner = PersistentCache(make_embedder(args.embedder), args.workspace / args.embedder / "embedding-cache.db")
    embedder = CachedEmbedder(inner)
    store = SQLiteStore(args.workspace / args.embedder / "sweep.db")
    extra = {}
    if args.hop_slots is not None:
        extra["hop_slots"] = args.hop_slots
    if args.hop_decay is not None:
        extra["hop_decay"] = args.hop_decay
    all_rows: list[dict] = []
    for es in eval_sets(args.sets.split(",")):
        t = time.perf_counter()
        rows = run_set(store, embedder, es, args.chunking.split(","), [int(k) for k in args.ks.split(",")],
                       [int(h) for h in args.hops.split(",")], args.modes.split(","), not args.reuse, extra)
        print(f"\n## {es.name} ({len(es.questions)} questions, {sum(1 for q in es.questions if q.gold)} answerable; "
              f"{time.perf_counter() - t:.0f}s)\n")
        print(table(rows))
        all_rows += rows
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"sweep-{args.embedder}{'-' + args.tag if args.tag else ''}"
    (args.out / f"{stem}.json").write_text(json.dumps({"embedder": inner.model_id, "settings": extra,
                                                       "rows": all_rows}, indent=1))
    (args.out / f"{stem}.md").write_text(table(all_rows) + "\n")
    print(f"\nwrote {args.out / (stem + '.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
