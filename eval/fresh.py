"""Questions written after the code was frozen: what the offline ``anchor ask`` does on them, once.

    python -m eval.fresh                       # every set in eval/questions/fresh/, offline, MiniLM
    python -m eval.fresh --sets aiact --show   # one set, with each answer's first quote

The dev sets in ``eval/questions`` were read while the gate, the writer and retrieval were built;
their leave-one-corpus-out figures are the best estimate there is, but a held-out set written
the same way by someone else is the measure that counts. The sets in ``eval/questions/fresh``
are small stand-ins for it: each was written on the day its README line gives, after the
commits it names, checked against the corpus text only (the answerable ones' answer sentence
was found by grep, the unanswerable ones' absence likewise), and run through this script once.
They are never used to choose anything; a set that has been looked at for tuning stops being
fresh and moves to ``eval/questions``.

Per question: the whole offline pipeline as ``anchor ask`` runs it (``AskSettings()``: hybrid,
k=5, one hop, the gate, the extractive writer, claim checking). Reported: unanswerable refused,
answerable falsely refused, and for answered answerable questions whether a claim is anchored in
a gold unit (``gold quoted``) and whether the quotes hold the asked fact as the question's
``fact`` writes it (``fact quoted``: "15 days", "2 August 2026").
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from anchor_core.ask import AskSettings, ask
from anchor_core.assessment import EXTRACTIVE_OPEN, Assessment, assess, checks
from anchor_core.named import use_adapters
from anchor_core.stores.sqlite import SQLiteStore
from eval.anchor_bench import read_jsonl
from eval.answerability import ensure, workspace_embedder
from eval.data import CORPORA
from ingest import get_adapter

HERE = Path(__file__).resolve().parent
FRESH = HERE / "questions" / "fresh"
EXTRACTIVE_JSON = HERE.parent / "anchor_core" / "data" / "extractive.json"


def run(store, emb, corpus: str, rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        rep = ask(r["question"], store=store, embedder=emb, corpus=corpus, settings=AskSettings())
        ch = checks(rep)  # once: the headline and the two flags below read the same checks
        a = assess(ch, rep.latest_reviews)
        units = {c.anchor.unit_id for c in rep.claims if c.anchor is not None and c.supported}
        quotes = " ".join(" ".join(c.anchor.quote.split()) for c in rep.claims if c.anchor is not None)
        out.append({**r, "refused": rep.refused, "reason": rep.reason, "code": rep.reason_code,
                    "gold_quoted": bool(units & set(r.get("gold", []))),
                    "fact_quoted": bool(r.get("fact")) and r.get("fact", "") in quotes,
                    "first": next((c.anchor.quote for c in rep.claims if c.anchor is not None), ""),
                    # the run's headline state (verified / unconfirmed / not_verified / refused) and gate score
                    "state": a.state, "gate_score": round(rep.gate.score, 3) if rep.gate else None,
                    # every automatic check passed; an extractive pick's own open item aside
                    "checks_passed": passed(a), "extractive": bool(ch.extractive),
                    # does the answer hold the asked kind of answer about the asked focus (addressed / not_addressed)
                    "relevance": ch.relevance.state, "kind": rep.relevance.kind if rep.relevance else ""})
    return out


def passed(a: Assessment) -> bool:
    """Every automatic check passed: verified, or open only for being an extractive pick."""
    return a.state == "verified" or (a.state == "unconfirmed" and bool(a.reasons)
                                     and all(r.startswith(EXTRACTIVE_OPEN) for r in a.reasons))


def extractive_figure(rows: list[dict]) -> dict:
    """Of the extractive answers that passed every other check, how many quoted the asked fact (an answer to an
    unanswerable question never does): the rate the headline of such an answer quotes."""
    picked = [r for r in rows if not r["refused"] and r.get("extractive") and r.get("checks_passed")]
    return {"answers": len(picked),
            "fact_quoted": sum(r["type"] != "unanswerable" and r["fact_quoted"] for r in picked),
            "unanswerable": sum(r["type"] == "unanswerable" for r in picked)}


def corpus_of(name: str) -> str:
    """The corpus a set file asks: ``aiact2`` (a second AI Act set) asks ``aiact``.

    >>> corpus_of("aiact2"), corpus_of("rfc")
    ('aiact', 'rfc')
    """
    return name.rstrip("0123456789")


def summary(rows: list[dict]) -> dict[str, str]:
    ans = [r for r in rows if r["type"] != "unanswerable"]
    un = [r for r in rows if r["type"] == "unanswerable"]
    answered = [r for r in ans if not r["refused"]]
    wrong = [r for r in un if not r["refused"]]
    return {"unanswerable refused": f"{sum(r['refused'] for r in un)}/{len(un)}",
            "answerable falsely refused": f"{sum(r['refused'] for r in ans)}/{len(ans)}",
            "answered with a gold unit quoted": f"{sum(r['gold_quoted'] for r in answered)}/{len(answered)}",
            "answered with the asked fact quoted": f"{sum(r['fact_quoted'] for r in answered)}/{len(answered)}",
            # what a reader sees: an answer to an unanswerable question should not be headlined "verified"
            "answered unanswerable headlined verified":
                f"{sum(r.get('state') == 'verified' for r in wrong)}/{len(wrong)}",
            "answered answerable headlined verified":
                f"{sum(r.get('state') == 'verified' for r in answered)}/{len(answered)}",
            # the answers a reader would have seen as passing every automatic check, and how many were right
            "passed every check, fact quoted": "{fact_quoted}/{answers}".format(**extractive_figure(rows))}


def _write_extractive(results: list[dict], names: list[str]) -> None:
    fig = extractive_figure(results)
    EXTRACTIVE_JSON.write_text(json.dumps({
        "note": "extractive answers (not refused, not a document header's cells) that passed every automatic check "
                "but their own open item, on the fresh sets below, and how many quoted the asked fact; written by "
                "python -m eval.fresh --write-extractive", **fig, "sets": names}, indent=1) + "\n",
        encoding="utf-8")
    print(f"wrote {EXTRACTIVE_JSON}: {fig}")


def _from_rows(path: Path, names: list[str], *, write_extractive: bool) -> int:
    """Summarise (and with ``write_extractive`` store the figure of) outcomes written by ``--out``: the rows of
    the questions of ``names`` only, each set complete."""
    got = {r["id"]: r for r in read_jsonl(path)}
    results = []
    for name in names:
        ids = [r["id"] for r in read_jsonl(FRESH / f"{name}.jsonl")]
        missing = [i for i in ids if i not in got]
        if missing:
            print(f"{path} has no outcome for {len(missing)} questions of {name} ({missing[0]} ...): run the set "
                  f"with --out first")
            return 1
        results += [got[i] for i in ids]
    print(f"{len(names)} sets, {len(results)} questions from {path}: " +
          "; ".join(f"{k} {v}" for k, v in summary(results).items()))
    if write_extractive:
        _write_extractive(results, names)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="", help="comma-separated set names (default: every file in the folder)")
    ap.add_argument("--workspace", default=str(HERE / "results" / "cache"))
    ap.add_argument("--show", action="store_true", help="print every question's outcome")
    ap.add_argument("--out", default="", help="also write the per-question outcomes as JSON lines here")
    ap.add_argument("--write-extractive", action="store_true",
                    help=f"store how often the extractive answers that passed every other check quoted the asked "
                         f"fact in {EXTRACTIVE_JSON} (run it on spent sets only)")
    ap.add_argument("--rows", default="",
                    help="read the per-question outcomes that an earlier run wrote with --out instead of running "
                         "again (only the questions of --sets count): its summary, and --write-extractive from it")
    args = ap.parse_args(argv)
    names = [s for s in args.sets.split(",") if s] or sorted(p.stem for p in FRESH.glob("*.jsonl"))
    if args.rows:
        return _from_rows(Path(args.rows), names, write_extractive=args.write_extractive)
    if not CORPORA.exists():
        print(f"skipped: {CORPORA} is absent (the benchmark data lives beside the checkout)")
        return 0
    use_adapters(get_adapter)
    ws = Path(args.workspace)
    ws.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(ws / "anchor.db")
    emb = workspace_embedder(ws)
    results = []
    for name in names:
        rows = read_jsonl(FRESH / f"{name}.jsonl")
        t = time.perf_counter()
        got = run(store, emb, ensure(store, emb, corpus_of(name)), rows)
        results += got
        print(f"{name}: {len(rows)} questions in {time.perf_counter() - t:.0f}s  " + "; ".join(
            f"{k} {v}" for k, v in summary(got).items()))
        if args.show:
            for r in got:
                tag = "REFUSED" if r["refused"] else ("fact" if r["fact_quoted"] else "gold unit" if r["gold_quoted"]
                                                      else "other")
                print(f"  {r['id']} [{r['type']}/{r['answer_kind']}] {tag}: {r['question']}")
                print(f"      {r['reason'] if r['refused'] else r['first'][:140]!r}")
    if args.write_extractive:
        _write_extractive(results, names)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
