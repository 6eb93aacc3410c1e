"""Draw the source sentences of a held-out claims file: a seeded sample of real sentences that state a rule.

    python -m eval.claims.draw --seed 43 --per-corpus 16 --out eval/claims/briefs/fresh_claims7_sources.jsonl

Per corpus, the units are shuffled with the seed and each gives at most one sentence: the first, in the
unit's order, that has a normative word (shall, must, should, may, is required to, ...), is 90-280
characters long, passes :func:`eval.claims.make_perturbations.usable`, is not boilerplate that three or
more units write (:func:`boilerplate`) and is the source sentence of no claim file in ``eval/claims`` (nor
of an earlier draw in ``briefs/``). The draw reads the corpora under
``ANCHOR_BENCH_DATA`` and nothing else; two runs with one seed give the same lines.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from anchor_core.segment import sentences
from eval.claims.make_perturbations import usable, ws
from eval.data import CORPORA
from ingest import get_adapter

HERE = Path(__file__).resolve().parent
NAMES = ("aiact", "gdpr", "peps", "rfc", "adgm")
NORMATIVE = re.compile(r"\b(?:shall|must|should|may|required|prohibited|permitted|SHALL|MUST|SHOULD|MAY|REQUIRED)\b")


def used() -> set[str]:
    """Every source sentence a claim file or an earlier draw already uses, whitespace-normalised."""
    out = set()
    for path in [*HERE.glob("*.jsonl"), *(HERE / "briefs").glob("*.jsonl")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                for key in ("source_sentence", "sentence", "source"):
                    if isinstance(row.get(key), str):
                        out.add(ws(row[key]))
    return out


def _template(sentence: str) -> str:
    """A sentence with its numbers and addresses blanked: what two units' boilerplate shares."""
    return re.sub(r"<[^>]*>|\S*\d\S*", "#", ws(sentence))


def boilerplate(units: list[tuple[str, str]], at_least: int = 3) -> set[str]:
    """Templates of the sentences that at least ``at_least`` units write (an RFC's status-of-this-memo lines,
    a PEP's copyright line): the same words in every document, not a rule anyone would restate."""
    count: dict[str, int] = {}
    for _, text in units:
        for t in {_template(text[s.start:s.end]) for s in sentences(text)}:
            count[t] = count.get(t, 0) + 1
    return {t for t, n in count.items() if n >= at_least}


def draw(seed: int, per_corpus: int) -> list[dict]:
    taken = used()
    rows = []
    for name in NAMES:
        path = CORPORA / name
        units = [(u.unit_id, u.text) for u in get_adapter(name).load(path).units]
        common = boilerplate(units)
        random.Random(f"{seed}-{name}").shuffle(units)
        got = 0
        for unit_id, text in units:
            if got == per_corpus:
                break
            for s in sentences(text):
                raw = text[s.start:s.end]
                if 90 <= len(ws(raw)) <= 280 and NORMATIVE.search(raw) and usable(raw) and ws(raw) not in taken \
                        and _template(raw) not in common:
                    got += 1
                    taken.add(ws(raw))
                    rows.append({"n": f"{name}-{got:02d}", "corpus": name, "unit_id": unit_id,
                                 "source_sentence": raw})
                    break
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--per-corpus", type=int, default=16)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if not CORPORA.exists():
        print(f"skipped: {CORPORA} is absent (the benchmark data lives beside the checkout)")
        return 0
    rows = draw(args.seed, args.per_corpus)
    Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} sentences to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
