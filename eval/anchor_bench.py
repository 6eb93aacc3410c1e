"""Anchoring benchmark: Anchor's ``best_anchor`` vs. the anchorcite baseline, side by side in one run.

    python -m eval.anchor_bench [--scorer learned|lexical] [--embedder] [--limit N]
                                [--sweep-threshold] [--show-errors N] [--no-baseline]

Measures, on the bench data in ``$ANCHOR_BENCH_DATA/bench`` (``eval/data.py``; skipped with a note, exit 0,
when absent):

1. **WiCE claim-level dev** (``wice/claim_dev.jsonl``). Each claim's evidence sentences are joined
   with ``"\\n"`` into one source text (the offsets of every evidence sentence are kept) and the
   claim is anchored in it. Predicted supported = an anchor was returned and it is supported.
   Scored on ``supported`` vs ``not_supported`` claims:

   * precision / recall / F1 of "supported";
   * rejected: share of ``not_supported`` claims predicted unsupported;
   * partial: share of ``partially_supported`` claims predicted supported (reported apart,
     not in P/R: WiCE counts them as neither);
   * exact: returned anchors (on the scored claims) with ``source[start:end] == quote``;
   * touches gold: of the true-supported claims predicted supported, the share whose
     ``[start, end)`` or one of whose extra spans overlaps at least one sentence of any annotated
     supporting set;
   * seconds: wall time of the anchoring loop, models loaded and warmed first.

2. **anchorcite 0.1.0** (core install, its ``LexicalScorer``; ``pip install anchorcite==0.1.0``)
   on the same claims and sources with the same metrics. anchorcite returns an anchor only when
   it is supported, so its "exact" counts the supported anchors only. Its model tier is never
   used (it would download weights). When it cannot be imported the row says why.

3. **ClapNQ answerable dev** (``clapnq/clapnq_answerable_dev.jsonl``). The first non-empty gold
   answer is split into sentences (``anchor_core.segment.split_sentences``) and each is anchored
   in ``passages[0].text``. overlap = share of answer sentences whose anchor overlaps one of the
   answer's ``selected_sentences`` (located in the passage by exact string search; rows where
   none is found are skipped and counted); supported = share anchored as supported;
   overlap|supported = overlap among the supported anchors.

``--sweep-threshold`` re-thresholds the stored best-candidate score of every WiCE claim (no
recomputation; verbatim anchors score 1.0) and prints precision / recall / rejected per threshold.
These are DEV-SET numbers: the shipped thresholds were calibrated on these same claims.

Results go to ``eval/results/anchor_bench.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from eval.data import BENCH

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_DATA = BENCH
WICE = Path("wice") / "claim_dev.jsonl"
CLAPNQ = Path("clapnq") / "clapnq_answerable_dev.jsonl"
RESULTS = HERE / "results"
ANCHORCITE_VERSION = "0.1.0"

SUPPORTED, PARTIAL, NOT_SUPPORTED = "supported", "partially_supported", "not_supported"


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------


@dataclass
class WiceItem:
    """One WiCE claim with its evidence joined into one source text."""

    idx: int
    claim: str
    label: str
    source: str
    spans: list[tuple[int, int]]
    """``source[s:e]`` of every evidence sentence, in evidence order."""
    gold: list[list[int]]
    """Alternative sets of supporting evidence indices (empty sets dropped)."""

    @property
    def gold_spans(self) -> list[tuple[int, int]]:
        idx = sorted({i for g in self.gold for i in g})
        return [self.spans[i] for i in idx if 0 <= i < len(self.spans)]


def join_evidence(evidence: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The evidence sentences joined with ``"\\n"`` and the offsets of each one."""
    spans, pos = [], 0
    for sent in evidence:
        spans.append((pos, pos + len(sent)))
        pos += len(sent) + 1
    return "\n".join(evidence), spans


def wice_items(rows: Iterable[dict]) -> list[WiceItem]:
    items = []
    for i, r in enumerate(rows):
        source, spans = join_evidence(r["evidence"])
        gold = [list(g) for g in r.get("supporting_sentences") or [] if g]
        items.append(WiceItem(i, r["claim"], r["label"], source, spans, gold))
    return items


@dataclass
class ClapItem:
    """One answerable ClapNQ row: answer sentences to anchor in the passage."""

    id: str
    passage: str
    sentences: list[str]
    selected: list[tuple[int, int]]
    """Spans of the selected sentences found in the passage by exact search."""


def clapnq_items(rows: Iterable[dict], split: Callable[[str], list[str]]) -> tuple[list[ClapItem], dict[str, int]]:
    """Items of the answerable rows; counts of rows skipped (no answer, selected sentences not found)."""
    items: list[ClapItem] = []
    skipped = {"no_answer": 0, "selected_not_found": 0, "no_passage": 0}
    for r in rows:
        passages = r.get("passages") or []
        if not passages or not (passages[0].get("text") or "").strip():
            skipped["no_passage"] += 1
            continue
        out = next((o for o in r.get("output") or [] if (o.get("answer") or "").strip()), None)
        if out is None:
            skipped["no_answer"] += 1
            continue
        text = passages[0]["text"]
        selected = []
        for s in out.get("selected_sentences") or []:
            s = s.strip()
            pos = text.find(s) if s else -1
            if pos >= 0:
                selected.append((pos, pos + len(s)))
        if not selected:
            skipped["selected_not_found"] += 1
            continue
        sents = [s for s in split(out["answer"]) if s.strip()]
        items.append(ClapItem(str(r.get("id", len(items))), text, sents, selected))
    return items, skipped


def read_jsonl(path: Path, limit: int | None = None) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
                if limit is not None and len(rows) >= limit:
                    break
    return rows


# --------------------------------------------------------------------------------------
# Predictions and metrics
# --------------------------------------------------------------------------------------


@dataclass
class Pred:
    """What an anchorer said about one claim in one source."""

    supported: bool = False
    start: int | None = None
    end: int | None = None
    quote: str | None = None
    score: float | None = None
    method: str | None = None
    reasons: list[str] = field(default_factory=list)
    error: str | None = None
    extra: list[tuple[int, int]] = field(default_factory=list)
    """Offsets of secondary evidence spans (Anchor.extra_spans), if any."""
    extra_quotes: list[str] = field(default_factory=list)

    @property
    def returned(self) -> bool:
        return self.start is not None and self.end is not None

    def exact(self, source: str) -> bool:
        """The quote and every extra span are ``source[start:end]``."""
        return (self.returned and source[self.start:self.end] == self.quote
                and all(source[s:e] == q for (s, e), q in zip(self.extra, self.extra_quotes, strict=True)))

    def overlaps(self, spans: Iterable[tuple[int, int]]) -> bool:
        """The quote or one of the extra spans overlaps one of ``spans``."""
        mine = [(self.start, self.end), *self.extra] if self.returned else []
        return any(a < e and s < b for s, e in spans for a, b in mine)


Anchorer = Callable[[str, str], Pred]


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _f1(p: float | None, r: float | None) -> float | None:
    if not p or not r:
        return 0.0 if p is not None and r is not None else None
    return round(2 * p * r / (p + r), 4)


def classify(items: Sequence[WiceItem], supported: Sequence[bool]) -> dict[str, Any]:
    """Precision / recall / F1 / rejected / partial for one verdict per item."""
    tp = sum(1 for it, s in zip(items, supported) if it.label == SUPPORTED and s)
    fn = sum(1 for it, s in zip(items, supported) if it.label == SUPPORTED and not s)
    fp = sum(1 for it, s in zip(items, supported) if it.label == NOT_SUPPORTED and s)
    tn = sum(1 for it, s in zip(items, supported) if it.label == NOT_SUPPORTED and not s)
    n_part = sum(1 for it in items if it.label == PARTIAL)
    part_sup = sum(1 for it, s in zip(items, supported) if it.label == PARTIAL and s)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "precision": precision, "recall": recall,
            "f1": _f1(precision, recall), "rejected": _ratio(tn, tn + fp),
            "partial": _ratio(part_sup, n_part), "partial_supported": part_sup, "n_partial": n_part}


def wice_metrics(items: Sequence[WiceItem], preds: Sequence[Pred]) -> dict[str, Any]:
    """All WiCE metrics of one anchorer (see the module docstring)."""
    if len(items) != len(preds):
        raise ValueError(f"{len(items)} items but {len(preds)} predictions")
    out = classify(items, [p.supported for p in preds])
    scored = [(it, p) for it, p in zip(items, preds) if it.label in (SUPPORTED, NOT_SUPPORTED)]
    returned = [(it, p) for it, p in scored if p.returned]
    exact = sum(1 for it, p in returned if p.exact(it.source))
    tps = [(it, p) for it, p in scored if it.label == SUPPORTED and p.supported]
    touches = sum(1 for it, p in tps if p.overlaps(it.gold_spans))
    shares = [gold_share(p, it.gold_spans) for it, p in tps if p.returned]
    lengths = sorted(p.end - p.start for _, p in tps if p.returned)
    out.update({
        "n_supported": sum(1 for it, _ in scored if it.label == SUPPORTED),
        "n_not_supported": sum(1 for it, _ in scored if it.label == NOT_SUPPORTED),
        "exact": exact, "returned": len(returned), "exact_rate": _ratio(exact, len(returned)),
        "touches_gold": _ratio(touches, len(tps)), "touches_gold_count": touches,
        "in_gold_share": round(sum(shares) / len(shares), 4) if shares else None,
        "quote_chars_median": lengths[len(lengths) // 2] if lengths else None,
        "exact_all_labels": sum(1 for it, p in zip(items, preds) if p.exact(it.source)),
        "returned_all_labels": sum(1 for p in preds if p.returned),
        "errors": sum(1 for p in preds if p.error),
    })
    return out


def gold_share(p: Pred, gold: Iterable[tuple[int, int]]) -> float:
    """Share of the quote's characters that lie inside gold sentences (gold spans are disjoint)."""
    if not p.returned or p.end <= p.start:
        return 0.0
    inside = sum(max(0, min(p.end, e) - max(p.start, s)) for s, e in gold)
    return inside / (p.end - p.start)


def sweep(items: Sequence[WiceItem], preds: Sequence[Pred], thresholds: Iterable[float]) -> list[dict[str, Any]]:
    """Re-threshold the stored best-candidate scores: supported = returned and score >= t.
    Verbatim anchors carry score 1.0 and so stay supported at every threshold."""
    rows = []
    for t in thresholds:
        verdicts = [p.returned and p.score is not None and p.score >= t for p in preds]
        m = classify(items, verdicts)
        rows.append({"threshold": round(float(t), 4), **{k: m[k] for k in
                     ("precision", "recall", "f1", "rejected", "partial", "tp", "fp")}})
    return rows


def clapnq_metrics(items: Sequence[ClapItem], preds: Sequence[Sequence[Pred]]) -> dict[str, Any]:
    """overlap = answer sentences whose anchor overlaps a selected sentence / all answer sentences."""
    n = overlap = supported = sup_overlap = exact = returned = 0
    for it, ps in zip(items, preds, strict=True):
        for p in ps:
            n += 1
            hit = p.overlaps(it.selected)
            overlap += hit
            supported += p.supported
            sup_overlap += hit and p.supported
            returned += p.returned
            exact += p.exact(it.passage)
    return {"rows": len(items), "sentences": n, "overlap": _ratio(overlap, n), "supported": _ratio(supported, n),
            "overlap_given_supported": _ratio(sup_overlap, supported), "exact": exact, "returned": returned}


# --------------------------------------------------------------------------------------
# Anchorers
# --------------------------------------------------------------------------------------


def anchor_anchorer(scorer: Any, embedder: Any) -> Anchorer:
    """Anchor's ``best_anchor`` as an :data:`Anchorer`."""
    from anchor_core.anchoring import best_anchor

    def run(claim: str, source: str) -> Pred:
        a = best_anchor(claim, source, scorer=scorer, embedder=embedder)
        if a is None:
            return Pred()
        return Pred(a.supported, a.start, a.end, a.quote, float(a.score), a.method, list(a.reasons),
                    extra=[(x.start, x.end) for x in a.extra_spans], extra_quotes=[x.quote for x in a.extra_spans])

    return run


def anchorcite_anchorer() -> Anchorer:
    """anchorcite 0.1.0 core (its LexicalScorer at its own default threshold and window).

    The scorer is given explicitly: ``make_default_scorer`` picks the MiniCheck model tier whenever
    torch and sentence-transformers import, and that would try to download weights."""
    try:  # an optional baseline, not a dependency: without it the bench prints a row saying so
        import anchorcite
        from anchorcite import CitationAnchorer, LexicalScorer
    except ImportError:
        raise RuntimeError(f"anchorcite is not installed (pip install anchorcite=={ANCHORCITE_VERSION}); "
                           "the baseline row is skipped") from None

    version = getattr(anchorcite, "__version__", "?")
    if version != ANCHORCITE_VERSION:
        print(f"note: anchorcite {version} installed, the baseline was specified at {ANCHORCITE_VERSION}",
              file=sys.stderr)
    anchorer = CitationAnchorer(scorer=LexicalScorer())

    def run(claim: str, source: str) -> Pred:
        a = anchorer.anchor(claim, source)
        if a is None:
            return Pred()
        return Pred(True, a.start_offset, a.end_offset, a.claim, float(a.score),
                    "verbatim" if a.passage_idx is None else "lexical")

    return run


def run_all(anchorer: Anchorer, pairs: Sequence[tuple[str, str]],
            progress: Callable[[int, float], None] | None = None) -> tuple[list[Pred], float]:
    """Anchor every (claim, source) pair; an exception is recorded as an unsupported, unreturned Pred."""
    preds = []
    t0 = time.perf_counter()
    for i, (claim, source) in enumerate(pairs):
        if progress is not None and i and i % 50 == 0:
            progress(i, time.perf_counter() - t0)
        try:
            preds.append(anchorer(claim, source))
        except Exception as err:  # noqa: BLE001 - one bad row must not end the benchmark
            preds.append(Pred(error=f"{type(err).__name__}: {err}"))
    return preds, round(time.perf_counter() - t0, 2)


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def wice_table(rows: dict[str, dict[str, Any]]) -> str:
    head = ("| system | precision | recall | F1 | rejected | partial→sup | exact | touches gold | in gold | "
            "quote chars | seconds |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for name, r in rows.items():
        if "unavailable" in r:
            lines.append(f"| {name} | unavailable: {r['unavailable']} |||||||||| ")
            continue
        m = r["metrics"]
        lines.append(f"| {name} | {_fmt(m['precision'])} | {_fmt(m['recall'])} | {_fmt(m['f1'])} | "
                     f"{_fmt(m['rejected'])} | {_fmt(m['partial'])} | {m['exact']}/{m['returned']} | "
                     f"{_fmt(m['touches_gold'], 2)} | {_fmt(m['in_gold_share'], 2)} | "
                     f"{_fmt(m['quote_chars_median'])} | {_fmt(r['seconds'], 1)} |")
    return "\n".join(lines)


def clapnq_table(rows: dict[str, dict[str, Any]]) -> str:
    lines = ["| system | rows | answer sentences | overlap | supported | overlap\\|supported | exact | seconds |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in rows.items():
        if "unavailable" in r:
            lines.append(f"| {name} | unavailable: {r['unavailable']} ||||||| ")
            continue
        m = r["metrics"]
        lines.append(f"| {name} | {m['rows']} | {m['sentences']} | {_fmt(m['overlap'])} | {_fmt(m['supported'])} | "
                     f"{_fmt(m['overlap_given_supported'])} | {m['exact']}/{m['returned']} | "
                     f"{_fmt(r['seconds'], 1)} |")
    return "\n".join(lines)


def sweep_table(rows: list[dict[str, Any]], current: float | None) -> str:
    lines = ["| threshold | precision | recall | F1 | rejected | partial→sup |", "|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        mark = " ←" if current is not None and abs(r["threshold"] - current) < 1e-9 else ""
        lines.append(f"| {r['threshold']:.3f}{mark} | {_fmt(r['precision'])} | {_fmt(r['recall'])} | "
                     f"{_fmt(r['f1'])} | {_fmt(r['rejected'])} | {_fmt(r['partial'])} |")
    return "\n".join(lines)


def _short(text: str | None, n: int = 220) -> str:
    if text is None:
        return "—"
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def error_examples(items: Sequence[WiceItem], preds: Sequence[Pred], n: int) -> dict[str, list[dict[str, Any]]]:
    """The first ``n`` false positives and false negatives, with the gold sentences."""
    out: dict[str, list[dict[str, Any]]] = {"false_positives": [], "false_negatives": []}
    for it, p in zip(items, preds):
        kind = ("false_positives" if it.label == NOT_SUPPORTED and p.supported else
                "false_negatives" if it.label == SUPPORTED and not p.supported else None)
        if kind is None or len(out[kind]) >= n:
            continue
        gold = it.gold[0] if it.gold else []
        out[kind].append({
            "idx": it.idx, "claim": it.claim, "quote": _short(p.quote, 400), "score": p.score,
            "method": p.method, "reasons": p.reasons[:4], "touches_gold": p.overlaps(it.gold_spans),
            "gold": [_short(it.source[slice(*it.spans[i])], 300) for i in gold[:4]], "error": p.error,
        })
    return out


def print_examples(ex: dict[str, list[dict[str, Any]]]) -> None:
    for kind, rows in ex.items():
        print(f"\n## {kind.replace('_', ' ')} ({len(rows)})")
        for r in rows:
            print(f"\n[{r['idx']}] claim: {_short(r['claim'], 300)}")
            print(f"    quote ({r['method']}, score {r['score']}, touches gold: {r['touches_gold']}): "
                  f"{_short(r['quote'])}")
            if r["reasons"]:
                print(f"    reasons: {'; '.join(r['reasons'])}")
            for g in r["gold"]:
                print(f"    gold: {_short(g)}")
            if r["error"]:
                print(f"    error: {r['error']}")


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "load_avg": [round(x, 2) for x in load] if load else None,
            "python": platform.python_version(), "platform": platform.platform()}


def code_fingerprint() -> str:
    """A short hash of anchor_core's Python sources and scorer parameters: anchoring code changes often,
    so a result says which version it measured."""
    h = hashlib.sha256()
    root = REPO / "anchor_core"
    for path in sorted([*root.rglob("*.py"), *root.glob("scorers/data/*.json")]):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return None


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def build(scorer_name: str, use_embedder: bool, embed_cache: Path | None = None) -> tuple[Any, Any, str]:
    """The scorer and embedder, loaded and warmed, and a label for the row."""
    from anchor_core.anchoring import best_anchor
    from anchor_core.scorers import build_scorer

    embedder = None
    if use_embedder:
        from anchor_core.embeddings import MiniLMEmbedder

        embedder = MiniLMEmbedder()
        if embed_cache is not None:
            from anchor_core.embed_cache import CachedEmbedder

            embedder = CachedEmbedder(embedder, embed_cache)
    scorer = build_scorer(scorer_name, embedder=embedder)
    # Warm: load the model, import the lazy modules, run one anchoring end to end.
    if embedder is not None:
        embedder.embed(["warm up the embedding model"])
    best_anchor("The warm-up claim is about cats.", "Cats sleep a lot. The warm-up text is about cats.",
                scorer=scorer, embedder=embedder)
    label = f"anchor ({scorer_name}{', MiniLM' if embedder is not None else ', no embedder'})"
    return scorer, embedder, label


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.anchor_bench", description=__doc__.split("\n\n")[0])
    from anchor_core.scorers import DEFAULT_SCORER, scorer_names

    # The scorers that need nothing the bench lacks (no LLM, no local NLI model folder).
    p.add_argument("--scorer", choices=scorer_names(), default=DEFAULT_SCORER)
    p.add_argument("--embedder", action="store_true",
                   help="add MiniLM (dense candidates and the embedding feature); about 18 minutes on 2 cores")
    p.add_argument("--no-embedder", action="store_true", help="the default (kept for old scripts)")
    p.add_argument("--limit", type=int, default=None, help="first N rows of each data file")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the bench data folder")
    p.add_argument("--sweep-threshold", action="store_true",
                   help="precision/recall/rejected per threshold on WiCE (dev-set numbers)")
    p.add_argument("--show-errors", type=int, default=0, metavar="N",
                   help="print N false positives and N false negatives of Anchor on WiCE")
    p.add_argument("--skip-partial", action="store_true",
                   help="leave out WiCE partially_supported claims (over half of the file; P/R need none of them)")
    p.add_argument("--no-baseline", action="store_true", help="skip anchorcite")
    p.add_argument("--no-clapnq", action="store_true", help="skip ClapNQ")
    p.add_argument("--embed-cache", type=Path, default=None, metavar="DB",
                   help="reuse MiniLM vectors from this SQLite cache (for reruns: timings are then not comparable)")
    p.add_argument("--out", type=Path, default=RESULTS / "anchor_bench", help="output path without suffix")
    args = p.parse_args(argv)

    wice_path = args.data / WICE
    if not wice_path.exists():
        print(f"note: {wice_path} is absent (set ANCHOR_BENCH_DATA to the benchmark data folder): "
              "nothing to benchmark, skipping.")
        return 0

    started = dt.datetime.now().astimezone()
    mach_start = machine()
    try:
        scorer, embedder, label = build(args.scorer, args.embedder and not args.no_embedder, args.embed_cache)
    except Exception as err:  # noqa: BLE001 - say what is missing and stop
        print(f"error: cannot build the {args.scorer} scorer: {type(err).__name__}: {err}", file=sys.stderr)
        return 2
    threshold = float(scorer.threshold)
    params_sha = _sha(REPO / "anchor_core" / "scorers" / "data" / f"{args.scorer}.json")
    code_sha = code_fingerprint()
    print(f"{label}: threshold {threshold:.4f}; load average {mach_start['load_avg']} on {mach_start['cpus']} cores",
          flush=True)

    systems: dict[str, Anchorer | str] = {label: anchor_anchorer(scorer, embedder)}
    baseline = f"anchorcite {ANCHORCITE_VERSION} (core, lexical)"
    if not args.no_baseline:
        try:
            systems[baseline] = anchorcite_anchorer()
        except Exception as err:  # noqa: BLE001 - an unavailable baseline is a row, not a failure
            systems[baseline] = f"{type(err).__name__}: {err}"

    # WiCE
    items = wice_items(read_jsonl(wice_path, args.limit))
    if args.skip_partial:
        items = [it for it in items if it.label != PARTIAL]
    pairs = [(it.claim, it.source) for it in items]
    wice_rows: dict[str, dict[str, Any]] = {}
    wice_preds: dict[str, list[Pred]] = {}
    for name, anchorer in systems.items():
        if isinstance(anchorer, str):
            wice_rows[name] = {"unavailable": anchorer}
            continue
        print(f"WiCE: {name} on {len(items)} claims …", flush=True)
        preds, secs = run_all(anchorer, pairs, _progress)
        wice_preds[name] = preds
        wice_rows[name] = {"metrics": wice_metrics(items, preds), "seconds": secs}
    print("\nWiCE claim-level dev (supported vs not_supported; partial→sup = partially_supported predicted "
          "supported)\n")
    print(wice_table(wice_rows))

    # ClapNQ
    clap_rows: dict[str, dict[str, Any]] = {}
    clap_skipped: dict[str, int] = {}
    clap_path = args.data / CLAPNQ
    if not args.no_clapnq and clap_path.exists():
        from anchor_core.segment import split_sentences

        citems, clap_skipped = clapnq_items(read_jsonl(clap_path, args.limit),
                                            lambda t: [s.text for s in split_sentences(t)])
        flat = [(s, it.passage) for it in citems for s in it.sentences]
        for name, anchorer in systems.items():
            if isinstance(anchorer, str):
                clap_rows[name] = {"unavailable": anchorer}
                continue
            print(f"ClapNQ: {name} on {len(flat)} answer sentences …", flush=True)
            preds, secs = run_all(anchorer, flat, _progress)
            grouped, k = [], 0
            for it in citems:
                grouped.append(preds[k:k + len(it.sentences)])
                k += len(it.sentences)
            clap_rows[name] = {"metrics": clapnq_metrics(citems, grouped), "seconds": secs}
        print(f"\nClapNQ answerable dev (rows skipped: {clap_skipped})\n")
        print(clapnq_table(clap_rows))
    elif not args.no_clapnq:
        print(f"\nnote: {clap_path} is absent; ClapNQ skipped")

    # Sweep
    sweep_rows: list[dict[str, Any]] = []
    if args.sweep_threshold and label in wice_preds:
        grid = sorted({round(x / 100, 2) for x in range(5, 100, 5)} | {round(threshold, 4)})
        sweep_rows = sweep(items, wice_preds[label], grid)
        print(f"\nThreshold sweep of {label} on WiCE claim dev — DEV-SET numbers (the shipped threshold was "
              f"calibrated on these claims; ← = current {threshold:.4f})\n")
        print(sweep_table(sweep_rows, round(threshold, 4)))

    examples = error_examples(items, wice_preds[label], args.show_errors) if label in wice_preds else {}
    if args.show_errors and examples:
        print_examples(examples)

    mach_end = machine()
    record = {
        "date": started.isoformat(timespec="seconds"),
        "machine": {"cpus": mach_start["cpus"], "python": mach_start["python"], "platform": mach_start["platform"],
                    "load_avg_start": mach_start["load_avg"], "load_avg_end": mach_end["load_avg"]},
        "embed_cache": str(args.embed_cache) if args.embed_cache else None,
        "scorer": args.scorer, "threshold": threshold, "embedder": getattr(embedder, "model_id", None),
        "scorer_params_sha": params_sha, "anchor_core_sha": code_sha,
        "limit": args.limit, "skip_partial": args.skip_partial,
        "wice": {"file": str(WICE), "claims": len(items), "systems": wice_rows},
        "clapnq": {"file": str(CLAPNQ), "skipped": clap_skipped, "systems": clap_rows},
        "sweep": sweep_rows,
        "examples": examples,
        "wice_predictions": {name: [{"idx": it.idx, "label": it.label, **_compact(p)} for it, p in zip(items, ps)]
                             for name, ps in wice_preds.items()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
    md = [f"# Anchoring benchmark ({record['date']})", "",
          f"Machine: {record['machine']['cpus']} cores, load average {record['machine']['load_avg_start']} at start, "
          f"{record['machine']['load_avg_end']} at end; Python {record['machine']['python']}. "
          f"anchor_core {code_sha}; scorer {args.scorer} (threshold {threshold:.4f}, params {params_sha}), "
          f"embedder {record['embedder']}." + (f" Limit {args.limit} rows." if args.limit else "")
          + (" Partially supported claims left out." if args.skip_partial else "")
          + (f" Embeddings read from the cache {args.embed_cache}: seconds are not comparable."
             if args.embed_cache else ""), "",
          f"## WiCE claim-level dev ({len(items)} claims)", "", wice_table(wice_rows)]
    if clap_rows:
        md += ["", f"## ClapNQ answerable dev (skipped: {clap_skipped})", "", clapnq_table(clap_rows)]
    if sweep_rows:
        md += ["", "## Threshold sweep — dev-set numbers", "", sweep_table(sweep_rows, round(threshold, 4))]
    args.out.with_suffix(".md").write_text("\n".join(md) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out.with_suffix('.json')} and {args.out.with_suffix('.md')}")
    return 0


def _progress(done: int, secs: float) -> None:
    print(f"  … {done} done in {secs:.0f} s", file=sys.stderr, flush=True)


def _compact(p: Pred) -> dict[str, Any]:
    d = asdict(p)
    d.pop("quote")
    d.pop("extra_quotes")
    d["reasons"] = d["reasons"][:3]
    return {k: v for k, v in d.items() if v not in (None, [])}


if __name__ == "__main__":
    sys.exit(main())
