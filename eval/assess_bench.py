"""Per-topic accuracy of ``anchor assess`` on labelled system descriptions.

    python -m eval.assess_bench            # report dev (leave-one-out) and held-out test
    python -m eval.assess_bench --write    # also refit the thresholds on dev and write the fit file

Thresholds are fitted on ``eval/questions/assess_dev.jsonl`` only. Each dev description is scored
against a background of the *other* dev descriptions (leave-one-out), so the scores the thresholds
are fitted on are the kind a new description gets. ``assess_test.jsonl`` was written before any
fitting and is only reported. The corpus is the AI Act that ships with Anchor (no ../shared needed).

Outcomes per topic: ``correct``, ``unclear`` (assess said "unclear — review": not a wrong tick, but
not an answer either) and ``wrong``. The fit maximises ``correct - 2 * wrong`` (a confident wrong
tick costs a reviewer more than an honest "unclear").
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from anchor_core.ask import assess as A
from anchor_core.ask import assess_map as amap

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "eval" / "questions"
FIT = REPO / "anchor_core" / "ask" / "data" / "assess_aiact_fit.json"
WRONG_COST = 2.0


@dataclass
class Row:
    id: str
    description: str
    prohibited: list[str]
    high_risk: list[str]
    role: str
    transparency: list[str]
    scores: A.Scores | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def load_rows(path: Path) -> list[Row]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out.append(Row(r["id"], r["description"], r["prohibited"], r["high_risk"], r["role"], r["transparency"]))
    return out


def _outcome(pred: str, expected: list[str]) -> str:
    if pred == "unclear":
        return "unclear"
    return "correct" if pred in expected else "wrong"


def predict_single(keys: list[str], scores: np.ndarray, th: dict[str, float]) -> str:
    i = int(np.argmax(scores))
    st = A._status(float(scores[i]), th)
    return keys[i] if st == "applies" else "unclear" if st == "unclear" else "none"


def predict_high(cs: A.Candidates, s: A.Scores, t3: dict[str, float], t1: dict[str, float]) -> str:
    i3, i1 = int(np.argmax(s.annex_iii)), int(np.argmax(s.annex_i))
    v3, v1 = float(s.annex_iii[i3]), float(s.annex_i[i1])
    st3, st1 = A._status(v3, t3), A._status(v1, t1)
    rank = {"applies": 2, "unclear": 1, "not_applicable": 0}
    if st3 == "not_applicable" and st1 == "not_applicable":
        return "none"
    if (rank[st3], v3 - t3["hi"]) >= (rank[st1], v1 - t1["hi"]):
        return cs.annex_iii[i3].key if st3 == "applies" else "unclear"
    return "6(1)" if st1 == "applies" else "unclear"


def predict_role(cs: A.Candidates, s: A.Scores, th: dict[str, float]) -> str:
    rs = {c.key: float(v) for c, v in zip(cs.roles, s.roles, strict=True)}
    pv, dv = rs["provider"], rs["deployer"]
    if pv >= th["hi"] and dv >= th["hi"] and abs(pv - dv) < th["margin"]:
        return "both"
    if pv >= th["hi"] and pv - dv >= th["margin"]:
        return "provider"
    if dv >= th["hi"] and dv - pv >= th["margin"]:
        return "deployer"
    return "not_stated"


def predict_transparency(s: A.Scores, keys: list[str], th: dict[str, float]) -> dict[str, str]:
    return {k: A._status(float(v), th) for k, v in zip(keys, s.transparency, strict=True)}


def tally(outcomes: list[str]) -> dict[str, int]:
    return {k: outcomes.count(k) for k in ("correct", "unclear", "wrong")}


def utility(t: dict[str, int]) -> float:
    return t["correct"] - WRONG_COST * t["wrong"]


def grid(values: np.ndarray, n: int = 14) -> list[float]:
    qs = np.quantile(values, np.linspace(0.05, 0.98, n))
    return sorted({round(float(q), 2) for q in qs})


def pairs(values: list[float]) -> list[dict[str, float]]:
    return [{"lo": lo, "hi": hi} for lo, hi in itertools.combinations_with_replacement(values, 2)]


def decided(m: dict[str, Any], cs: A.Candidates, r: Row, th: dict[str, dict[str, float]], *,
            read_role: bool = True) -> dict[str, Any]:
    """What the product decides for ``r`` (through :func:`anchor_core.ask.assess.decide`, not the fit's shortcuts)."""
    assert r.scores is not None
    by = {d.topic: d for d in A.decide(m, cs, r.scores, th, description=r.description if read_role else "")}
    t = by["transparency"]
    unclear = {p.label for p in t.provisions if p.note.startswith("unclear")}
    paragraphs = {c.key: ("applies" if c.key in t.keys else "unclear" if c.label in unclear else "not_applicable")
                  for c in cs.transparency}
    return {"prohibited": by["prohibited"].keys[0], "high_risk": by["high_risk"].keys[0],
            "role": by["roles"].keys[0], "transparency": paragraphs}


def evaluate(m: dict[str, Any], rows: list[Row], cs: A.Candidates, th: dict[str, dict[str, float]], *,
             read_role: bool = True) -> dict[str, Any]:
    got = [(decided(m, cs, r, th, read_role=read_role), r) for r in rows]
    out: dict[str, Any] = {}
    out["prohibited"] = tally([_outcome(g["prohibited"], r.prohibited) for g, r in got])
    out["high_risk"] = tally([_outcome(g["high_risk"], r.high_risk) for g, r in got])
    out["high_risk_area"] = tally([
        "unclear" if g["high_risk"] == "unclear" else
        "correct" if g["high_risk"].split("(")[0] in {e.split("(")[0] for e in r.high_risk} else "wrong"
        for g, r in got])
    out["roles"] = tally([_outcome(g["role"], [r.role]) for g, r in got])
    per, exact = [], []
    for g, r in got:
        row = ["unclear" if st == "unclear" else "correct" if (st == "applies") == (k in r.transparency) else "wrong"
               for k, st in g["transparency"].items()]
        per += row
        exact.append("wrong" if "wrong" in row else "unclear" if "unclear" in row else "correct")
    out["transparency_paragraphs"] = tally(per)
    out["transparency"] = tally(exact)
    return out


def fit(rows: list[Row], cs: A.Candidates) -> dict[str, dict[str, float]]:
    th = A.thresholds(None)
    pk = [c.key for c in cs.prohibited]

    def best(options, score):
        return max(options, key=lambda o: (score(o), -(o["hi"] - o["lo"])))

    vals = np.concatenate([r.scores.prohibited for r in rows])
    th["prohibited"] = best(pairs(grid(vals)), lambda o: utility(tally(
        [_outcome(predict_single(pk, r.scores.prohibited, o), r.prohibited) for r in rows])))
    g3 = pairs(grid(np.concatenate([r.scores.annex_iii for r in rows])))
    g1 = pairs(grid(np.concatenate([r.scores.annex_i for r in rows])))
    th["annex_iii"], th["annex_i"] = max(itertools.product(g3, g1), key=lambda ab: (utility(tally(
        [_outcome(predict_high(cs, r.scores, ab[0], ab[1]), r.high_risk) for r in rows])),
        -(ab[0]["hi"] - ab[0]["lo"]) - (ab[1]["hi"] - ab[1]["lo"])))
    tkeys = [c.key for c in cs.transparency]

    def t_util(o):
        outs = []
        for r in rows:
            for k, st in predict_transparency(r.scores, tkeys, o).items():
                outs.append("unclear" if st == "unclear" else
                            "correct" if (st == "applies") == (k in r.transparency) else "wrong")
        return utility(tally(outs))

    th["transparency"] = best(pairs(grid(np.concatenate([r.scores.transparency for r in rows]))), t_util)
    rv = np.concatenate([r.scores.roles for r in rows])
    # 99: never state a role (the evidence may not tell roles apart better than "not stated" does)
    opts = [{"hi": h, "lo": h, "margin": mg} for h in [*grid(rv), 99.0] for mg in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)]
    th["role"] = max(opts, key=lambda o: (utility(tally([_outcome(predict_role(cs, r.scores, o), [r.role])
                                                          for r in rows])), o["hi"]))
    return th


def cross_validate(m: dict[str, Any], rows: list[Row], cs: A.Candidates, folds: int = 5) -> dict[str, Any]:
    """Thresholds fitted on ``folds - 1`` parts of dev, decisions on the part left out, tallies summed."""
    total: dict[str, dict[str, int]] = {}
    for f in range(folds):
        train = [r for i, r in enumerate(rows) if i % folds != f]
        held = [r for i, r in enumerate(rows) if i % folds == f]
        for topic, t in evaluate(m, held, cs, fit(train, cs)).items():
            acc = total.setdefault(topic, {"correct": 0, "unclear": 0, "wrong": 0})
            for k, v in t.items():
                acc[k] += v
    return total


def table(name: str, res: dict[str, Any]) -> str:
    lines = [f"{name}", f"  {'topic':<24} {'correct':>8} {'unclear':>8} {'wrong':>6} {'n':>4}  accuracy"]
    for topic, t in res.items():
        n = sum(t.values())
        lines.append(f"  {topic:<24} {t['correct']:>8} {t['unclear']:>8} {t['wrong']:>6} {n:>4}  "
                     f"{t['correct'] / n if n else 0:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="refit the thresholds on dev and write " + str(FIT.name))
    ap.add_argument("--cache", type=Path, default=REPO / "eval" / "results" / "cache" / "minilm" /
                    "embedding-cache.db", help="persistent embedding cache (created if absent)")
    ap.add_argument("--embedder", default="minilm", help="minilm (the product's) or hash (plumbing only)")
    ap.add_argument("--show", action="store_true", help="print each description's predictions")
    args = ap.parse_args(argv)

    from anchor_core.embed_cache import CachedEmbedder
    from anchor_core.embeddings import make_embedder
    from ingest import get_adapter

    t0 = time.perf_counter()
    m = amap.load("aiact")
    if m is None:
        print("no topic map for aiact", file=sys.stderr)
        return 2
    parsed = get_adapter("aiact").load(None)
    units = {u.unit_id: u for u in parsed.units}
    cs = A.candidates(m, units)
    embedder = CachedEmbedder(make_embedder(args.embedder), args.cache)
    dev, test = load_rows(QUESTIONS / "assess_dev.jsonl"), load_rows(QUESTIONS / "assess_test.jsonl")
    background = [r.description for r in dev]
    ev = A.Evidence(embedder, background)
    for i, r in enumerate(dev):
        mask = np.ones(len(dev), dtype=bool)
        mask[i] = False  # leave-one-out: a description is never its own background
        r.scores = A.score_all(ev, cs, r.description, mask)
    for r in test:
        r.scores = A.score_all(ev, cs, r.description)

    current = amap.load_fit("aiact")
    th = fit(dev, cs) if args.write or current is None else A.thresholds(current)
    res_dev, res_test = evaluate(m, dev, cs, th), evaluate(m, test, cs, th)
    source = "fitted now on dev" if args.write or current is None else "from " + FIT.name
    print(f"assess bench: {len(dev)} dev descriptions (leave-one-out background), {len(test)} held-out test; "
          f"embedder {embedder.model_id}; thresholds {source}")
    print(json.dumps(th))
    print(table("dev (fitted on; leave-one-out scores)", res_dev))
    res_cv = cross_validate(m, dev, cs)
    print(table("dev, 5-fold cross-validation (thresholds fitted on four fifths, decided on the fifth)", res_cv))
    print(table("test (held out, written before fitting)", res_test))
    never = {k: {kk: 99.0 for kk in v} for k, v in th.items()}
    base_dev = evaluate(m, dev, cs, never, read_role=False)
    print(table("baseline on dev: every topic 'not applicable', role 'not stated'", base_dev))
    base_test = evaluate(m, test, cs, never, read_role=False)
    print(table("baseline on test: every topic 'not applicable', role 'not stated'", base_test))
    if args.show:
        for r in dev + test:
            g = decided(m, cs, r, th)
            tp = ",".join(k + ("?" if v == "unclear" else "") for k, v in g["transparency"].items()
                          if v != "not_applicable")
            print(f"{r.id:16} P {g['prohibited']:7} / {'|'.join(r.prohibited):8} H {g['high_risk']:9} / "
                  f"{'|'.join(r.high_risk):18} R {g['role']:10} / {r.role:10} T {tp:8} / {','.join(r.transparency)}")
    if args.write:
        FIT.write_text(json.dumps({
            "corpus": "aiact", "model": embedder.model_id,
            "about": "Thresholds of anchor assess, fitted by python -m eval.assess_bench --write on "
                     "eval/questions/assess_dev.jsonl (leave-one-out background scores; objective correct - "
                     f"{WRONG_COST:g} x wrong, 'unclear' between lo and hi); background: the dev descriptions "
                     "(unlabelled), the scale every description's similarity is measured on.",
            "thresholds": th, "dev": res_dev, "dev_cv5": res_cv, "test": res_test,
            "test_baseline": base_test, "background": background,
        }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {FIT.relative_to(REPO)}")
    print(f"({time.perf_counter() - t0:.0f}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
