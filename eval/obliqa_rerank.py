"""Experiment: rerank retrieval's ObliQA candidates with the shipped ``answers`` cross-encoder.

    python -m eval.obliqa_rerank            # the 272 ObliQA dev questions the cross-encoder never trained on
    python -m eval.obliqa_rerank --depth 50

The cross-encoder (``anchor_core/crossencoder.py``) was trained on 90 % of the ObliQA dev questions;
``eval.train_crossencoder.split`` (seed 13) holds the other 10 % out, and only those are scored here,
so the figures are out of sample for the model (in domain: same ADGM passages). Per question:
plain BM25 (bm25s), ``anchor retrieve`` as shipped (k=10, one hop), the fused list taken ``--depth``
deep with hops off and cut to its first 10 distinct units, and that list reordered by
``min-max(fused) + w * cross-encoder`` for a few weights. Recall@10 of the gold passages, as in
``eval.retrieval_bench``. Not shipped: see ``eval/README.md``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from anchor_core import crossencoder
from anchor_core.ask.answerable import passage_text
from anchor_core.embed_cache import CachedEmbedder as PersistentCache
from anchor_core.embeddings import make_embedder
from anchor_core.named import use_adapters
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from eval import retrieval_bench as rb
from eval import train_crossencoder as tc
from eval.data import BENCH
from ingest import get_adapter

HERE = Path(__file__).resolve().parent
WEIGHTS = (0.25, 0.5, 1.0, 2.0, 100.0)


def top_units(units: list[str], scores, k: int = 10) -> list[str]:
    """The first ``k`` distinct units of ``units`` ordered by ``scores``, highest first.

    >>> top_units(["a", "b", "a", "c"], [0.1, 0.9, 0.8, 0.2], k=2)
    ['b', 'a']
    """
    out: list[str] = []
    for i in np.argsort(-np.asarray(scores, dtype=float), kind="stable"):
        if units[i] not in out:
            out.append(units[i])
        if len(out) == k:
            break
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--depth", type=int, default=30, help="fused candidates reranked (hops off)")
    ap.add_argument("--workspace", default=str(HERE / "results" / "cache"))
    args = ap.parse_args(argv)
    if not (BENCH / "obliqa" / "ObliQA_dev.json").exists():
        print(f"skipped: {BENCH / 'obliqa'} is absent (the benchmark data lives beside the checkout)")
        return 0
    if not crossencoder.available("answers"):
        print("skipped: the answers cross-encoder is not installed")
        return 0
    use_adapters(get_adapter)
    _, val_pairs = tc.split(tc.build_answers(13), 13)
    val = {p["group"] for p in val_pairs}
    ws = Path(args.workspace)
    ws.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(ws / "bench.db")
    emb = PersistentCache(make_embedder("minilm"), ws / "embedding-cache.db")
    bs = rb.obliqa_set(rb.ensure(store, emb, "adgm", False), None, 13)
    qs = [q for q in bs.questions if q.qid in val]
    base = rb.Bm25sBaseline(store, "adgm")
    ce = crossencoder.shared("answers")
    cols: dict[str, list[float]] = {"bm25s": [], "retrieve (k=10, 1 hop)": [], f"fused {args.depth} deep, hops off": []}
    for w in WEIGHTS:
        cols[f"fused + {w:g} x cross-encoder"] = []
    t = time.perf_counter()
    for q in qs:
        shipped = retrieve(q.question, store=store, embedder=emb, corpus="adgm", settings=RetrievalSettings(k=10))
        hits = retrieve(q.question, store=store, embedder=emb, corpus="adgm",
                        settings=RetrievalSettings(k=args.depth, hops=0)).hits
        units = [h.unit_id for h in hits]
        fused = np.asarray([h.score for h in hits], dtype=float)
        cols["bm25s"].append(rb.score(bs, q, base.units_for(q.question, 10)))
        cols["retrieve (k=10, 1 hop)"].append(rb.score(bs, q, [h.unit_id for h in shipped.hits]))
        cols[f"fused {args.depth} deep, hops off"].append(rb.score(bs, q, top_units(units, fused)))
        sc = np.asarray(ce.score([q.question] * len(hits), [passage_text(h) for h in hits]) if hits else [])
        norm = (fused - fused.min()) / (np.ptp(fused) or 1.0) if len(fused) else fused
        for w in WEIGHTS:
            cols[f"fused + {w:g} x cross-encoder"].append(rb.score(bs, q, top_units(units, norm + w * sc)))
    print(f"{len(qs)} held-out ObliQA dev questions in {time.perf_counter() - t:.0f}s; Recall@10 of the gold passages")
    for name, vals in cols.items():
        print(f"  {name:34s} {np.mean(vals):.3f}")
    print(json.dumps({k: round(float(np.mean(v)), 3) for k, v in cols.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
