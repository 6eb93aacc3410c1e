"""Do the offline answers quote the sentence that answers? (issue 17, extractive answers)

For every answerable question of a dev set, the ask pipeline's retrieve and write stages run as
``anchor ask`` runs them offline (hybrid retrieval with the MiniLM embedder, k=5, one hop, the
extractive writer; the gate is skipped so that every answerable question is written for) and the
quotes of the answer are compared with the labels:

* ``answered``: a quote overlaps a labelled answer sentence (``answer_sentences`` in
  ``eval/questions/aiact.jsonl``, chosen by reading the Regulation; same unit, overlapping
  characters). Where a set has no sentence labels but an ``evidence`` string (the GDPR, PEP and
  RFC questions written for issue 14), the evidence span stands in for the label; that is
  reported as ``evidence hit`` and was never used to choose anything.
* ``reachable``: a labelled sentence is inside the retrieved sources at all (the writer's ceiling).
* mechanics, on every set: ``byte-exact`` (each quote is the stored unit text at its offsets,
  ``text[start:end] == quote``, and is printed as is in the answer), ``whole sentences`` (no quote
  ends inside a sentence: it ends at ``.``/``!``/``?``/``;``/``:`` or at the end of its line),
  ``colon kept`` (no lead-in's colon was turned into a full stop).
* yes/no (``expected_yes_no`` labels): how often the answer opens with the right "Yes"/"No",
  a wrong one, or "The sources say:".

    python -m eval.answers_bench                      # aiact, peps, rfc
    python -m eval.answers_bench --sets aiact --show  # print every answer

Embeddings are cached in ``eval/results/cache/minilm/embedding-cache.db``; the corpora are
ingested into ``eval/results/cache/minilm/answers.db``. Results: ``eval/results/answers.md``.
Sets whose corpus is absent are skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from anchor_core.ask import gate as gate_mod
from anchor_core.ask import pipeline as P
from anchor_core.embed_cache import CachedEmbedder
from anchor_core.embeddings import make_embedder
from anchor_core.errors import CorpusNotFound
from anchor_core.indexing import ingest
from anchor_core.stores.sqlite import SQLiteStore
from eval.data import CORPORA
from ingest import get_adapter, load_adapter_corpus

HERE = Path(__file__).resolve().parent
MARKER = "<!-- the tables below are written by python -m eval.answers_bench -->"
SETS = {"aiact": ("aiact", None), "gdpr": ("gdpr", "gdpr"), "peps": ("peps", "peps"), "rfc": ("rfc", "rfc")}
_PRINTED = re.compile(r"“(.*?)”\s*\[(\d+)\]", re.S)
_YES_NO = re.compile(r"^\s*(Yes|No)\b|^\s*The sources say:")
# a quote ends a sentence at a stop, a semicolon or a colon (a lead-in), optionally closed by quotes/brackets
_SENTENCE_END = re.compile(r"[.!?;:][\"'”’)\]]*$|[.!?;:][\"'”’)\]]*\s+(?:or|and)$")


@dataclass
class Outcome:
    qid: str
    kind: str
    answered: bool | None = None
    reachable: bool | None = None
    evidence: bool | None = None
    evidence_reachable: bool | None = None
    quotes: int = 0
    exact: int = 0
    whole: int = 0
    colon_lost: int = 0
    opening: str = ""
    expected: str | None = None
    answer: str = ""
    notes: list[str] = field(default_factory=list)


def load(name: str) -> list[dict]:
    path = HERE / "questions" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ensure(store: SQLiteStore, embedder, name: str) -> str | None:
    adapter, folder = SETS[name]
    corpus = f"answers-{name}"
    try:
        info = store.corpus(corpus)
        if info.embedder == embedder.model_id:
            return corpus
    except CorpusNotFound:
        pass
    if folder is not None and not (CORPORA / folder).exists():
        print(f"skip {name}: {CORPORA / folder} not found")
        return None
    parsed = load_adapter_corpus(adapter, CORPORA / folder) if folder else get_adapter(adapter).load(None)
    t = time.perf_counter()
    ingest(store, embedder, parsed, corpus=corpus, adapter=adapter)
    print(f"ingested {name} in {time.perf_counter() - t:.0f}s")
    return corpus


def spans(unit_text: str, needle: str) -> list[tuple[int, int]]:
    """Every occurrence of ``needle`` in ``unit_text``, whitespace-insensitive (RFC evidence keeps line breaks)."""
    rx = re.compile(r"\s+".join(re.escape(w) for w in needle.split()))
    return [(m.start(), m.end()) for m in rx.finditer(unit_text)]


@dataclass
class Prepared:
    """A question after retrieval: what the writer is handed."""

    q: dict
    sources: list
    units: dict
    weights: dict[str, float]
    cited: dict = field(default_factory=dict)


def prepare(q: dict, *, store, embedder, corpus: str, info, settings) -> Prepared:
    run = P._Run(None)
    hits, units, rel, _, _ = P._retrieve(q["question"], run, store=store, embedder=embedder, info=info,
                                         settings=settings)
    weights = gate_mod.term_weights(store, corpus, gate_mod.content_terms(q["question"]),
                                    settings.retrieval().filters, max(info.chunks, 1))
    for uid in {s["unit"] for s in q.get("answer_sentences", [])} | set(q["gold"]):
        if uid not in units:  # labels outside the sources still need their unit text to be located
            units.update(store.get_units(corpus, [uid]))
    sources = P._sources(hits, units, rel)
    cited = P.cited_titles(store, corpus, units, [s.unit_id for s in sources]) if hasattr(P, "cited_titles") else {}
    return Prepared(q, sources, units, weights, cited)


def pipeline_writer(embedder, settings):
    """The write stage exactly as ``ask`` runs it offline."""
    import inspect

    takes = inspect.signature(P._write).parameters  # older pipelines (the baseline) take neither

    def write(prep: Prepared):
        extra = {k: v for k, v in (("embedder", embedder), ("units", prep.units), ("cited", prep.cited)) if k in takes}
        return P._write(prep.q["question"], prep.sources, P._Run(None), settings=settings, llm=None,
                        weights=prep.weights, **extra)
    return write


def run_question(prep: Prepared, write) -> Outcome:
    q, sources, units = prep.q, prep.sources, prep.units
    out = Outcome(q["id"], q["answer_kind"], expected=q.get("expected_yes_no"))
    draft = write(prep)
    out.answer = draft.answer
    m = _YES_NO.match(draft.answer)
    out.opening = (m.group(1) or "sources").lower() if m else ""
    labels = [(s["unit"], s["text"]) for s in q.get("answer_sentences", [])]
    want: list[tuple[str, int, int]] = []
    for uid, text in labels:
        u = units.get(uid)
        want += [(uid, a, b) for a, b in spans(u.text, text)] if u else []
    ev = q.get("evidence")
    ev_spans: list[tuple[str, int, int]] = []
    if ev:
        for uid in q["gold"]:
            u = units.get(uid)
            ev_spans += [(uid, a, b) for a, b in spans(u.text, ev)] if u else []
    got: list[tuple[str, int, int]] = []
    for c in draft.claims:
        uid, s, e = getattr(c, "unit_id", None), getattr(c, "start", None), getattr(c, "end", None)
        src = next((x for x in sources if x.n == (c.cited or [0])[0]), None)
        if uid is None and src is not None:  # a writer that gives no offsets: find the quote in its source
            uid = src.unit_id
            found = spans(units[uid].text, c.text) if uid in units else []
            s, e = found[0] if found else (None, None)
        if uid is None or s is None or e is None or uid not in units:
            out.notes.append(f"claim not found in its source: {c.text[:60]!r}")
            continue
        got.append((uid, s, e))
    # the quotes as printed: each must be stored text, whole sentences, colons kept
    by_n = {x.n: x for x in sources}
    for quote, n in _PRINTED.findall(draft.answer):
        out.quotes += 1
        src = by_n.get(int(n))
        text = units[src.unit_id].text if src is not None and src.unit_id in units else ""
        at = text.find(quote)
        out.exact += at >= 0
        # where the quote's words end in the stored text (whitespace-insensitive; without a stop the writer added)
        core = quote if at >= 0 or not quote.endswith(".") else quote[:-1]
        found = spans(text, core) if text and core.strip() else []
        end = found[0][1] if found else -1
        rest = text[end:end + 2] if end >= 0 else ""
        out.whole += end >= 0 and bool(_SENTENCE_END.search(core) or rest[:1] in ("", "\n") or
                                       re.match(r"[.!?;:](\s|$)", rest) is not None)
        if at < 0 and quote.endswith(".") and text.find(quote[:-1] + ":") >= 0:
            out.colon_lost += 1
    if labels:
        out.answered = overlap(got, want)
        reach = [(s.unit_id, s.start, s.end) for s in sources]
        out.reachable = overlap(reach, want)
    if ev_spans:
        out.evidence = overlap(got, ev_spans)
        out.evidence_reachable = overlap([(s.unit_id, s.start, s.end) for s in sources], ev_spans)
    return out


def overlap(a: list[tuple[str, int, int]], b: list[tuple[str, int, int]]) -> bool:
    return any(u1 == u2 and s1 < e2 and s2 < e1 for u1, s1, e1 in a for u2, s2, e2 in b)


def share(xs: list[bool]) -> str:
    return f"{sum(xs)}/{len(xs)} = {sum(xs) / len(xs):.3f}" if xs else "–"


def summarise(name: str, rows: list[Outcome]) -> list[str]:
    lines = [f"### {name} ({len(rows)} answerable questions)", ""]
    lab = [r.answered for r in rows if r.answered is not None]
    reach = [r.reachable for r in rows if r.reachable is not None]
    ev = [r.evidence for r in rows if r.evidence is not None]
    quotes = sum(r.quotes for r in rows)
    lines.append("| measure | value |")
    lines.append("|---|---|")
    if lab:
        lines.append(f"| answered (a quote overlaps a labelled answer sentence) | {share(lab)} |")
        lines.append(f"| reachable (a labelled sentence is in the sources) | {share(reach)} |")
        lines.append(f"| answered when reachable | {share([r.answered for r in rows if r.reachable])} |")
    if ev:
        lines.append(f"| evidence hit (a quote overlaps the `evidence` string; not labels written for this) | "
                     f"{share(ev)} |")
        lines.append(f"| evidence hit when the evidence is in the sources | "
                     f"{share([bool(r.evidence) for r in rows if r.evidence_reachable])} |")
    lines.append(f"| quotes byte-exact | {sum(r.exact for r in rows)}/{quotes} |")
    lines.append(f"| quotes ending a sentence | {sum(r.whole for r in rows)}/{quotes} |")
    lines.append(f"| lead-in colons turned into full stops | {sum(r.colon_lost for r in rows)} |")
    yn = [r for r in rows if r.expected in ("yes", "no", "unclear")]
    if yn:
        right = sum(r.opening == r.expected for r in yn)
        wrong = sum(r.opening in ("yes", "no") and r.opening != r.expected for r in yn)
        hedged = sum(r.opening == "sources" for r in yn)
        lines.append(f"| yes/no: right Yes/No | {right}/{len(yn)} |")
        lines.append(f"| yes/no: WRONG Yes/No | {wrong}/{len(yn)} |")
        lines.append(f"| yes/no: \"The sources say:\" | {hedged}/{len(yn)} |")
    asked = [r for r in rows if r.kind == "yes_no"]
    if asked and not yn:
        lines.append(f"| yes/no questions (no yes/no labels): opened Yes / No / \"The sources say:\" | "
                     f"{sum(r.opening == 'yes' for r in asked)} / {sum(r.opening == 'no' for r in asked)} / "
                     f"{sum(r.opening == 'sources' for r in asked)} of {len(asked)} |")
    others = [r for r in rows if r.kind != "yes_no" and r.opening]
    lines.append(f"| questions labelled another kind that got a yes/no opening (their wording reads as yes/no) | "
                 f"{len(others)}: {sum(r.opening in ('yes', 'no') for r in others)} Yes/No |")
    lines.append("")
    by_kind: dict[str, list[bool]] = {}
    for r in rows:
        if r.answered is not None:
            by_kind.setdefault(r.kind, []).append(r.answered)
    if by_kind:
        lines.append("| answer kind | answered |")
        lines.append("|---|---|")
        lines += [f"| {k} | {share(v)} |" for k, v in sorted(by_kind.items())]
        lines.append("")
    return lines


GRID = {"dense_weight": (0.0, 0.5, 1.0, 2.0), "kind_weight": (0.0, 0.2, 0.4, 0.8),
        "source_weight": (0.0, 0.3, 1.0)}
MARGINS = {"alt_margin": (0.0, 0.1, 0.2, 0.5), "tie_margin": (0.0, 0.02, 0.05, 0.1)}


def fit(prepared: dict[str, list[Prepared]], embedder) -> int:
    """Evidence hit rate (among the questions whose evidence is in the sources) of every weight
    combination in :data:`GRID`, macro-averaged over the sets (each set counts once, so the set with
    most evidence strings does not decide alone)."""
    from itertools import product

    from anchor_core.ask.writers import ExtractiveWriter

    def measure(w: ExtractiveWriter) -> tuple[float, dict[str, float], int]:
        per, quotes = {}, 0
        for name, preps in prepared.items():
            rows = [run_question(x, lambda x, w=w: w.write(x.q["question"], x.sources, list(x.weights),
                                                           {t: (v or 1.0) for t, v in x.weights.items()},
                                                           units={k: u.text for k, u in x.units.items()}))
                    for x in preps if x.q.get("evidence")]
            hits = [r.evidence for r in rows if r.evidence_reachable]
            per[name] = sum(hits) / len(hits) if hits else float("nan")
            quotes += sum(r.quotes for r in rows)
        return sum(per.values()) / len(per), per, quotes

    results = []
    for dw, kw, sw in product(*GRID.values()):
        macro, per, _ = measure(ExtractiveWriter(embedder=embedder, dense_weight=dw, kind_weight=kw, source_weight=sw))
        results.append((macro, dw, kw, sw, per))
    results.sort(key=lambda r: -r[0])
    print("| dense | kind | source | macro | " + " | ".join(prepared) + " |")
    print("|---|---|---|---|" + "---|" * len(prepared))
    for macro, dw, kw, sw, per in results:
        print(f"| {dw} | {kw} | {sw} | {macro:.3f} | " + " | ".join(f"{v:.3f}" for v in per.values()) + " |")
    # the two margins at the shipped weights; quotes: how many the answers print (the cost of a margin)
    print("\n| alt margin | tie margin | macro | " + " | ".join(prepared) + " | quotes |")
    print("|---|---|---|" + "---|" * len(prepared) + "---|")
    for am, tm in product(*MARGINS.values()):
        macro, per, quotes = measure(ExtractiveWriter(embedder=embedder, alt_margin=am, tie_margin=tm))
        print(f"| {am} | {tm} | {macro:.3f} | " + " | ".join(f"{v:.3f}" for v in per.values()) + f" | {quotes} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", default="aiact,peps,rfc", help=f"comma-separated, from {', '.join(SETS)}")
    p.add_argument("--embedder", default="minilm", choices=["minilm", "hash"])
    p.add_argument("--workspace", type=Path, default=HERE / "results" / "cache")
    p.add_argument("--out", type=Path, default=HERE / "results" / "answers.md")
    p.add_argument("--show", action="store_true", help="print every answer")
    p.add_argument("--fit", action="store_true",
                   help="grid-search the writer's ranking weights on the sets' evidence strings (use sets other "
                        "than the one you report: gdpr,peps,rfc) and print the table")
    p.add_argument("--json", type=Path, default=None, help="also write per-question outcomes here")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    bad = [n for n in names if n not in SETS]
    if bad:
        p.error(f"unknown set(s) {', '.join(bad)}; choose from {', '.join(SETS)}")
    ws = args.workspace / args.embedder
    ws.mkdir(parents=True, exist_ok=True)
    embedder = CachedEmbedder(make_embedder(args.embedder), ws / "embedding-cache.db")
    store = SQLiteStore(ws / "answers.db")
    settings = P.AskSettings(k=5, hops=1, writer="extractive", gate=False)
    report = ["## Latest run (`python -m eval.answers_bench`)", "",
              f"Embedder `{embedder.model_id}`, k=5, one hop, hybrid retrieval, extractive writer, gate off.", ""]
    dump = []
    prepared: dict[str, list[Prepared]] = {}
    for name in names:
        corpus = ensure(store, embedder, name)
        if corpus is None:
            continue
        info = store.corpus(corpus)
        qs = [q for q in load(name) if q["type"] != "unanswerable"]
        t = time.perf_counter()
        preps = [prepare(q, store=store, embedder=embedder, corpus=corpus, info=info, settings=settings) for q in qs]
        prepared[name] = preps
        if args.fit:
            continue
        rows = [run_question(x, pipeline_writer(embedder, settings)) for x in preps]
        ms = (time.perf_counter() - t) * 1000 / max(len(qs), 1)
        lines = summarise(name, rows)
        lines.insert(1, f"{ms:.0f} ms per question (retrieve + write)")
        print("\n".join(lines))
        report += lines
        for r in rows:
            dump.append(r.__dict__)
            if args.show:
                mark = {True: "OK ", False: "MISS", None: "    "}[r.answered]
                print(f"--- {r.qid} [{r.kind}] {mark} {r.notes}\n{r.answer}\n")
    if args.fit:
        return fit(prepared, embedder)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # the hand-written notes above the marker (baseline, how the weights were chosen) are kept
    kept = args.out.read_text(encoding="utf-8").split(MARKER)[0] if args.out.exists() else ""
    args.out.write_text((kept + MARKER + "\n\n" if MARKER in (args.out.read_text(encoding="utf-8")
                         if args.out.exists() else "") else "") + "\n".join(report) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
