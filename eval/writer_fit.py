"""How much the asking sentence weighs in the extractive writer's ranking (``writers.ASKED_WEIGHT``), fitted on
some spent rounds and reported on others.

A practitioner's question often tells its situation first and asks last ("Our notified body has stopped its
activities. Within how many days must the authority withdraw its designation?"). The writer ranks sentences by
the share of the question's terms they cover (among other things); ``asked_weight`` adds the share of the asking
sentence's terms. This script runs the pipeline's retrieval once per answerable question of the fresh rounds
(``eval/questions/fresh``, each with the ``fact`` string that answers it), then the writer once per candidate
weight, and counts how often the answer's first quote holds the asked fact (and any quote).

The weight is chosen on rounds 1-17 (``--fit-rounds``) and reported on rounds 18-28 (``--report-rounds``), which
did not choose it; rounds after the last spent one are held out for a later session and must not be named here.
A file's round is its number for the RFC, PEP and ADGM sets and its number less one for the AI Act and GDPR
sets (``aiact19`` is round 18; ``eval/questions/fresh/README.md``).

    python -m eval.writer_fit --workspace <ws>          # writes eval/results/writer-fit.md

Reads the shared corpora (skips cleanly without them); the workspace keeps the ingested corpora and embeddings.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from anchor_core.ask import pipeline as P
from anchor_core.ask.writers import ASKED_WEIGHT, ExtractiveWriter
from anchor_core.named import use_adapters
from anchor_core.stores.sqlite import SQLiteStore
from eval.answerability import ensure, workspace_embedder
from eval.answers_bench import prepare
from eval.data import CORPORA
from ingest import get_adapter

HERE = Path(__file__).resolve().parent
FRESH = HERE / "questions" / "fresh"
GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0)
_FILE = re.compile(r"^(aiact|gdpr|rfc|peps|adgm)(\d*)$")


def round_of(name: str) -> int | None:
    """The round a fresh file belongs to (``None``: not a round file).

    >>> round_of("aiact19"), round_of("rfc18"), round_of("peps"), round_of("gdpr2"), round_of("notes")
    (18, 18, 1, 1, None)
    """
    m = _FILE.match(name)
    if m is None:
        return None
    n = int(m.group(2) or 1)
    return max(1, n - 1) if m.group(1) in ("aiact", "gdpr") else n


def _span(text: str) -> tuple[int, int]:
    a, _, b = text.partition("-")
    return int(a), int(b or a)


def _norm(s: str) -> str:
    return " ".join(s.split())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workspace", type=Path, required=True, help="where the corpora are ingested (kept between runs)")
    p.add_argument("--fit-rounds", default="1-17")
    p.add_argument("--report-rounds", default="18-28")
    p.add_argument("--out", type=Path, default=HERE / "results" / "writer-fit.md")
    args = p.parse_args(argv)
    if not CORPORA.exists():
        print(f"skipped: the shared corpora ({CORPORA}) are not here")
        return 0
    fit_lo, fit_hi = _span(args.fit_rounds)
    rep_lo, rep_hi = _span(args.report_rounds)
    use_adapters(get_adapter)
    args.workspace.mkdir(parents=True, exist_ok=True)
    store, emb = SQLiteStore(args.workspace / "anchor.db"), workspace_embedder(args.workspace)
    settings = P.AskSettings(writer="extractive", gate=False)
    groups: dict[str, list] = {"fit": [], "report": []}
    t0 = time.perf_counter()
    for f in sorted(FRESH.glob("*.jsonl")):
        r = round_of(f.stem)
        if r is None:
            continue
        group = "fit" if fit_lo <= r <= fit_hi else "report" if rep_lo <= r <= rep_hi else None
        if group is None:
            continue  # not named: a held-out round is never read
        corpus = ensure(store, emb, _FILE.match(f.stem).group(1))  # type: ignore[union-attr]
        info = store.corpus(corpus)
        for line in f.read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            if q.get("type") == "unanswerable" or not q.get("fact"):
                continue
            q.setdefault("gold", [])
            groups[group].append(prepare(q, store=store, embedder=emb, corpus=corpus, info=info, settings=settings))
    print(f"retrieved {sum(map(len, groups.values()))} questions in {time.perf_counter() - t0:.0f}s", flush=True)

    def measure(preps: list, weight: float) -> tuple[int, int, int]:
        writer = ExtractiveWriter(embedder=emb, asked_weight=weight)
        first = anywhere = answered = 0
        for x in preps:
            d = writer.write(x.q["question"], x.sources, list(x.weights), {t: (v or 1.0) for t, v in x.weights.items()},
                             units={k: u.text for k, u in x.units.items()}, cited=x.cited)
            if d.refused or not d.claims:
                continue
            fact = _norm(x.q["fact"])
            answered += 1
            first += fact in _norm(d.claims[0].text)
            anywhere += fact in " ".join(_norm(c.text) for c in d.claims)
        return first, anywhere, answered

    rows = []
    for w in GRID:
        rows.append((w, measure(groups["fit"], w), measure(groups["report"], w)))
        print(w, rows[-1][1:], flush=True)
    best = max(rows, key=lambda r: (r[1][0], -abs(r[0] - ASKED_WEIGHT)))[0]
    n_fit, n_rep = len(groups["fit"]), len(groups["report"])
    lines = ["# The asking sentence's weight in the extractive writer (`python -m eval.writer_fit`)", "",
             f"Answerable questions with a fact string: rounds {args.fit_rounds} ({n_fit}, choose the weight) and "
             f"rounds {args.report_rounds} ({n_rep}, report only). The writer runs on the pipeline's sources "
             "(retrieval as `ask` runs it, gate off); a question counts when the writer answers. First: the first "
             "quote holds the asked fact; any: some quote does.", "",
             f"| asked weight | rounds {args.fit_rounds}: first | any | rounds {args.report_rounds}: first | any |",
             "|---|---|---|---|---|"]
    for w, (f1, a1, n1), (f2, a2, n2) in rows:
        mark = " (best on the fit rounds)" if w == best else ""
        lines.append(f"| {w}{mark} | {f1}/{n1} | {a1}/{n1} | {f2}/{n2} | {a2}/{n2} |")
    lines += ["", f"Shipped: `ASKED_WEIGHT = {ASKED_WEIGHT}`."]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
