"""Fit the evidence gate (``anchor_core/ask/data/gate.json``) on labelled question sets.

    python -m eval.train_gate                    # AI Act + PEPs + ClapNQ dev, MiniLM
    python -m eval.train_gate --reuse            # refit from the cached feature rows

For every question, retrieval runs as in ``anchor ask`` (k=5, one hop) and the gate's signals are
computed (:func:`anchor_core.ask.gate.signals`). Questions whose question names something the
corpus never mentions are refused by rule before the model and are left out of the fit (and
counted). A logistic regression over the signals (answerable = 1) is fitted with class weights
that give each set equal weight, and cross-validated by set-stratified folds. Then the thresholds
are chosen on the out-of-fold scores: ``pass`` and ``borderline`` and the offline judge's coverage,
maximising the mean correct-refusal rate subject to a false-refusal ceiling per set (``--max-false``). The file
records the data, the fold scores and the choice.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np

from anchor_core.ask import gate as g
from anchor_core.embed_cache import CachedEmbedder as PersistentCache
from anchor_core.embeddings import make_embedder
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from eval.run_eval import clapnq_set, ensure_clapnq
from eval.sweep import CachedEmbedder, ensure_corpus, eval_sets

HERE = Path(__file__).resolve().parent
FEATURES = ["coverage", "hit_coverage", "dense", "agreement", "missing_share", "type_missing", "novelty"]
OUT = HERE.parent / "anchor_core" / "ask" / "data" / "gate.json"


def collect(args) -> list[dict]:
    Path(args.workspace).mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(Path(args.workspace) / "anchor.db")
    inner = make_embedder(args.embedder)
    emb = CachedEmbedder(PersistentCache(inner, Path(args.workspace) / "embedding-cache.db"))
    sets = [(es, None) for es in eval_sets([s for s in args.sets.split(",") if s != "clapnq"])]
    if "clapnq" in args.sets and (c := clapnq_set()) is not None:
        sets.append(c)
    rows = []
    for es, parsed in sets:
        corpus = ensure_clapnq(store, emb, parsed, "structural") if parsed else ensure_corpus(
            store, emb, es, "structural", rebuild=False)
        rs = RetrievalSettings(k=5, hops=1)
        for q in es.questions:
            r = retrieve(q.question, store=store, embedder=emb, corpus=corpus, settings=rs)
            qvec = emb.embed([q.question])[0]
            vecs = store.chunk_vectors(corpus, [h.chunk_id for h in r.hits])
            sig = g.signals(q.question, r.hits, store=store, corpus=corpus, filters=rs.filters, qvec=qvec,
                            hit_vectors=vecs)
            rows.append({"set": es.name, "qid": q.qid, "answerable": q.kind != "unanswerable",
                         "missing_names": sig.missing_names, "missing": sig.missing,
                         **{f: float(g._feature(sig, f)) for f in FEATURES}})
        print(f"{es.name}: {len(es.questions)} questions")
    return rows


def fit(rows: list[dict], c: float):
    from sklearn.linear_model import LogisticRegression

    x = np.array([[r[f] for f in FEATURES] for r in rows])
    y = np.array([int(r["answerable"]) for r in rows])
    sets = [r["set"] for r in rows]
    # every (set, label) cell weighs the same in total: ClapNQ's 300 rows do not drown the AI Act's 52
    cells = {(s, lab): sum(1 for s2, l2 in zip(sets, y) if s2 == s and l2 == lab) for s in set(sets) for lab in (0, 1)}
    w = np.array([1.0 / cells[(s, lab)] for s, lab in zip(sets, y)])
    w *= len(w) / w.sum()
    m = LogisticRegression(C=c, max_iter=1000)
    m.fit(x, y, sample_weight=w)
    return m


def oof_scores(rows: list[dict], c: float, folds: int = 5, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    fold = np.zeros(len(rows), dtype=int)
    for key in {(r["set"], r["answerable"]) for r in rows}:
        idx = [i for i, r in enumerate(rows) if (r["set"], r["answerable"]) == key]
        rng.shuffle(idx)
        for j, i in enumerate(idx):
            fold[i] = j % folds
    out = np.zeros(len(rows))
    for f in range(folds):
        train = [r for r, k in zip(rows, fold) if k != f]
        m = fit(train, c)
        test = [i for i in range(len(rows)) if fold[i] == f]
        out[test] = m.predict_proba(np.array([[rows[i][x] for x in FEATURES] for i in test]))[:, 1]
    return out


def outcome(rows, scores, pass_t, border_t, judge_cov):
    """Answered or not for each row under the thresholds (the rule refusals included)."""
    res = []
    for r, s in zip(rows, scores):
        if r["missing_names"]:
            res.append(False)
        elif s >= pass_t:
            res.append(True)
        elif s >= border_t:
            res.append(not r["missing"] and r["coverage"] >= judge_cov)
        else:
            res.append(False)
    return res


def rates(rows, answered) -> dict:
    out = {}
    for s in sorted({r["set"] for r in rows}):
        a = [ans for r, ans in zip(rows, answered) if r["set"] == s and r["answerable"]]
        u = [ans for r, ans in zip(rows, answered) if r["set"] == s and not r["answerable"]]
        out[s] = {"false_refusals": round(1 - sum(a) / len(a), 3) if a else None,
                  "correct_refusals": round(1 - sum(u) / len(u), 3) if u else None}
    return out


def choose(rows, scores, max_false: dict[str, float]) -> tuple[dict, dict]:
    best = None
    grid = np.round(np.arange(0.05, 0.96, 0.025), 3)
    for pass_t, border_t, judge in itertools.product(grid, grid, (0.5, 0.6, 0.7, 0.8, 0.9, 1.01)):
        if border_t > pass_t:
            continue
        r = rates(rows, outcome(rows, scores, pass_t, border_t, judge))
        if any(v["false_refusals"] is not None and v["false_refusals"] > max_false.get(k, max_false["*"])
               for k, v in r.items()):
            continue
        correct = [v["correct_refusals"] for v in r.values() if v["correct_refusals"] is not None]
        key = (float(np.mean(correct)), pass_t)
        if best is None or key > best[0]:
            best = (key, {"pass": float(pass_t), "borderline": float(border_t)}, {"coverage": float(judge)}, r)
    if best is None:
        raise SystemExit(f"no thresholds keep false refusals within {max_false} on every set")
    return best[1], {"judge": best[2], "rates": best[3]}


ADAPTER = {"aiact": "aiact", "peps": "peps", "clapnq": "clapnq", "xrefrag-adgm-dev": "adgm"}


def profile(train: list[dict], test: list[dict], c: float, ceilings: dict[str, float]) -> tuple[dict, dict]:
    """Weights fitted on ``train`` (rows refused by the name rule left out), thresholds chosen on the
    out-of-fold scores of ``test`` rows (``test`` ⊆ ``train``, or scored by a model of all of
    ``train`` when it is the same list)."""
    fit_rows = [r for r in train if not r["missing_names"]]
    oof = dict(zip((r["qid"] for r in fit_rows), oof_scores(fit_rows, c)))
    scores = np.array([oof.get(r["qid"], 0.0) for r in test])
    thresholds, extra = choose(test, scores, ceilings)
    model = fit(fit_rows, c)
    return ({"bias": float(model.intercept_[0]),
             "weights": {f: float(w) for f, w in zip(FEATURES, model.coef_[0])},
             "thresholds": thresholds, "judge": extra["judge"],
             "out_of_fold": extra["rates"]}, extra["rates"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="aiact,peps,clapnq")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--workspace", default=str(HERE / "results" / "cache"))
    ap.add_argument("--features", default=str(HERE / "results" / "gate_features.jsonl"))
    ap.add_argument("--reuse", action="store_true", help="refit from --features instead of recomputing")
    ap.add_argument("--c", type=float, default=1.0, help="inverse L2 strength of the logistic regression")
    ap.add_argument("--max-false", default="*:0.08,clapnq:0.18",
                    help="false-refusal ceiling per set, out of fold (the issue's targets: AI Act ≤ 0.10, "
                         "ClapNQ answers ≥ 80%%; kept below them for a margin)")
    ap.add_argument("--min-own", type=int, default=100,
                    help="sets with at least this many questions get their own weights (else only thresholds)")
    ap.add_argument("--min-unanswerable", type=int, default=10,
                    help="sets with fewer unanswerable questions get no profile of their own")
    ap.add_argument("--write", action="store_true", help=f"write the fitted gate to {OUT}")
    args = ap.parse_args(argv)

    path = Path(args.features)
    if args.reuse and path.exists():
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    else:
        rows = collect(args)
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    ruled = [r for r in rows if r["missing_names"]]
    print(f"{len(rows)} questions; {len(ruled)} refused by the missing-name rule "
          f"({sum(r['answerable'] for r in ruled)} of them answerable)")
    ceilings = {k: float(v) for k, v in (x.split(":") for x in args.max_false.split(","))}
    default, report = profile(rows, rows, args.c, ceilings)
    print("default profile, out-of-fold:", json.dumps(report))
    profiles = {}
    for s in sorted({r["set"] for r in rows}):
        own = [r for r in rows if r["set"] == s]
        if sum(not r["answerable"] for r in own) < args.min_unanswerable:
            print(f"profile {s}: too few unanswerable questions for its own thresholds; uses the default")
            continue
        # a set with enough rows gets its own weights; a small one only its own thresholds
        prof, rep = profile(own if len(own) >= args.min_own else rows, own, args.c, ceilings)
        prof["fitted_on"] = s if len(own) >= args.min_own else "all sets"
        profiles[ADAPTER.get(s, s)] = prof
        print(f"profile {s}, out-of-fold:", json.dumps(rep))
    spec = {
        "note": "fitted by python -m eval.train_gate; an evidence score, not a probability of a correct answer. "
                "A corpus uses the profile of its adapter when there is one, else the default profile.",
        "data": {s: {"questions": sum(r["set"] == s for r in rows),
                     "unanswerable": sum(r["set"] == s and not r["answerable"] for r in rows)}
                 for s in sorted({r["set"] for r in rows})},
        "embedder": args.embedder,
        "features": FEATURES,
        **default,
        "profiles": profiles,
        "max_false_refusals": ceilings,
        "C": args.c,
    }
    print(json.dumps(spec, indent=2))
    if args.write:
        OUT.write_text(json.dumps(spec, indent=2) + "\n")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
