"""Ask ablation: naive → plain → fixed chunks → hop → hop+gate → full, on labelled question sets.

    python -m eval.run_eval                               # AI Act, PEPs, ClapNQ dev; MiniLM
    python -m eval.run_eval --sets aiact --configs full   # one set, one configuration
    python -m eval.run_eval --embedder hash --limit 10    # a fast smoke run

Configurations (all offline: extractive writer, rule decomposition, learned scorer):

==========  =====  ====  ======  ==============================================================
config      hops   gate  verify  chunks
==========  =====  ====  ======  ==============================================================
naive       0      no    no      structural — top-k straight to the writer
plain       0      yes   no      structural
fixed       1      yes   yes     fixed 800-character windows
hop         1      no    no      structural
hop+gate    1      yes   no      structural
full        1      yes   yes     structural — verification refuses when every claim fails
==========  =====  ====  ======  ==============================================================

Claims are anchored in every configuration so faithfulness can be measured; "verify" means a
failed verification changes the outcome (a refusal when no claim is supported).

Metrics per set and configuration: answer hit rate (answered, and every gold unit among the
sources) for single- and multi-hop questions, answer in gold (answered, and a supported claim of
the answer is anchored in a gold unit), correct refusals (unanswerable refused), false
refusals (answerable refused), faithfulness (supported / all claims of answered questions),
exact offsets (``unit.text[start:end] == quote`` re-checked from the store), p50 latency.

ClapNQ dev: the gold passages of all answerable and unanswerable rows form one corpus; a row's
question is asked against the whole corpus. Unanswerable rows have a passage on the topic that
does not hold the answer, so retrieval scores look fine and only the gate can refuse.
Data other than the bundled AI Act is read from ``$ANCHOR_BENCH_DATA`` (``eval/data.py``); absent sets are skipped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from anchor_core.ask import AskSettings, ask
from anchor_core.embed_cache import CachedEmbedder as PersistentCache
from anchor_core.embeddings import make_embedder
from anchor_core.errors import CorpusNotFound
from anchor_core.indexing import ingest
from anchor_core.models import Document, ParsedCorpus, Unit
from anchor_core.stores.sqlite import SQLiteStore
from eval.sweep import SHARED, CachedEmbedder, EvalSet, Question, ensure_corpus, eval_sets

HERE = Path(__file__).resolve().parent
CONFIGS: dict[str, dict] = {
    "naive": {"hops": 0, "gate": False, "verify": False, "chunking": "structural"},
    "plain": {"hops": 0, "gate": True, "verify": False, "chunking": "structural"},
    "fixed": {"hops": 1, "gate": True, "verify": True, "chunking": "fixed"},
    "hop": {"hops": 1, "gate": False, "verify": False, "chunking": "structural"},
    "hop+gate": {"hops": 1, "gate": True, "verify": False, "chunking": "structural"},
    "full": {"hops": 1, "gate": True, "verify": True, "chunking": "structural"},
}


@dataclass
class Outcome:
    qid: str
    kind: str
    refused: bool
    code: str | None
    hit: bool
    claims: int
    supported: int
    exact: int
    ms: float
    gate: float | None
    signals: dict
    in_gold: bool = False
    """A supported claim of the answer is anchored in a gold unit."""


def clapnq_set(limit: int | None = None) -> tuple[EvalSet, ParsedCorpus] | None:
    base = SHARED / "bench" / "clapnq"
    files = {"single": base / "clapnq_answerable_dev.jsonl", "unanswerable": base / "clapnq_unanswerable_dev.jsonl"}
    if not all(p.exists() for p in files.values()):
        print(f"skip clapnq: {base} not found")
        return None
    units, questions, seen = [], [], {}
    for kind, path in files.items():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for r in rows[:limit]:
            gold = []
            for p in r["passages"]:
                text = " ".join(p["text"].split())
                key = text[:200]
                if key not in seen:
                    uid = f"p{len(seen)}"
                    seen[key] = uid
                    units.append(Unit(unit_id=uid, doc_id="clapnq", kind="passage", heading=p["title"],
                                      title="", text=text))
                gold.append(seen[key])
            questions.append(Question(f"clapnq-{r['id']}", r["input"], kind, gold if kind == "single" else []))
    parsed = ParsedCorpus(documents=[Document(doc_id="clapnq", title="ClapNQ dev passages")], units=units)
    return EvalSet("clapnq", "clapnq", None, questions), parsed


def ensure_clapnq(store: SQLiteStore, embedder, parsed: ParsedCorpus, chunking: str) -> str:
    name = f"clapnq-{chunking}"
    try:
        info = store.corpus(name)
        if info.embedder == embedder.model_id and info.units == len(parsed.units):
            return name
    except CorpusNotFound:
        pass
    ingest(store, embedder, parsed, corpus=name, adapter="clapnq", chunking=chunking)
    return name


def run_question(store, embedder, corpus: str, q: Question, cfg: dict) -> Outcome:
    s = AskSettings(k=5, hops=cfg["hops"], gate=cfg["gate"], verify=cfg["verify"])
    t = time.perf_counter()
    r = ask(q.question, store=store, embedder=embedder, corpus=corpus, settings=s)
    ms = (time.perf_counter() - t) * 1000
    units = {x.unit_id for x in r.sources}
    anchors = [c.anchor for c in r.claims if c.anchor]
    stored = store.get_units(corpus, sorted({a.unit_id for a in anchors}))
    exact = sum(a.unit_id in stored and stored[a.unit_id].text[a.start:a.end] == a.quote for a in anchors)
    in_gold = any(c.supported and c.anchor and c.anchor.unit_id in q.gold for c in r.claims)
    return Outcome(q.qid, q.kind, r.refused, r.reason_code, bool(q.gold) and all(g in units for g in q.gold),
                   len(r.claims), sum(c.supported for c in r.claims), exact, ms,
                   r.gate.score if r.gate else None, r.gate.signals if r.gate else {}, in_gold)


def summarise(outs: list[Outcome]) -> dict:
    ans = [o for o in outs if o.kind != "unanswerable"]
    una = [o for o in outs if o.kind == "unanswerable"]

    def rate(xs, f):
        return round(sum(map(f, xs)) / len(xs), 3) if xs else None

    answered = [o for o in outs if not o.refused]
    claims = sum(o.claims for o in answered)
    anchored = sum(o.claims for o in outs)
    return {
        "answerable": len(ans), "unanswerable": len(una),
        "hit_single": rate([o for o in ans if o.kind == "single"], lambda o: not o.refused and o.hit),
        "hit_multi": rate([o for o in ans if o.kind == "multi"], lambda o: not o.refused and o.hit),
        "answered": rate(ans, lambda o: not o.refused),
        "answer_in_gold": rate(ans, lambda o: not o.refused and o.in_gold),
        "correct_refusals": rate(una, lambda o: o.refused),
        "false_refusals": rate(ans, lambda o: o.refused),
        "faithfulness": round(sum(o.supported for o in answered) / claims, 3) if claims else None,
        "exact_offsets": f"{sum(o.exact for o in outs)}/{anchored}",
        "p50_ms": round(statistics.median(o.ms for o in outs), 1) if outs else None,
        "elapsed_s": round(sum(o.ms for o in outs) / 1000, 1),
    }


COLUMNS = ["set", "config", "answerable", "unanswerable", "hit_single", "hit_multi", "answered", "answer_in_gold",
           "correct_refusals",
           "false_refusals", "faithfulness", "exact_offsets", "p50_ms", "elapsed_s"]


def table(rows: list[dict]) -> str:
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        out.append("| " + " | ".join("–" if r.get(c) is None else str(r.get(c)) for c in COLUMNS) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="aiact,peps,clapnq")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--limit", type=int, help="at most this many questions per set (ClapNQ: rows per file)")
    ap.add_argument("--workspace", default=str(HERE / "results" / "cache"))
    ap.add_argument("--out", default=str(HERE / "results" / "ask_eval"), help="writes OUT.md and OUT.json")
    ap.add_argument("--dump", help="also write every question's outcome (JSONL) here")
    argv = sys.argv[1:] if argv is None else argv
    args = ap.parse_args(argv)

    configs = [c for c in args.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise SystemExit(f"unknown configs {unknown}; choose from {', '.join(CONFIGS)}")
    Path(args.workspace).mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(Path(args.workspace) / "anchor.db")
    inner = make_embedder(args.embedder)
    embedder = CachedEmbedder(PersistentCache(inner, Path(args.workspace) / "embedding-cache.db"))
    names = [s for s in args.sets.split(",") if s]
    sets: list[tuple[EvalSet, ParsedCorpus | None]] = [(es, None) for es in eval_sets([n for n in names
                                                                                        if n != "clapnq"])]
    if "clapnq" in names and (c := clapnq_set(args.limit)) is not None:
        sets.append(c)

    rows, dump = [], []
    for es, parsed in sets:
        questions = es.questions if es.name == "clapnq" or not args.limit else es.questions[: args.limit]
        for cfg_name in configs:
            cfg = CONFIGS[cfg_name]
            corpus = (ensure_clapnq(store, embedder, parsed, cfg["chunking"]) if parsed is not None
                      else ensure_corpus(store, embedder, es, cfg["chunking"], rebuild=False))
            outs = [run_question(store, embedder, corpus, q, cfg) for q in questions]
            row = {"set": es.name, "config": cfg_name, **summarise(outs)}
            rows.append(row)
            print(json.dumps(row), flush=True)
            dump += [{"set": es.name, "config": cfg_name, **o.__dict__} for o in outs]

    md = table(rows)
    print(md)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".md").write_text(f"# Ask ablation\n\n`python -m eval.run_eval {' '.join(argv)}`"
                                      f" (embedder {inner.model_id})\n\n{md}\n", encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    if args.dump:
        Path(args.dump).write_text("\n".join(json.dumps(d) for d in dump) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
