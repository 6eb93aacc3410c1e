"""Experiment (not shipped): does the ``answers`` cross-encoder gain if it is fine-tuned on the dev
questions of the other four corpora?

    python -m eval.answerability --collect --tag=-s25 --workspace /tmp/ans   # the retrieval caches
    python -m eval.answers_ce_loco --tag=-s25 --workspace /tmp/ans --epochs 2 --lr 2e-5

For each held-out corpus, the shipped ``answers`` cross-encoder (trained on ObliQA and rule-made
ADGM pairs only) is fine-tuned further on pairs from the other four corpora's dev questions
(``eval/questions``): (question, a retrieved passage of a gold unit) = 1, (question, any other
retrieved passage, and every retrieved passage of an unanswerable question) = 0, positives repeated
to balance. The held-out corpus's questions are then scored (the best passage per question), and
the answerability model is refitted leave-one-corpus-out with that score in place of, or beside,
the shipped cross-encoder's. Nothing is written to the package; results go to stdout and
``eval/results/answers-ce-loco.md``.
"""

from __future__ import annotations

import argparse
import pickle
import random
import time
from pathlib import Path

from eval import answerability as A

HERE = Path(__file__).resolve().parent


def _pairs(rows: list[dict], gold: dict[tuple[str, str], set[str]]) -> list[dict]:
    from anchor_core.ask.answerable import passage_text

    out = []
    for r in rows:
        g = gold.get((r["set"], r["id"]), set())
        for h in r["hits"]:
            out.append({"q": r["question"], "p": passage_text(h), "y": int(r["answerable"] and h.unit_id in g)})
    return out


def _loco_rates(rows: list[dict], x) -> str:  # type: ignore[no-untyped-def]
    for r in rows:
        r["x"] = x(r)
    u = n = f = t = 0
    parts = []
    for s in A.SETS:
        _, test, ref = A.loco_fold(rows, s, 0.1)
        ru = sum(1 for r, y in zip(test, ref) if not r["answerable"] and y)
        nu = sum(1 for r in test if not r["answerable"])
        fa = sum(1 for r, y in zip(test, ref) if r["answerable"] and y)
        na = sum(1 for r in test if r["answerable"])
        u, n, f, t = u + ru, n + nu, f + fa, t + na
        parts.append(f"{s} {ru}/{nu} · {fa}/{na}")
    return "; ".join(parts) + f" | **{u}/{n} ({u / n:.3f}) · {f}/{t} ({f / t:.3f})**"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workspace", default=str(HERE / "results" / "cache"))
    ap.add_argument("--tag", default="")
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--out", default=str(HERE / "results" / "answers-ce-loco.md"))
    args = ap.parse_args(argv)
    import torch
    from sklearn.metrics import roc_auc_score

    from anchor_core import crossencoder as CE
    from anchor_core.ask.answerable import passage_text

    ws = Path(args.workspace)
    rows: list[dict] = []
    for s in A.SETS:
        f = ws / f"answerability-{s}{args.tag}.pkl"
        if not f.exists():
            print(f"note: no cache {f}; run python -m eval.answerability --collect --tag={args.tag} first")
            return 0
        rows += pickle.loads(f.read_bytes())
    gold = {(s, q["id"]): set(q.get("gold") or []) for s in A.SETS for q in A.load(s)}
    torch.manual_seed(13)
    scores: dict[tuple[str, str], float] = {}
    log = []
    for held in A.SETS:
        ce = CE.CrossEncoder("answers")
        _, tok, model = ce._load()
        params = model.trainable()
        for name, p in model.named_parameters():
            p.requires_grad = name in params
        tr = _pairs([r for r in rows if r["set"] != held], gold)
        pos, neg = [p for p in tr if p["y"]], [p for p in tr if not p["y"]]
        tr = neg + pos * max(1, len(neg) // max(len(pos), 1) // 2)
        random.Random(7).shuffle(tr)
        steps = int(len(tr) * args.epochs / 16)
        opt = torch.optim.AdamW(list(params.values()), lr=args.lr, weight_decay=0.01)
        loss_f = torch.nn.BCEWithLogitsLoss()
        model.train()
        t0 = time.perf_counter()
        for step in range(steps):
            b = [tr[(step * 16 + i) % len(tr)] for i in range(16)]
            enc = tok([x["q"] for x in b], [x["p"] for x in b], truncation="only_second", max_length=ce.max_length,
                      padding=True, return_tensors="pt")
            loss = loss_f(model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]),
                          torch.tensor([float(x["y"]) for x in b]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        for r in rows:
            if r["set"] == held:
                hits = r["hits"]
                scores[(r["set"], r["id"])] = max(ce.score([r["question"]] * len(hits),
                                                           [passage_text(h) for h in hits])) if hits else 0.0
        log.append(f"{held}: {len(tr)} pairs, {steps} steps, {time.perf_counter() - t0:.0f} s")
        print(log[-1], flush=True)
    A.answer_scores(rows, ws / "answers-ce-cache.db")
    A.featurise(rows)
    y = [r["answerable"] for r in rows]
    auc_shipped = roc_auc_score(y, [r["x_full"][3] for r in rows])
    auc_loco = roc_auc_score(y, [scores[(r["set"], r["id"])] for r in rows])
    lines = ["# The answers cross-encoder fine-tuned leave-one-corpus-out on the dev questions (experiment)", "",
             f"`python -m eval.answers_ce_loco --tag={args.tag} --epochs {args.epochs} --lr {args.lr}`", "",
             *[f"- {x}" for x in log], "",
             f"ROC AUC over the 303 questions (answerable vs not): shipped cross-encoder {auc_shipped:.3f}, "
             f"fine-tuned on the other four corpora {auc_loco:.3f}.", "",
             "| features | per corpus: unanswerable refused · answerable falsely refused | total |", "|---|---|---|"]
    for name, fn in (("shipped (dense, focus, tied, answers)", lambda r: list(r["x_full"])),
                     ("answers fine-tuned LOCO in place of answers",
                      lambda r: list(r["x_full"][:3]) + [scores[(r["set"], r["id"])]]),
                     ("both", lambda r: list(r["x_full"]) + [scores[(r["set"], r["id"])]])):
        per, total = _loco_rates(rows, fn).rsplit(" | ", 1)
        lines.append(f"| {name} | {per} | {total} |")
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
