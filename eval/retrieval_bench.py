"""Retrieval bench: BM25 alone, dense alone, their fusion and the full retrieve (with hops) on
every dev set, against a plain BM25 baseline from the ``bm25s`` library run on the same
passages and the same questions in the same run.

    python -m eval.retrieval_bench                         # every set, MiniLM
    python -m eval.retrieval_bench --sets aiact,peps       # a few
    python -m eval.retrieval_bench --obliqa-limit 500      # a seeded sample of ObliQA dev

Sets and measures:

- ``aiact gdpr peps rfc adgm`` (``eval/questions/*.jsonl``): a question is a hit when every gold
  unit is among the k=5 hits; split single / multi-hop; unanswerable questions are excluded.
- ``xrefrag`` (XRefRAG ADGM dev): a hit when both the source and the target passage are in the top 10.
- ``obliqa`` (ObliQA dev): Recall@10 of the gold passages (mean over questions of the share of a
  question's gold passages in the top 10), passages mapped to the adgm corpus's units by
  (DocumentID, PassageID), falling back to the passage text when an id pair is ambiguous.

Rows: ``bm25``, ``dense`` and ``fusion`` are the store's signals with hops off (``fusion`` is
hybrid mode); ``retrieve`` is the product's default settings (hybrid, one hop); ``bm25s`` is
plain Okapi BM25 (bm25s defaults, English stop-words) over the same chunks, ranked by unit.

Corpora are ingested into ``eval/results/cache/<embedder>/bench.db`` once and reused while
the adapter's output is unchanged (``--rebuild`` forces it); embeddings come from the
persistent cache beside it. A set whose data is absent (``$ANCHOR_BENCH_DATA``, see
``eval/data.py``) is skipped with a note.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from anchor_core.embed_cache import CachedEmbedder
from anchor_core.embeddings import make_embedder
from anchor_core.errors import CorpusNotFound
from anchor_core.indexing import ingest
from anchor_core.models import Filters, ParsedCorpus
from anchor_core.named import use_adapters
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from eval.bm25s_index import Bm25s
from eval.data import BENCH, CORPORA
from ingest import get_adapter

log = logging.getLogger("eval.retrieval_bench")
HERE = Path(__file__).resolve().parent
REPO = HERE.parent
QUESTION_SETS = ("aiact", "gdpr", "peps", "rfc", "adgm")
ALL_SETS = (*QUESTION_SETS, "xrefrag", "obliqa")
ROWS = ("bm25s", "bm25", "dense", "fusion", "retrieve")
# The grids behind the defaults (``--cv``): fusion with hops off, then the hop scoring with that fusion.
FUSION_GRID = [{"fusion": "rrf", "bm25_weight": 1.0}, {"fusion": "rrf", "bm25_weight": 2.0},
               *({"fusion": "score", "bm25_share": w} for w in (0.3, 0.4, 0.5, 0.6, 0.7))]
PER_UNIT_GRID = [{"per_unit": n} for n in (None, 1, 2, 3)]
SLOTS_GRID = [{"hop_slots": n} for n in (None, 1, 2, 3)]
# The BM25 share scaled by the share of the question's words the corpus writes (known_power 0 = off), with the
# share itself, since the two trade against each other.
KNOWN_GRID = [{"bm25_share": w, "known_power": p} for w in (0.3, 0.4, 0.5, 0.6) for p in (0.0, 0.5, 1.0, 2.0)]
PER_PARENT_GRID = [{"hop_per_parent": n} for n in (None, 1, 2)]
HOP_GRID = [{"hop_decay": d, "hop_floor": f} for d in (0.6, 0.7, 0.8, 0.9, 1.0) for f in (0.25, 0.5, 0.75)]


@dataclass
class Q:
    qid: str
    question: str
    kind: str  # single | multi
    gold: list[str]


@dataclass
class BenchSet:
    name: str
    corpus: str  # the adapter, and the stored corpus's name
    k: int
    measure: str  # "all" (every gold unit in the top k) | "recall" (share of gold units in the top k)
    questions: list[Q] = field(default_factory=list)


def corpus_path(adapter: str) -> Path | None:
    if adapter == "aiact":
        return None  # bundled with the adapter
    return CORPORA / adapter


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def question_set(name: str) -> BenchSet:
    rows = _jsonl(HERE / "questions" / f"{name}.jsonl")
    qs = [Q(r["id"], r["question"], r["type"], list(r["gold"])) for r in rows if r.get("gold")]
    return BenchSet(name, name, 5, "all", qs)


def xrefrag_set() -> BenchSet:
    rows = _jsonl(BENCH / "xrefrag" / "XRefRAG-ADGM-ALL-dev.jsonl")
    qs = [Q(r.get("item_id", str(i)), r["question"], "multi", [r["source_passage_id"], r["target_passage_id"]])
          for i, r in enumerate(rows)]
    return BenchSet("xrefrag", "adgm", 10, "all", qs)


def obliqa_set(parsed: ParsedCorpus, limit: int | None, seed: int) -> BenchSet:
    """ObliQA dev questions with gold passages mapped to adgm unit ids; a passage that cannot be
    mapped is counted (and reported) rather than dropped silently."""
    rows = json.loads((BENCH / "obliqa" / "ObliQA_dev.json").read_text(encoding="utf-8"))
    doc_no = {d.doc_id: d.meta.get("adgm_document_id") for d in parsed.documents}
    by_pid: dict[tuple[int, str], list[str]] = {}
    by_text: dict[str, str] = {}
    for u in parsed.units:
        by_pid.setdefault((doc_no.get(u.doc_id), u.meta.get("passage_id", "")), []).append(u.unit_id)
        by_text.setdefault(" ".join(u.text.split()), u.unit_id)
    qs, unmapped = [], 0
    for r in rows:
        gold = []
        for p in r["Passages"]:
            ids = by_pid.get((p["DocumentID"], p["PassageID"]), [])
            uid = ids[0] if len(ids) == 1 else by_text.get(" ".join(p["Passage"].split()))
            if uid is None and ids:
                uid = ids[0]
            if uid is None:
                unmapped += 1
            else:
                gold.append(uid)
        if gold:
            qs.append(Q(r["QuestionID"], r["Question"], "multi" if len(gold) > 1 else "single", sorted(set(gold))))
    if unmapped:
        print(f"obliqa: {unmapped} gold passages could not be mapped to adgm units")
    if limit and limit < len(qs):
        qs = random.Random(seed).sample(qs, limit)
    return BenchSet("obliqa", "adgm", 10, "recall", qs)


def _fingerprint(parsed: ParsedCorpus) -> str:
    h = hashlib.sha256()
    for d in parsed.documents:
        h.update(json.dumps([d.doc_id, d.title, d.meta], sort_keys=True, default=str).encode())
    for u in parsed.units:
        h.update(f"{u.unit_id}\x00{u.heading}\x00{u.title}\x00{len(u.text)}\x00".encode())
        h.update(hashlib.sha256(u.text.encode()).digest())
    for r in parsed.references:
        h.update(f"{r.src_unit}\x00{r.start}\x00{r.raw}\x00{r.dst_unit}\x00{r.dst_part}\x00".encode())
    return h.hexdigest()[:16]


def ensure(store: SQLiteStore, embedder, adapter: str, rebuild: bool) -> ParsedCorpus:
    """Parse the corpus and ingest it unless the stored copy came from the same parse."""
    parsed = get_adapter(adapter).load(corpus_path(adapter))
    fp = _fingerprint(parsed)
    try:
        info = store.corpus(adapter)
        if not rebuild and info.source == f"bench:{fp}" and info.embedder == embedder.model_id:
            return parsed
    except CorpusNotFound:
        pass
    t = time.perf_counter()
    ingest(store, embedder, parsed, corpus=adapter, adapter=adapter, chunking="structural", source=f"bench:{fp}")
    print(f"ingested {adapter}: {store.corpus(adapter).chunks} chunks in {time.perf_counter() - t:.0f}s")
    return parsed


class Bm25sBaseline:
    """Plain BM25 (:class:`eval.bm25s_index.Bm25s`) over the stored chunks' text (heading lead-in
    included, as the store indexes it), ranked by unit."""

    def __init__(self, store: SQLiteStore, corpus: str) -> None:
        chunks = [c for cs in store.units_chunks(corpus, store.unit_ids(corpus),
                                                 Filters(exclude_kinds=["recital"])).values() for c in cs]
        self.units = [c.unit_id for c in chunks]
        self.index = Bm25s([c.embed_text for c in chunks])

    def units_for(self, question: str, k: int) -> list[str]:
        docs, _ = self.index.top([question], k * 8)
        out: list[str] = []
        for i in docs[0] if len(docs) else []:
            u = self.units[int(i)]
            if u not in out:
                out.append(u)
            if len(out) == k:
                break
        return out


_MEMO = {"search_bm25", "search_vector", "chunk_vectors", "get_chunks", "units_chunks", "get_units",
         "references_from", "references_to", "documents", "corpus", "known_terms"}


def _freeze(x):
    if isinstance(x, np.ndarray):
        return x.tobytes()
    if isinstance(x, (list, tuple)):
        return tuple(_freeze(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if hasattr(x, "model_dump_json"):
        return x.model_dump_json()
    return x


class MemoStore:
    """A read-only view of a store that remembers its answers, for a grid over settings that change
    how the answers are combined but not what is asked (the questions repeat across the grid)."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self._memo: dict = {}

    def __getattr__(self, name: str):
        attr = getattr(self._inner, name)
        if name not in _MEMO:
            return attr

        def call(*args, **kwargs):
            key = (name, _freeze(args), _freeze(kwargs))
            if key not in self._memo:
                self._memo[key] = attr(*args, **kwargs)
            return self._memo[key]
        return call


def score(bs: BenchSet, q: Q, units: list[str]) -> float:
    top = set(units[: bs.k])
    if bs.measure == "all":
        return float(all(g in top for g in q.gold))
    return sum(g in top for g in q.gold) / len(q.gold)


def settings_for(row: str, k: int, extra: dict | None = None) -> RetrievalSettings:
    base = dict(extra or {})
    if row == "retrieve":
        return RetrievalSettings(k=k, **base)
    mode = {"bm25": "bm25", "dense": "dense", "fusion": "hybrid"}[row]
    return RetrievalSettings(k=k, hops=0, mode=mode, **base)


def run_config(store, embedder, bs: BenchSet, settings: RetrievalSettings) -> tuple[list[float], list[float]]:
    """Per-question scores and latencies (ms) of one retrieval configuration."""
    scores, ms = [], []
    for q in bs.questions:
        t = time.perf_counter()
        r = retrieve(q.question, store=store, embedder=embedder, corpus=bs.corpus, settings=settings)
        ms.append((time.perf_counter() - t) * 1000)
        scores.append(score(bs, q, [h.unit_id for h in r.hits]))
    return scores, ms


def summarise(bs: BenchSet, scores: list[float], ms: list[float] | None) -> dict:
    out: dict = {"n": len(scores), "overall": float(np.mean(scores)) if scores else None}
    for kind in ("single", "multi"):
        s = [x for q, x in zip(bs.questions, scores) if q.kind == kind]
        out[kind] = float(np.mean(s)) if s else None
        out[f"n_{kind}"] = len(s)
    if ms:
        out["p50_ms"] = float(np.percentile(ms, 50))
    return out


def load_sets(names: Iterable[str], store, embedder, rebuild: bool, obliqa_limit: int | None, seed: int
              ) -> list[BenchSet]:
    sets: list[BenchSet] = []
    parsed_cache: dict[str, ParsedCorpus] = {}

    def corpus(adapter: str) -> ParsedCorpus:
        if adapter not in parsed_cache:
            parsed_cache[adapter] = ensure(store, embedder, adapter, rebuild)
        return parsed_cache[adapter]

    for name in names:
        if name not in ALL_SETS:
            raise SystemExit(f"unknown set {name!r}; choose from {', '.join(ALL_SETS)}")
        adapter = name if name in QUESTION_SETS else "adgm"
        path = corpus_path(adapter)
        needs = {"xrefrag": BENCH / "xrefrag" / "XRefRAG-ADGM-ALL-dev.jsonl",
                 "obliqa": BENCH / "obliqa" / "ObliQA_dev.json"}.get(name)
        missing = [p for p in (path, needs) if p is not None and not p.exists()]
        if missing:
            print(f"skip {name}: {', '.join(map(str, missing))} not found")
            continue
        parsed = corpus(adapter)
        if name in QUESTION_SETS:
            sets.append(question_set(name))
        elif name == "xrefrag":
            sets.append(xrefrag_set())
        else:
            sets.append(obliqa_set(parsed, obliqa_limit, seed))
    return sets


def bench(store, embedder, sets: list[BenchSet], rows: Iterable[str], extra: dict | None = None,
          progress: Callable[[str], None] = print) -> list[dict]:
    out = []
    for bs in sets:
        t = time.perf_counter()
        baseline = Bm25sBaseline(store, bs.corpus) if "bm25s" in rows else None
        for row in rows:
            if row == "bm25s":
                assert baseline is not None
                scores, ms = [], []
                for q in bs.questions:
                    t0 = time.perf_counter()
                    units = baseline.units_for(q.question, bs.k)
                    ms.append((time.perf_counter() - t0) * 1000)
                    scores.append(score(bs, q, units))
            else:
                scores, ms = run_config(store, embedder, bs, settings_for(row, bs.k, extra))
            out.append({"set": bs.name, "row": row, "k": bs.k, "measure": bs.measure,
                        **summarise(bs, scores, ms), "scores": scores})
        progress(f"{bs.name}: {len(bs.questions)} questions in {time.perf_counter() - t:.0f}s")
    return out


def grid_search(store, embedder, sets: list[BenchSet], grid: list[dict], row: str = "retrieve",
                progress: Callable[[str], None] = print) -> dict[tuple[str, int], float]:
    """``{(set, grid index): overall score}`` of ``row`` under each settings override in ``grid``."""
    memo = MemoStore(store)
    out: dict[tuple[str, int], float] = {}
    for bs in sets:
        t = time.perf_counter()
        for i, extra in enumerate(grid):
            scores, _ = run_config(memo, embedder, bs, settings_for(row, bs.k, extra))
            out[(bs.name, i)] = float(np.mean(scores)) if scores else 0.0
        progress(f"grid {row} {bs.name}: {len(grid)} settings in {time.perf_counter() - t:.0f}s")
    return out


def leave_one_set_out(scores: dict[tuple[str, int], float], names: list[str], grid: list[dict]) -> list[dict]:
    """For each set: the grid point with the best mean over the *other* sets (each set weighs the
    same), and what it scores on the held-out set; then the point fitted on every set."""
    def best(on: list[str]) -> int:
        return max(range(len(grid)), key=lambda i: (np.mean([scores[(n, i)] for n in on]), -i))

    rows = []
    for held in names:
        i = best([n for n in names if n != held])
        rows.append({"held_out": held, "chosen": grid[i], "held_out_score": scores[(held, i)],
                     "best_possible": max(scores[(held, j)] for j in range(len(grid)))})
    i = best(names)
    rows.append({"held_out": "(none: fitted on all)", "chosen": grid[i],
                 "held_out_score": float(np.mean([scores[(n, i)] for n in names])), "best_possible": None})
    return rows


def cv_table(rows: list[dict]) -> str:
    out = ["| held-out set | settings chosen on the other sets | held-out score | best on that set |",
           "|---|---|---|---|"]
    for r in rows:
        chosen = ", ".join(f"{k}={v}" for k, v in r["chosen"].items())
        out.append(f"| {r['held_out']} | {chosen} | {fmt(r['held_out_score'])} | {fmt(r['best_possible'])} |")
    return "\n".join(out)


PREAMBLE = """# Retrieval bench

Written by `python -m eval.retrieval_bench` (MiniLM, structural chunks, the product's default
settings). `bm25`, `dense`, `fusion`: the store's signals alone and fused, hops off; `retrieve`: the
full default retrieval (named units, fusion, one hop); `bm25s`: plain Okapi BM25 from the `bm25s`
library (k1=1.5, b=0.75, English stop-words) over the same chunks and questions in the same run.
Question sets: every gold unit among the top k, unanswerable questions excluded. XRefRAG ADGM dev:
source and target passage both in the top 10. ObliQA dev: Recall@10 of the gold passages (mean
over questions), single = one gold passage, multi = several. Weights were chosen leave-one-set-out
(`--cv`, see `retrieval-cv*.md`); the numbers below use the weights fitted on all sets. p50 ms is per
question on a shared 2-core machine.

"""


def fmt(x) -> str:
    return "—" if x is None else f"{x:.3f}"


def table(results: list[dict]) -> str:
    out = ["| set | measure | row | single | multi | overall | n | p50 ms |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        measure = f"all gold in top {r['k']}" if r["measure"] == "all" else f"Recall@{r['k']}"
        out.append(f"| {r['set']} | {measure} | {r['row']} | {fmt(r['single'])} | {fmt(r['multi'])} | "
                   f"{fmt(r['overall'])} | {r['n']} | {r.get('p50_ms', 0):.1f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", default=",".join(ALL_SETS))
    p.add_argument("--rows", default=",".join(ROWS))
    p.add_argument("--embedder", default="minilm", choices=["minilm", "hash"])
    p.add_argument("--obliqa-limit", type=int, default=None, help="a seeded sample of this many ObliQA questions")
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--workspace", type=Path, default=HERE / "results" / "cache")
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--tag", default="", help="suffix of the result files")
    p.add_argument("--rebuild", action="store_true", help="re-ingest every corpus")
    p.add_argument("--stages", default="fusion,per_unit,hops", help="with --cv: the stages to run, each on top "
                   "of the current defaults for the others")
    p.add_argument("--cv", action="store_true", help="instead of the table: the fusion and hop grids, chosen "
                   "leave-one-set-out (retrieval-cv.md)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    embedder = CachedEmbedder(make_embedder(args.embedder), args.workspace / args.embedder / "embedding-cache.db")
    store = SQLiteStore(args.workspace / args.embedder / "bench.db")
    use_adapters(get_adapter)  # as the CLI and the dashboard do: questions are read for named units
    sets = load_sets(args.sets.split(","), store, embedder, args.rebuild, args.obliqa_limit, args.seed)
    if args.cv:
        return cross_validate(store, embedder, sets, args)
    results = bench(store, embedder, sets, args.rows.split(","))
    print()
    print(table(results))
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"retrieval{'-' + args.tag if args.tag else ''}"
    (args.out / f"{stem}.json").write_text(json.dumps(
        {"embedder": embedder.model_id, "obliqa_limit": args.obliqa_limit, "seed": args.seed,
         "rows": [{k: v for k, v in r.items() if k != "scores"} for r in results]}, indent=1))
    (args.out / f"{stem}.md").write_text(PREAMBLE + table(results) + "\n")
    print(f"\nwrote {args.out / (stem + '.md')}")
    return 0


def cross_validate(store, embedder, sets: list[BenchSet], args) -> int:
    """One setting group at a time (fusion with hops off; then direct hits per unit and the hop
    scoring with one hop), each on top of the values the previous stage fitted on all sets."""
    names = [bs.name for bs in sets]
    report: dict = {"obliqa_limit": args.obliqa_limit, "seed": args.seed, "stages": []}
    md = [f"ObliQA: {'a seeded sample of ' + str(args.obliqa_limit) if args.obliqa_limit else 'all'} questions. "
          "Each stage's grid is scored on every set; 'settings chosen on the other sets' is the point with the "
          "best mean over the other sets (each set weighs the same), so the held-out score is not fitted on "
          "that set. The product defaults are the points fitted on all sets.", ""]
    fixed: dict = {}
    stages = {"fusion": ("Fusion (hops off)", "fusion", FUSION_GRID),
              "per_unit": ("Direct hits per unit (one hop)", "retrieve", PER_UNIT_GRID),
              "hops": ("Hop scoring (one hop)", "retrieve", HOP_GRID),
              "slots": ("Most followed hits shown (one hop; None: k // 2)", "retrieve", SLOTS_GRID),
              "per_parent": ("Most followed hits from one shown hit (one hop)", "retrieve", PER_PARENT_GRID),
              "known": ("BM25 share and its scaling by the question's known-word share (one hop)", "retrieve",
                        KNOWN_GRID)}
    for title, row, grid in (stages[name] for name in args.stages.split(",")):
        full = [{**fixed, **g} for g in grid]
        scores = grid_search(store, embedder, sets, full, row=row)
        loo = leave_one_set_out(scores, names, full)
        report["stages"].append({"title": title, "row": row, "grid": full, "loo": loo,
                                 "scores": {f"{n}|{i}": v for (n, i), v in scores.items()}})
        md += [f"## {title}", "", _grid_table(scores, names, full), "", cv_table(loo), ""]
        fixed = loo[-1]["chosen"]
    print("\n".join(md))
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"retrieval-cv{'-' + args.tag if args.tag else ''}"
    (args.out / f"{stem}.json").write_text(json.dumps(report, indent=1))
    (args.out / f"{stem}.md").write_text("\n".join(md))
    print(f"wrote {args.out / (stem + '.md')}")
    return 0


def _grid_table(scores: dict[tuple[str, int], float], names: list[str], grid: list[dict]) -> str:
    out = ["| settings | " + " | ".join(names) + " | mean |", "|---|" + "---|" * (len(names) + 1)]
    for i, g in enumerate(grid):
        vals = [scores[(n, i)] for n in names]
        out.append(f"| {', '.join(f'{k}={v}' for k, v in g.items())} | " + " | ".join(fmt(v) for v in vals)
                   + f" | {fmt(float(np.mean(vals)))} |")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
