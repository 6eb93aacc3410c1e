"""Check the hand-written and rule-made dev data against the corpora the adapters produce.

    python -m eval.claims.check            # exit 1 on any problem, 0 when all hold

Questions (``eval/questions/*.jsonl``):
  - ids unique; ``type`` is single / multi / unanswerable; ``answer_kind`` is one of the kinds
    below; ``focus`` is set; a ``multi`` question has two gold units, a ``single`` one, an
    unanswerable none;
  - every gold unit exists in the corpus as the adapter loads it;
  - ``evidence`` (where given) occurs verbatim in one of the gold units;
  - a ``gold_parts`` label is a part label of that unit (or its parent, or, for Annex I whose
    points the adapter labels ``A.11``, its last component), for units that have parts; for
    ADGM passages (no parts) there must be none;
  - an unanswerable question has ``missing`` and ``why``, and each regex in ``absent`` matches
    nowhere in the corpus (case-insensitive): the grep recorded in ``why`` still comes back empty.
Claims (``eval/claims/perturbed.jsonl``, ``eval/claims/paraphrases.jsonl``, ``fresh_paraphrases.jsonl``,
``fresh_claims2.jsonl`` … ``fresh_claims7.jsonl``):
  - every ``source_sentence`` occurs verbatim in its unit's text (a python ``in`` test);
  - a perturbed claim has ``source_sentence == text[start:start + len]``, and re-applying
    ``changed`` at ``changed.at`` (whitespace collapsed, a dropped leading condition
    capitalised) gives exactly ``claim``; the claim differs from the source;
  - a paraphrase differs from its source sentence.

Reads the corpora under ``ANCHOR_BENCH_DATA`` (default ``../shared/data``); exits 0 with a note
when they are absent.
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

from eval.data import CORPORA
from ingest import get_adapter

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE.parent / "questions"
CORPUS_NAMES = ("aiact", "gdpr", "peps", "rfc", "adgm")
KINDS = {"date", "duration", "amount", "percentage", "count", "person_or_body", "place", "list", "yes_no",
         "definition", "procedure", "other"}
RULES = ("negation", "modality", "number", "date", "actor_swap", "dropped_condition")


def ws(text: str) -> str:
    return " ".join(text.split())


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def check_questions(corpus: str, units: dict, problems: list[str]) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    path = QUESTIONS / f"{corpus}.jsonl"
    if not path.exists():
        problems.append(f"{path.name}: missing")
        return counts
    rows = load_jsonl(path)
    text_all = None
    seen = set()
    for q in rows:
        qid = q.get("id", "?")
        where = f"{path.name} {qid}"
        if qid in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(qid)
        typ = q.get("type")
        if typ not in ("single", "multi", "unanswerable"):
            problems.append(f"{where}: type {typ!r}")
        if q.get("answer_kind") not in KINDS:
            problems.append(f"{where}: answer_kind {q.get('answer_kind')!r}")
        if not q.get("focus"):
            problems.append(f"{where}: no focus")
        gold = q.get("gold", [])
        want = {"single": 1, "multi": 2, "unanswerable": 0}.get(typ)
        if want is not None and len(gold) != want:
            problems.append(f"{where}: {typ} with {len(gold)} gold units")
        for g in gold:
            if g not in units:
                problems.append(f"{where}: gold unit {g!r} not in the {corpus} corpus")
        for g, label in (q.get("gold_parts") or {}).items():
            unit = units.get(g)
            if unit is None:
                continue
            labels = {p.label for p in unit.parts}
            # Annex I numbers its points inside sections: the adapter labels point 11 "A.11"
            if not labels or str(label) not in labels and not any(
                    x.startswith(f"{label}.") or x.endswith(f".{label}") for x in labels):
                if corpus == "peps" and unit.parts and any(p.title == label for p in unit.parts):
                    continue
                problems.append(f"{where}: part {label!r} not a part of {g}")
        ev = q.get("evidence")
        if ev is not None and not any(ev in units[g].text for g in gold if g in units):
            problems.append(f"{where}: evidence not verbatim in the gold units: {ev[:60]!r}")
        if typ == "unanswerable":
            if not q.get("missing") or not q.get("why"):
                problems.append(f"{where}: unanswerable without missing/why")
            if text_all is None:
                text_all = [u.text for u in units.values()]
            for rx in q.get("absent", []):
                pat = re.compile(rx, re.I)
                hits = sum(1 for t in text_all if pat.search(t))
                if hits:
                    problems.append(f"{where}: absent term {rx!r} matches {hits} unit(s)")
            counts[f"unanswerable:{q.get('unanswerable_kind', '?')}"] += 1
        counts[typ] += 1
        counts[f"kind:{q.get('answer_kind')}"] += 1
    return counts


def rederive(row: dict) -> str:
    s, ch = row["source_sentence"], row["changed"]
    at = ch["at"]
    if s[at: at + len(ch["from"])] != ch["from"]:
        return "<changed.from is not at changed.at>"
    out = ws(s[:at] + ch["to"] + s[at + len(ch["from"]):])
    if row["rule"] == "dropped_condition" and at == 0 and ch["to"] == "":
        out = out[:1].upper() + out[1:]
    return out


def check_claims(rows_by_corpus: dict[str, list[dict]], units_by_corpus: dict[str, dict], problems: list[str],
                 kind: str) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    seen = set()
    for corpus, rows in rows_by_corpus.items():
        units = units_by_corpus.get(corpus)
        for r in rows:
            where = f"{kind} {r.get('id')}"
            if r["id"] in seen:
                problems.append(f"{where}: duplicate id")
            seen.add(r["id"])
            unit = units.get(r["unit_id"]) if units else None
            if unit is None:
                problems.append(f"{where}: unit {r['unit_id']!r} not in {corpus}")
                continue
            src = r["source_sentence"]
            if src not in unit.text:
                problems.append(f"{where}: source_sentence not verbatim in {r['unit_id']}")
            if ws(r["claim"]) == ws(src):
                problems.append(f"{where}: claim equals its source")
            if kind == "perturbed":
                if r.get("label") != "contradicted" or r.get("rule") not in RULES:
                    problems.append(f"{where}: label {r.get('label')!r} / rule {r.get('rule')!r}")
                if unit.text[r["start"]: r["start"] + len(src)] != src:
                    problems.append(f"{where}: source_sentence is not at start={r['start']}")
                if rederive(r) != r["claim"]:
                    problems.append(f"{where}: claim is not the source with exactly `changed` applied")
                counts[(corpus, r["rule"])] += 1
            elif kind == "hand":  # fresh_claims2.jsonl: supported paraphrases and contradicting ones
                if (r.get("label"), r.get("kind")) not in {("supported", None), *(
                        ("contradicted", k) for k in ("negation", "modality", "number", "actor", "condition"))}:
                    problems.append(f"{where}: label {r.get('label')!r} / kind {r.get('kind')!r}")
                counts[corpus] += 1
            else:
                if r.get("label") != "supported":
                    problems.append(f"{where}: label {r.get('label')!r}")
                counts[corpus] += 1
    return counts


def main() -> int:
    if not CORPORA.exists():
        print(f"no corpora at {CORPORA}; nothing checked")
        return 0
    problems: list[str] = []
    units_by_corpus = {}
    print("questions (answerable = single + multi)")
    print(f"{'corpus':8} {'single':>6} {'multi':>5} {'answerable':>10} {'unans':>5} {'look-ans':>8} {'out-scope':>9}")
    totals: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    for corpus in CORPUS_NAMES:
        parsed = get_adapter(corpus).load(CORPORA / corpus)
        units_by_corpus[corpus] = {u.unit_id: u for u in parsed.units}
        c = check_questions(corpus, units_by_corpus[corpus], problems)
        totals.update(c)
        kinds.update({k: v for k, v in c.items() if k.startswith("kind:")})
        print(f"{corpus:8} {c['single']:6} {c['multi']:5} {c['single'] + c['multi']:10} {c['unanswerable']:5} "
              f"{c['unanswerable:look_answerable']:8} {c['unanswerable:out_of_scope']:9}")
    print(f"{'total':8} {totals['single']:6} {totals['multi']:5} {totals['single'] + totals['multi']:10} "
          f"{totals['unanswerable']:5} {totals['unanswerable:look_answerable']:8} "
          f"{totals['unanswerable:out_of_scope']:9}")
    print("answer_kind: " + ", ".join(f"{k[5:]} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))

    for kind, name in (("perturbed", "perturbed.jsonl"), ("paraphrase", "paraphrases.jsonl"),
                       ("paraphrase", "fresh_paraphrases.jsonl"), ("hand", "fresh_claims2.jsonl"),
                       ("hand", "fresh_claims3.jsonl"), ("hand", "fresh_claims4.jsonl"),
                       ("hand", "fresh_claims5.jsonl"), ("hand", "fresh_claims6.jsonl"),
                       ("hand", "fresh_claims7.jsonl"), ("hand", "fresh_claims8.jsonl"),
                       ("hand", "fresh_claims9.jsonl"),
                       ("hand", "fresh_claims10.jsonl"),
                       ("hand", "fresh_claims11.jsonl"),
                       ("hand", "fresh_claims12.jsonl"),
                       ("hand", "fresh_claims13.jsonl"),
                       ("hand", "fresh_claims14.jsonl"),
                       ("hand", "fresh_claims15.jsonl"),
                       ("hand", "fresh_claims16.jsonl"),
                       ("hand", "fresh_claims17.jsonl"),
                       ("hand", "fresh_claims18.jsonl"),
                       ("hand", "fresh_claims19.jsonl"),
                       ("hand", "fresh_claims20.jsonl"),
                       ("hand", "fresh_claims21.jsonl"),
                       ("hand", "fresh_claims22.jsonl"), ("hand", "fresh_claims23.jsonl")):
        path = HERE / name
        if not path.exists():
            problems.append(f"{name}: missing")
            continue
        rows = load_jsonl(path)
        by: dict[str, list[dict]] = collections.defaultdict(list)
        for r in rows:
            by[r["corpus"]].append(r)
        c = check_claims(by, units_by_corpus, problems, kind)
        if kind == "perturbed":
            print(f"\nperturbed claims ({len(rows)})")
            print(f"{'rule':18}" + "".join(f"{x:>7}" for x in CORPUS_NAMES) + "  total")
            for rule in RULES:
                n = [c[(x, rule)] for x in CORPUS_NAMES]
                print(f"{rule:18}" + "".join(f"{v:7}" for v in n) + f"{sum(n):7}")
            n = [sum(c[(x, r)] for r in RULES) for x in CORPUS_NAMES]
            print(f"{'total':18}" + "".join(f"{v:7}" for v in n) + f"{sum(n):7}")
        else:
            print(f"\n{name[:-6].replace('_', ' ')} ({len(rows)}): " + ", ".join(f"{x} {c[x]}" for x in CORPUS_NAMES))
    print()
    if problems:
        print(f"{len(problems)} problem(s):")
        for p in problems:
            print("  " + p)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
