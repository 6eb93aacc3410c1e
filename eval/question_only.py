"""How much of answerable-vs-unanswerable the question's wording alone gives away, on the fresh sets.

    python -m eval.question_only --sets <spent sets>                      # every question
    python -m eval.question_only --sets <spent sets> --rows outcomes.jsonl   # + among the answered ones

The fresh sets are written to one brief: twelve answerable questions, about five of them yes/no, list,
definition or procedure questions, and twelve look-answerable unanswerable ones, nearly all asking for a
value ("within how many days", "what percentage"). Their wording therefore predicts their label, across
corpora, without reading any source. A model that is trained on their labels and sees the question
text (a cross-encoder over question and sentence does) can learn that wording instead of reading the
sentence, and its leave-one-corpus-out figure then measures the brief, not the model.

This is the control such a model has to beat: a bag-of-words logistic regression over the question
only (TF-IDF of words and word pairs, scikit-learn), fitted leave-one-corpus-out; its AUC for
"answerable" over all questions, and with ``--rows`` (the per-question outcomes ``eval.fresh --out``
wrote) over the questions the pipeline answered, where a second-stage refusal would act, overall and
within each answer kind the question's wording asks for (``anchor_core.ask.question.predict_kind``).
Session 38 (eval/README.md): 0.86 over all, 0.84 among the answered, 0.84 within duration questions,
while a reader trained only on answerable questions (it cannot learn their wording) separated nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from anchor_core.ask.question import predict_kind
from eval.anchor_bench import read_jsonl
from eval.fresh import FRESH, corpus_of

MIN_PER_CLASS = 5


def load(names: list[str]) -> list[dict]:
    return [{**r, "corpus": corpus_of(name)} for name in names for r in read_jsonl(FRESH / f"{name}.jsonl")]


def question_model(questions: list[str], labels: np.ndarray) -> Callable[[list[str]], np.ndarray]:
    """The control: a TF-IDF (words and word pairs) logistic model fitted on ``questions`` alone; it returns
    P(answerable) of other questions."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2)
    model = LogisticRegression(max_iter=2000).fit(vec.fit_transform(questions), labels)
    return lambda qs: model.predict_proba(vec.transform(qs))[:, 1]


def loco_scores(questions: list[str], labels: np.ndarray, corpora: np.ndarray) -> np.ndarray:
    """P(answerable) of each question from a model fitted on the other corpora's questions only."""
    out = np.full(len(questions), np.nan)
    for corpus in sorted(set(corpora)):
        test = corpora == corpus
        train = ~test
        if len(set(labels[train])) < 2:
            continue
        predict = question_model([q for q, t in zip(questions, train) if t], labels[train])
        out[test] = predict([q for q, t in zip(questions, test) if t])
    return out


def auc(labels: np.ndarray, scores: np.ndarray) -> float | None:
    """ROC AUC, ``None`` with fewer than :data:`MIN_PER_CLASS` of either class."""
    from sklearn.metrics import roc_auc_score

    keep = ~np.isnan(scores)
    y, s = labels[keep], scores[keep]
    if min(int(y.sum()), int((1 - y).sum())) < MIN_PER_CLASS:
        return None
    return float(roc_auc_score(y, s))


def report(rows: list[dict], answered: dict[str, bool] | None = None) -> dict[str, float | None]:
    """The question-only AUCs: over all rows, over the answered ones, and over the answered ones per kind."""
    y = np.array([r["type"] != "unanswerable" for r in rows], dtype=int)
    p = loco_scores([r["question"] for r in rows], y, np.array([r["corpus"] for r in rows]))
    out: dict[str, float | None] = {"all": auc(y, p)}
    if answered is not None:
        m = np.array([answered.get(r["id"], False) for r in rows])
        out["answered"] = auc(y[m], p[m])
        kinds = np.array([predict_kind(r["question"]) for r in rows])
        for kind in sorted(set(kinds[m])):
            out[f"answered, {kind}"] = auc(y[m & (kinds == kind)], p[m & (kinds == kind)])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", required=True, help="comma-separated fresh set names (spent ones only)")
    ap.add_argument("--rows", default="", help="per-question outcomes written by python -m eval.fresh --out")
    args = ap.parse_args(argv)
    rows = load([s for s in args.sets.split(",") if s])
    answered = None
    if args.rows:
        answered = {r["id"]: not r["refused"] for r in read_jsonl(Path(args.rows))}
    for name, value in report(rows, answered).items():
        print(f"question-only AUC ({name}): " + ("too few of a class" if value is None else f"{value:.3f}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
