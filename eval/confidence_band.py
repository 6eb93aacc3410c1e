"""The gate's "barely passed" band: below which answerability score an answer is more often wrong than right.

    python -m eval.confidence_band --workspace /tmp/ans            # choose on rounds 1-4, report rounds 5-6
    python -m eval.confidence_band --workspace /tmp/ans --write    # also store it in ask/data/answerable.json

The gate answers when the answerability model's score reaches its threshold, which is fitted on the dev sets
to refuse at most 10% of their answerable questions. On questions nobody tuned for, the answers that only just
pass are mostly answers to unanswerable questions (a value of another duty beside the question's words), so a
run whose gate score sits in that band is headlined "not confirmed", not "verified" (its claims and quotes are
unchanged): :mod:`anchor_core.assessment`.

The band is chosen on the fresh rounds 1-4 (``CHOOSE``: sets whose first runs are recorded, used since for
kind-grammar mends but never for this band): the highest score on the grid below which the answered questions
are more often unanswerable than answerable. It is then reported on rounds 5 and 6 (``REPORT``), which did not
choose it. The model with the cross-encoder and its ``fallback`` (no cross-encoder) get a band each. A refit
of the gate (``python -m eval.answerability --write``) rewrites the file without them: run this again after it.
"""

from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path

import numpy as np

from eval.data import CORPORA

HERE = Path(__file__).resolve().parent
CHOOSE = ("aiact", "aiact2", "gdpr", "gdpr2", "rfc", "peps", "adgm",  # round 1
          "aiact3", "gdpr3", "rfc2", "peps2", "adgm2", "aiact4", "gdpr4", "rfc3", "peps3", "adgm3",
          "aiact5", "gdpr5", "rfc4", "peps4", "adgm4")
REPORT = ("aiact6", "gdpr6", "rfc5", "peps5", "adgm5", "aiact7", "gdpr7", "rfc6", "peps6", "adgm6")
GRID = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def rows_of(workspace: Path, sets: tuple[str, ...]) -> list[dict]:
    """Retrieval and features for every question of ``sets``, as ``anchor ask`` retrieves (cached per set)."""
    from anchor_core.named import use_adapters
    from anchor_core.stores.sqlite import SQLiteStore
    from eval import answerability as A
    from eval.fresh import FRESH, corpus_of
    from ingest import get_adapter

    use_adapters(get_adapter)
    store = emb = None
    rows: list[dict] = []
    for name in sets:
        cache = workspace / f"band-{name}.pkl"
        if cache.exists():
            rows += pickle.loads(cache.read_bytes())
            continue
        if store is None:
            store = SQLiteStore(workspace / "anchor.db")
            emb = A.workspace_embedder(workspace)
        qs = [json.loads(x) for x in (FRESH / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
        got = A.collect(store, emb, A.ensure(store, emb, corpus_of(name)), qs, name, False)
        cache.write_bytes(pickle.dumps(got))
        rows += got
    A.answer_scores(rows, workspace / "answers-ce-cache.db")
    A.featurise(rows, emb if emb is not None else A.workspace_embedder(workspace))
    return rows


def scores(rows: list[dict], which: str = "full") -> np.ndarray:
    """The answerability score of every row under the shipped model (``full``) or its ``fallback``."""
    from anchor_core.ask import answerable as ans_mod

    m = ans_mod.model()
    m = m if which == "full" else m["fallback"]
    x = np.array([r["x_full" if which == "full" else "x_fallback"] for r in rows])
    z = m["bias"] + x @ np.array([m["weights"][f] for f in m["features"]])
    return 1 / (1 + np.exp(-z))


def band_table(rows: list[dict], s: np.ndarray, threshold: float) -> list[tuple[float, int, int]]:
    """(cut, answered below it, of which unanswerable) for every cut of the grid."""
    answered = (s >= threshold) & ~np.array([r["ruled"] for r in rows])
    wrong = ~np.array([r["answerable"] for r in rows])
    return [(c, int((answered & (s < c)).sum()), int((answered & (s < c) & wrong).sum())) for c in GRID]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workspace", type=Path, required=True, help="the answerability workspace (store, caches)")
    ap.add_argument("--write", action="store_true", help="store the band in anchor_core/ask/data/answerable.json")
    args = ap.parse_args(argv)
    if not CORPORA.exists():
        print(f"skipped: no corpora under {CORPORA}")
        return 0
    from anchor_core.ask import answerable as ans_mod

    spec = ans_mod.model()
    choose = rows_of(args.workspace, CHOOSE)
    report = rows_of(args.workspace, REPORT)
    chosen: dict[str, float] = {}
    for which in ("full", "fallback"):
        t = (spec if which == "full" else spec["fallback"])["threshold"]
        table = band_table(choose, scores(choose, which), t)
        cut = max((c for c, n, w in table if n and w / n > 0.5), default=None)
        print(f"{which} model (threshold {t}); rounds 1-4 ({len(choose)} questions): answered below each cut, and "
              "how many of those were unanswerable")
        for c, n, w in table:
            print(f"  below {c:.2f}: {n:3d} answered, {w:3d} unanswerable ({w / max(n, 1):.2f})"
                  + ("   <- chosen" if c == cut else ""))
        if cut is None:
            print("  no cut has more wrong than right answers below it: no band")
            continue
        chosen[which] = cut
        s = scores(report, which)
        answered = (s >= t) & ~np.array([r["ruled"] for r in report])
        wrong = ~np.array([r["answerable"] for r in report])
        low, high = answered & (s < cut), answered & (s >= cut)
        print(f"  rounds 5-6 ({len(report)} questions, not used to choose): below {cut:.2f} {int(low.sum())} answered, "
              f"{int((low & wrong).sum())} unanswerable ({(low & wrong).sum() / max(low.sum(), 1):.2f}); at or above: "
              f"{int(high.sum())} answered, {int((high & wrong).sum())} unanswerable "
              f"({(high & wrong).sum() / max(high.sum(), 1):.2f})")
    if args.write:
        path = Path(ans_mod.__file__).parent / "data" / "answerable.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        note = ("python -m eval.confidence_band: answers scoring below it were unanswerable more often than not on "
                "fresh rounds 1-4; such runs are headlined 'not confirmed'")
        for which, cut in chosen.items():
            target = data if which == "full" else data["fallback"]
            target["confident"], target["confident_note"] = cut, note
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {chosen} to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
