"""The ``answers`` cross-encoder and the answerability model, refitted on the spent held-out rounds.

    python -m eval.answers_fresh --workspace <ws> --collect    # retrieval for every spent question (cached)
    python -m eval.answers_fresh --workspace <ws> --train      # pairs + training (cached lower layers), 27-46 min
    python -m eval.answers_fresh --workspace <ws> --report     # LOCO answerability on dev + validation rounds
    python -m eval.answers_fresh --workspace <ws> --report --shipped   # the same with the shipped weights

Nothing here writes to the package: neither fine-tuned model was shipped (``eval/README.md``, session 43).

Why: the shipped gate was fitted on 303 dev questions whose look-answerable half was easy, and its
cross-encoder on ADGM only (ObliQA and rule-made echoes). Twenty rounds of held-out questions
(``eval/questions/fresh``, written by helpers from the corpus texts, each run once and then spent)
are labelled data of exactly the kind the gate fails on: practitioners' questions over all five
corpora, half of them asking for something the sources do not state on a topic they cover.

The rounds are split by time, never by question:

* **training rounds** (1-17, the sets before ``VALIDATION``): pairs for the cross-encoder. For an
  answerable question, each retrieved passage (k=5, one hop, hybrid, as ``anchor ask`` retrieves) that
  holds the labelled ``fact`` is 1 and each passage outside the gold units that lacks it is 0; a
  gold-unit passage without the fact is left out (it may answer in other words). For a look-answerable
  unanswerable question every retrieved passage is 0: on topic, not the answer. Added to the ADGM
  pairs of ``python -m eval.train_crossencoder answers --data`` (ObliQA and echoes).
* **validation rounds** (18-20, ``VALIDATION``, written with the brief that phrases both halves alike):
  never trained on; with the five dev sets of ``eval/questions`` they are the rows of the
  answerability model, fitted and reported leave-one-corpus-out (fit on four corpora, report on
  the fifth, threshold by inner leave-one-corpus-out), as ``eval.answerability`` does.
* the unrun rounds (21 and later) are not read here at all: they are the held-out figure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
import time
from pathlib import Path

import numpy as np

from eval import answerability as A
from eval.data import BENCH
from eval.fresh import corpus_of
from eval.train_crossencoder import pair_counts

HERE = Path(__file__).resolve().parent
FRESH = HERE / "questions" / "fresh"
VALIDATION = ("aiact19", "aiact20", "aiact21", "gdpr19", "gdpr20", "gdpr21", "rfc18", "rfc19", "rfc20",
              "peps18", "peps19", "peps20", "adgm18", "adgm19", "adgm20")
HELD_OUT = ("aiact22", "gdpr22", "rfc21", "peps21", "adgm21")
"""Round 21, committed unrun for session 43 and never read here (it was run once by ``eval.fresh`` on that session's
start code, and is spent since). This round and every later one are left out of :func:`spent_sets`; a later session
moves the split forward (this round to ``VALIDATION``, the next unrun one here) before it trains again."""
CORPORA_NAMES = ("aiact", "gdpr", "peps", "rfc", "adgm")
ANSWERS_WEIGHTS = A.REPO / "anchor_core" / "data" / "answers.safetensors"


def set_number(name: str) -> int:
    """The number of a set file of its corpus: ``aiact19`` is 19, ``aiact`` (the first) 1."""
    return int(name[len(corpus_of(name)):] or 1)


def spent_sets() -> list[str]:
    """Every fresh set that was run once and is spent, oldest first (the unrun rounds excluded: a set
    is unrun when it is not older than the held-out round of its corpus)."""
    newest = {corpus_of(s): set_number(s) for s in HELD_OUT}
    out = [p.stem for p in FRESH.glob("*.jsonl") if set_number(p.stem) < newest.get(corpus_of(p.stem), 0)]
    return sorted(out, key=lambda s: (corpus_of(s), set_number(s)))


def training_sets() -> list[str]:
    return [s for s in spent_sets() if s not in VALIDATION]


def load_set(name: str) -> list[dict]:
    path = FRESH / f"{name}.jsonl"
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def rows_of(ws: Path, name: str) -> list[dict]:
    rows = pickle.loads((ws / f"fresh-rows-{name}.pkl").read_bytes())
    for r in rows:
        r["corpus"] = corpus_of(name.removeprefix("dev-"))
    return rows


def collect(ws: Path, store_ws: Path, names: list[str]) -> None:
    """Retrieval for every question of ``names`` as ``anchor ask`` runs it, cached per set in ``ws``: a fresh set
    by its name, a dev set of ``eval/questions`` as ``dev-<corpus>``."""
    todo = [n for n in names if not (ws / f"fresh-rows-{n}.pkl").exists()]
    if not todo:
        return
    from anchor_core.named import use_adapters
    from anchor_core.stores.sqlite import SQLiteStore
    from ingest import get_adapter

    use_adapters(get_adapter)
    store = SQLiteStore(store_ws / "anchor.db")
    emb = A.workspace_embedder(store_ws)
    for name in todo:
        t = time.perf_counter()
        dev = name.removeprefix("dev-")
        qs = A.load(dev) if dev != name else load_set(name)
        got = A.collect(store, emb, A.ensure(store, emb, corpus_of(dev)), qs, name, False)
        for r, q in zip(got, qs):
            r["fact"], r["gold"] = q.get("fact", ""), q.get("gold", [])
        (ws / f"fresh-rows-{name}.pkl").write_bytes(pickle.dumps(got))
        print(f"{name}: {len(qs)} questions in {time.perf_counter() - t:.0f}s", flush=True)


def _flat(s: str) -> str:
    return " ".join(s.split())


def without_fact(text: str, fact: str) -> str | None:
    """``text`` with the sentence(s) that hold ``fact`` taken out; ``None`` when the fact spans sentences or too
    little is left.

    >>> without_fact("The firm must keep logs of every change. It must notify the Regulator within 14 days of "
    ...              "the change. The application fee is payable on filing.", "within 14 days")
    'The firm must keep logs of every change. The application fee is payable on filing.'
    >>> without_fact("It must notify the Regulator within 14 days.", "within 14 days") is None  # too little left
    True
    """
    from anchor_core.segment import sentences

    sents = sentences(text) or []
    drop = [s for s in sents if fact in _flat(s.text)]
    if not drop:
        return None
    kept = " ".join(s.text.strip() for s in sents if s not in drop)
    return kept if len(kept) >= 60 else None


def fresh_pairs(ws: Path, names: list[str], *, unanswerable: bool = True, removed: bool = False) -> list[dict]:
    """(question, passage, label) pairs from the training rounds (see the module's docstring).

    ``unanswerable=False`` leaves the look-answerable unanswerable questions out: every question then has
    passages of both labels, so its wording alone predicts nothing. ``removed=True`` adds, for each passage that
    holds the fact, the same passage with the fact's sentence taken out, labelled 0: the topic is there, the
    answer is not."""
    from anchor_core.ask.answerable import passage_text

    pairs: list[dict] = []
    for name in names:
        for r in rows_of(ws, name):
            if not r["answerable"] and not unanswerable:
                continue
            fact, gold = _flat(r.get("fact", "")), set(r.get("gold", []))
            for h in r["hits"]:
                holds = bool(fact) and fact in _flat(h.text)
                if removed and r["answerable"] and holds:
                    rest = without_fact(h.text, fact)
                    if rest is not None:
                        pairs.append({"q": r["question"], "p": passage_text(h.model_copy(update={"text": rest})),
                                      "y": 0, "group": f"fresh:{r['id']}", "src": "fresh-removed",
                                      "corpus": corpus_of(name)})
                if not r["answerable"]:
                    y = 0
                elif holds:
                    y = 1
                elif h.unit_id in gold or not fact:
                    continue
                else:
                    y = 0
                pairs.append({"q": r["question"], "p": passage_text(h), "y": y, "group": f"fresh:{r['id']}",
                              "src": f"fresh-{'pos' if y else ('unanswerable' if not r['answerable'] else 'other')}",
                              "corpus": corpus_of(name)})
    return pairs


def build_pairs(ws: Path, seed: int = 13, adgm_sample: int = 2000, variant: str = "all") -> list[dict]:
    """The training rounds' pairs and ``adgm_sample`` of the shipped model's own ADGM pairs (ObliQA and
    echoes, drawn at random), so that fine-tuning does not forget them. ``variant``: ``all`` (every spent
    training question) or ``answerable`` (answerable questions only, with fact-removed negatives)."""
    from eval.train_crossencoder import build_answers

    adgm = build_answers(seed)
    random.Random(seed).shuffle(adgm)
    for p in adgm:
        p.setdefault("corpus", "adgm")
    if variant == "answerable":
        return adgm[:adgm_sample] + fresh_pairs(ws, training_sets(), unanswerable=False, removed=True)
    return adgm[:adgm_sample] + fresh_pairs(ws, training_sets())


def shipped_state() -> dict:
    """The shipped ``answers`` weights (fp32), the starting point of the fine-tuning."""
    from safetensors.torch import load_file

    return {k: v.float() for k, v in load_file(str(ANSWERS_WEIGHTS)).items()}


def train(ws: Path, *, epochs: float, lr: float, seed: int, max_length: int = 192, variant: str = "all") -> Path:
    """Fine-tune the shipped ``answers`` cross-encoder (its top two layers and head) on the pairs of
    :func:`build_pairs`; the lower four layers stay the base model's, so their outputs are computed once."""
    from eval.train_contradicts import Trainer

    pairs = build_pairs(ws, seed, variant=variant)
    tag = "" if variant == "all" else f"-{variant}"
    data = ws / f"answers-fresh{tag}-pairs.jsonl"
    data.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    counts = pair_counts(pairs)
    print(f"{len(pairs)} pairs: {counts}", flush=True)
    trainer = Trainer([(p["q"], p["p"]) for p in pairs], max_length=max_length)
    start = shipped_state()
    trainer.model.load_state_dict(start, strict=False)
    trainer.init = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    idx = list(range(len(pairs)))
    secs = trainer.fit(idx, [p["y"] for p in pairs], epochs=epochs, lr=lr, seed=seed, label="answers")
    out = ws / f"answers-fresh{tag}.safetensors"
    trainer.save(out)
    meta = {"pairs": counts, "pairs_sha256": hashlib.sha256(data.read_bytes()).hexdigest(), "epochs": epochs,
            "lr": lr, "seed": seed, "max_length": max_length, "seconds": round(secs),
            "training_sets": training_sets(), "variant": variant}
    (ws / f"answers-fresh{tag}.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(f"trained in {secs:.0f} s; wrote {out}", flush=True)
    return out


def scored_rows(ws: Path, store_ws: Path, weights: Path | None) -> list[dict]:
    """Dev and validation rows with their features, the ``answers`` score read by ``weights`` (the shipped
    model when ``None``). Each row's ``set`` is its corpus: folds are corpora, not files."""
    from anchor_core import crossencoder

    collect(ws, store_ws, [f"dev-{name}" for name in CORPORA_NAMES])
    rows = [dict(r, split="dev") for name in CORPORA_NAMES for r in rows_of(ws, f"dev-{name}")]
    rows += [dict(r, split="validation") for name in VALIDATION for r in rows_of(ws, name)]
    for r in rows:
        r["file"], r["set"] = r["set"], r["corpus"]
    tag = hashlib.sha256((weights or ANSWERS_WEIGHTS).read_bytes()).hexdigest()[:12]
    cache = ws / f"answers-scores-{tag}.pkl"
    have: dict[tuple[str, str], float] = pickle.loads(cache.read_bytes()) if cache.exists() else {}
    from anchor_core.ask.answerable import passage_text

    todo = sorted({(r["question"], passage_text(h)) for r in rows for h in r["hits"]} - set(have))
    if todo:
        t = time.perf_counter()
        ce = crossencoder.CrossEncoder("answers", weights=weights)
        for i in range(0, len(todo), 512):
            part = todo[i:i + 512]
            have.update(zip(part, ce.score([q for q, _ in part], [p for _, p in part])))
        cache.write_bytes(pickle.dumps(have))
        print(f"answers ({tag}): {len(todo)} pairs in {time.perf_counter() - t:.0f} s", flush=True)
    for r in rows:
        r["answers"] = [have[(r["question"], passage_text(h))] for h in r["hits"]]
    A.featurise(rows, A.workspace_embedder(store_ws))
    return rows


def auc_of(rows: list[dict], scores: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    y = [int(r["answerable"]) for r in rows]
    return float(roc_auc_score(y, scores)) if len(set(y)) == 2 else float("nan")


def loco(fit_rows: list[dict], rows: list[dict], max_false: float) -> tuple[list[dict], list[bool], np.ndarray]:
    """Every corpus of ``rows`` scored once by the model fitted on the other four corpora's ``fit_rows``
    (threshold by inner LOCO among them)."""
    out_rows: list[dict] = []
    out_ref: list[bool] = []
    out_sc: list[float] = []
    for c in CORPORA_NAMES:
        train_rows = [r for r in fit_rows if r["set"] != c]
        test = [r for r in rows if r["set"] == c]
        t = A.choose_threshold(train_rows, max_false)
        sc = A.prob(A.fit(train_rows), test)
        out_rows += test
        out_ref += A.refused(test, sc, t)
        out_sc += list(sc - t)
    return out_rows, out_ref, np.array(out_sc)


def shipped(rows: list[dict], fallback: bool = False) -> tuple[list[bool], np.ndarray]:
    """The shipped answerability model (``answerable.json``, or its ``fallback``) on ``rows`` as they are."""
    m = A.ans_mod.model()
    if fallback:
        m = m["fallback"]
    key = "x_fallback" if fallback else "x_full"
    assert list(m["weights"]) == list(A.FALLBACK if fallback else A.FEATURES)
    sc = np.array([1 / (1 + np.exp(-(m["bias"] + sum(w * x for w, x in zip(m["weights"].values(), r[key])))))
                   for r in rows])
    return A.refused(rows, sc, m["threshold"]), sc - m["threshold"]


def table(title: str, rows: list[dict], ref: list[bool], sc: np.ndarray) -> list[str]:
    lines = [f"\n### {title}\n", "| held-out corpus | rows | unanswerable refused | answerable falsely refused | "
             "ROC AUC (validation rounds) |", "|---|---|---|---|---|"]
    for c in [*CORPORA_NAMES, "all"]:
        for split in ("dev", "validation"):
            sel = [i for i, r in enumerate(rows) if r["split"] == split and c in ("all", r["set"])]
            if not sel:
                continue
            rr = [rows[i] for i in sel]
            rt = A.rates(rr, [ref[i] for i in sel])
            auc = f"{auc_of(rr, sc[sel]):.2f}" if split == "validation" else ""
            lines.append(f"| {c} | {split} | {rt['refused_unanswerable']} ({rt['correct_refusals']}) | "
                         f"{rt['refused_answerable']} ({rt['false_refusals']}) | {auc} |")
    return lines


def per_kind(rows: list[dict], ref: list[bool]) -> list[str]:
    lines = ["| labelled kind | unanswerable refused | answerable falsely refused |", "|---|---|---|"]
    kinds = sorted({r["label_kind"] for r in rows if r["split"] == "validation"})
    for k in kinds:
        sel = [(r, x) for r, x in zip(rows, ref) if r["split"] == "validation" and r["label_kind"] == k]
        rt = A.rates([r for r, _ in sel], [x for _, x in sel])
        lines.append(f"| {k or '?'} | {rt['refused_unanswerable']} | {rt['refused_answerable']} |")
    return lines


def beyond(rows: list[dict], columns: list[np.ndarray]) -> float:
    """ROC AUC of a logistic model over ``columns``, each corpus scored by the model fitted on the others."""
    from sklearn.linear_model import LogisticRegression

    x = np.column_stack(columns)
    y = np.array([int(r["answerable"]) for r in rows])
    corpus = np.array([r["set"] for r in rows])
    out = np.zeros(len(rows))
    for c in CORPORA_NAMES:
        test = corpus == c
        if test.any():
            out[test] = LogisticRegression(max_iter=1000).fit(x[~test], y[~test]).predict_proba(x[test])[:, 1]
    return auc_of(rows, out)


def question_only(rows: list[dict]) -> np.ndarray:
    """The wording control (``eval.question_only``'s model): P(answerable) of each validation row from a TF-IDF
    logistic model over the training rounds' questions alone. A reader trained on those rounds must beat it on
    the validation rows, or it learned the brief's wording rather than reading the passages."""
    from eval.question_only import question_model

    train_q = [q for name in training_sets() for q in load_set(name)]
    predict = question_model([q["question"] for q in train_q],
                             np.array([int(q["type"] != "unanswerable") for q in train_q]))
    return predict([r["question"] for r in rows])


def report(ws: Path, store_ws: Path, weights: Path | None, max_false: float) -> tuple[list[str], list[dict]]:
    rows = scored_rows(ws, store_ws, weights)
    val = [r for r in rows if r["split"] == "validation"]
    best = np.array([r["x_full"][A.FEATURES.index("answers")] for r in val])
    control = question_only(val)
    lines = ["", f"Validation rounds ({len(val)} questions): ROC AUC of the best passage's `answers` score "
             f"{auc_of(val, best):.3f}; the wording control (question only, trained on the training rounds) "
             f"{auc_of(val, control):.3f}."]
    per = []
    for c in CORPORA_NAMES:
        sel = [i for i, r in enumerate(val) if r["set"] == c]
        part = [val[i] for i in sel]
        per.append(f"{c} {auc_of(part, best[sel]):.2f} / {auc_of(part, control[sel]):.2f}")
    lines.append("Per corpus (answers / control): " + "; ".join(per) + ".")
    others = [np.array([r["x_fallback"][k] for r in val]) for k in range(len(A.FALLBACK))]
    lines.append("Beyond the wording: leave-one-corpus-out over the validation rows, a logistic model on the control "
                 f"alone {beyond(val, [control]):.3f}, on the control and the `answers` score "
                 f"{beyond(val, [control, best]):.3f}; on the gate's other features {beyond(val, others):.3f}, "
                 f"with the `answers` score too {beyond(val, [*others, best]):.3f}; on the control and the gate's "
                 f"other features {beyond(val, [control, *others]):.3f}, with the `answers` score too "
                 f"{beyond(val, [control, *others, best]):.3f} (ROC AUC). A reader adds what it reads when the last "
                 "figure beats the one before it.")
    if weights is None:
        ref, sc = shipped(rows)
        lines += table("The shipped answerability model as it is (fitted on the dev sets only)", rows, ref, sc)
        fb = shipped(rows, fallback=True)[0]
        lines += ["", f"Its fallback (the same features without the cross-encoder, as `ANCHOR_ANSWER_MODEL=off` runs) "
                      f"decides as it does on {sum(a == b for a, b in zip(ref, fb))} of {len(rows)} questions."]
    for name, fit_rows in (("dev sets only", [r for r in rows if r["split"] == "dev"]),
                           ("dev sets and validation rounds", rows)):
        out_rows, ref, sc = loco(fit_rows, rows, max_false)
        lines += table(f"Refitted on the {name}, leave-one-corpus-out", out_rows, ref, sc)
        lines += ["", *per_kind(out_rows, ref)]
    return lines, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workspace", required=True, help="the eval workspace (its anchor.db holds the five corpora)")
    ap.add_argument("--collect", action="store_true")
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--variant", choices=["all", "answerable"], default="all",
                    help="training pairs: every spent training question, or the answerable ones only")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--shipped", action="store_true", help="with --report: the shipped answers weights")
    ap.add_argument("--max-false", type=float, default=0.1)
    args = ap.parse_args(argv)
    if not (BENCH / "obliqa").exists():
        print(f"skipped: no training data under {BENCH} (set ANCHOR_BENCH_DATA)")
        return 0
    ws = Path(args.workspace)
    cache = ws / "answers-fresh"
    cache.mkdir(parents=True, exist_ok=True)
    if args.collect:
        collect(cache, ws, spent_sets())
    if args.train:
        train(cache, epochs=args.epochs, lr=args.lr, seed=args.seed, variant=args.variant)
    if args.report:
        tag = "" if args.variant == "all" else f"-{args.variant}"
        weights = None if args.shipped else cache / f"answers-fresh{tag}.safetensors"
        lines, _ = report(cache, ws, weights, args.max_false)
        which = "shipped" if weights is None else args.variant
        shown = " ".join(a for a in (argv if argv is not None else __import__("sys").argv[1:])
                         if not a.startswith("/") and a != "--workspace")
        md = "\n".join([f"# The answers cross-encoder ({which}) on the validation rounds", "",
                         f"`python -m eval.answers_fresh --workspace <ws> {shown}`"
                         + ("" if weights is None else
                            f", the weights fine-tuned by `python -m eval.answers_fresh --workspace <ws> --train "
                            f"--variant {args.variant}` ("
                            + ", ".join(f"{k} {v}" for k, v in json.loads(weights.with_suffix(".json").read_text(
                                encoding="utf-8"))["pairs"].items()) + " pairs)"), *lines]) + "\n"
        print(md)
        (HERE / "results" / f"answers-fresh-{which}.md").write_text(md, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
