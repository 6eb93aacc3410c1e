"""Sentence segmenter benchmark: our rules vs. maintained libraries.

    python -m eval.segmenter_bench            # all segmenters that are installed
    python -m eval.segmenter_bench --show-failures

Three measurements for each segmenter:

* **tricky**: hand-written cases for the phenomena of our sources (enumerations,
  abbreviations, section numbers, quotes after the full stop, wrapped PDF lines, headings,
  glued sentences). A case passes when its boundaries are recovered exactly; boundary
  precision and recall are summed over all cases.
* **WiCE**: the dev evidence of WiCE (``$ANCHOR_BENCH_DATA/bench/wice/claim_dev.jsonl``), each
  row's sentences joined by a space; boundary precision and recall of the join points. Half
  of the gold boundaries follow unpunctuated web headings and menus ("Skip to content Media
  Play News") that no segmenter can recover from space-joined text, so overall recall is
  capped near 0.5; ``R after .!?`` is the recall over the boundaries after a sentence that
  ends in ``.``, ``!`` or ``?``. Skipped when the data is absent.
* **speed**: characters per second over the AI Act (``ingest/data/aiact``).

Segmenters: ``rules`` (``anchor_core.segment``), ``pysbd`` (0.3.4) and ``syntok`` (1.4.4)
alone, and ``<lib>+lines``: our block and line rules with the library as the in-line splitter.
A library that is not installed is skipped with a note. pysbd is slow (it takes most of
the ~5 CPU-minutes a full run needs); ``--segmenters rules,syntok`` runs a subset. Library
output is mapped back to offsets by searching each sentence from the previous one's end, so
every segmenter is scored on the same offsets.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from anchor_core.segment import _split, split_sentences
from eval.data import BENCH

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WICE = BENCH / "wice" / "claim_dev.jsonl"
AIACT = REPO / "ingest" / "data" / "aiact" / "eu-ai-act-full.md"

Spans = list[tuple[int, int]]
Segmenter = Callable[[str], Spans]

# Each case is its expected sentences, given as the pieces of the text: the text is the
# pieces concatenated, and a sentence starts at the first non-space character of each piece.
TRICKY: list[tuple[str, list[str]]] = [
    (
        "enum items on lines",
        [
            "the following conditions are fulfilled:\n",
            "(a) the AI system is a product;\n",
            "(b) the product is assessed; or\n",
            "(c) it is a component.",
        ],
    ),
    (
        "enum items AI Act style",
        [
            "conditions:\n\n",
            "(a)   the AI system is intended to be used;  \n  \n",
            "(b)   the product is required to undergo an assessment.  \n",
        ],
    ),
    (
        "inline points no split",
        ["The products referred to in points (a) and (b) of Article 6(1) are covered. ", "This applies from 2026."],
    ),
    (
        "inline enumeration after colon",
        ["It applies where: ", "(a) the system is used; ", "(b) it is sold; or ", "(c) it is imported."],
    ),
    (
        "roman items",
        [
            "the purposes are:\n",
            "(i) prevention of crime;\n",
            "(ii) detection of fraud;\n",
            "(iii) search for victims.",
        ],
    ),
    (
        "numbered paragraphs",
        [
            "1. Providers shall keep the logs.\n",
            "2. Deployers shall monitor the system.\n",
            "3. Importers shall verify it.",
        ],
    ),
    ("section numbers", ["See Section 4.1.2 for the request. ", "Section 4.1.3 defines the response."]),
    (
        "section heading lines",
        [
            "The client is then redirected.\n",
            "4.1.2.  Authorization Response\n",
            "If the resource owner grants the request, the server issues a code.",
        ],
    ),
    ("Art. abbreviation", ["As laid down in Art. 5 of the Regulation, the practice is banned. ", "It is clear."]),
    ("No. abbreviation", ["Regulation (EC) No. 765/2008 sets out accreditation rules. ", "It was amended."]),
    (
        "e.g. and i.e.",
        ["Some data, e.g. biometric data, is sensitive, i.e. special category data. ", "Care is needed."],
    ),
    ("et al.", ["Smith et al. found a large effect in 2019. ", "Others did not."]),
    ("Dr. and initials", ["Dr. J. Smith and Prof. A. Jones wrote the report. ", "It was long."]),
    ("U.S. inside", ["The U.S. Department of Commerce agreed. ", "The EU did not."]),
    ("U.S. at end", ["He moved to the U.S. ", "The company followed him."]),
    ("Inc. inside", ["Apple Inc. Research published it. ", "Nobody read it."]),
    ("Inc. at end", ["The model was made by Example Inc. ", "The company is small."]),
    ("vs. and cf.", ["Compare rule-based vs. learned splitters, cf. Section 3. ", "Results follow."]),
    ("para. and pp.", ["As stated in para. 3 and on pp. 12-14 of the report, it holds. ", "Next point."]),
    ("p. in citation", ["(OJ L 218, 13.8.2008, p. 30). ", "That act is repealed."]),
    ("decimal and percent", ["The fine is up to 3.5 % of turnover. ", "It can be EUR 35 000 000."]),
    ("version number", ["Use OAuth v2.0 for this. ", "Version 1.0 is obsolete."]),
    ("quote after stop", ['He said "the system is unsafe." ', "Then he left."]),
    ("curly quote after stop", ["The term means “the provider.” ", "It is defined in Article 3."]),
    ("bracket after stop", ["(This is covered by Article 5.) ", "Next sentence starts here."]),
    ("question and exclamation", ["Is the system high-risk? ", "Yes! ", "It is listed in Annex III."]),
    ("Annex I. at end", ["The product is listed in Annex I. ", "The AI system is a component."]),
    (
        "wrapped lines",
        [
            "The provider shall ensure that the system\nis designed and developed in such a way\n"
            "that it can be overseen. ",
            "Deployers shall\nuse it accordingly.",
        ],
    ),
    ("blank line boundary", ["Introduction to the rules\n\n", "The rules apply to providers."]),
    (
        "heading before text",
        [
            "Article 6\n\n",
            "Classification rules for high-risk AI systems\n\n",
            "An AI system shall be considered to be high-risk.",
        ],
    ),
    ("heading line then text", ["Risk Management System\n", "A risk management system shall be established."]),
    ("glued sentences", ["The report ends here.", "Next comes the annex."]),
    (
        "semicolon items with and",
        ["(a) the name of the provider;\n", "(b) the address of the provider; and\n", "(c) the date."],
    ),
    ("dash bullets", ["It covers:\n", "— the provider;\n", "— the deployer;\n", "— the importer."]),
    (
        "wrapped reference lines",
        ["The obligations referred to in points\n(a) and (b) of paragraph 1 shall apply. ", "They end in 2030."],
    ),
    ("RFC reference", ["The client is described in [RFC6749]. ", "See Section 10 of [RFC6750] for details."]),
    ("ellipsis", ["The list goes on... ", "But it ends."]),
    ("number at sentence end", ["The regulation was adopted in 2024. ", "25 Member States agreed."]),
    ("markdown heading inline", ["Skip to content ", "# About Us Media Play News is the voice of the industry."]),
    ("Fig. and Eq.", ["As shown in Fig. 3 and Eq. 2, the loss falls. ", "We stop."]),
    ("months", ["It was signed on Jan. 5, 2020 in Paris. ", "It entered into force later."]),
    ("page footer between lines", ["The provider shall register.\n", "Page 3 of 10\n", "The deployer shall not."]),
]


@dataclass
class Score:
    tp: int = 0
    predicted: int = 0
    gold: int = 0

    def add(self, predicted: set[int], gold: set[int]) -> None:
        self.tp += len(predicted & gold)
        self.predicted += len(predicted)
        self.gold += len(gold)

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 1.0


def case_text(parts: list[str]) -> tuple[str, set[int]]:
    text = "".join(parts)
    starts, pos = set(), 0
    for k, part in enumerate(parts):
        lead = len(part) - len(part.lstrip())
        if k:
            starts.add(pos + lead)
        pos += len(part)
    return text, starts


def _starts(spans: Spans) -> set[int]:
    return {a for a, _ in spans[1:]}


def _align(text: str, pieces: list[str]) -> Spans:
    """Offsets of library sentences, found in order; a sentence that cannot be found is dropped."""
    spans: Spans = []
    cursor = 0
    for piece in pieces:
        needle = piece.strip()
        if not needle:
            continue
        at = text.find(needle, cursor)
        if at < 0:
            continue
        spans.append((at, at + len(needle)))
        cursor = at + len(needle)
    return spans


def rules(text: str) -> Spans:
    return [(s.start, s.end) for s in split_sentences(text)]


def _library_segmenters() -> tuple[dict[str, Segmenter], list[str]]:
    found: dict[str, Segmenter] = {}
    notes: list[str] = []
    try:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False)

        def pysbd_alone(text: str) -> Spans:
            return _align(text, seg.segment(text))

        def pysbd_inline(text: str, a: int, b: int) -> list[int]:
            # Newlines inside a run are line wraps; pysbd would split at each of them.
            chunk = text[a:b].replace("\n", " ")
            return [a + s for s, _ in _align(chunk, seg.segment(chunk))[1:]]

        found["pysbd"] = pysbd_alone
        found["pysbd+lines"] = lambda text: [(s.start, s.end) for s in _split(text, pysbd_inline)]
    except ImportError:
        notes.append("pysbd not installed (pip install pysbd==0.3.4): skipped")
    try:
        import syntok.segmenter as syntok_segmenter

        def syntok_spans(text: str) -> Spans:
            spans: Spans = []
            for paragraph in syntok_segmenter.analyze(text):
                for sentence in paragraph:
                    if sentence:
                        spans.append((sentence[0].offset, sentence[-1].offset + len(sentence[-1].value)))
            return spans

        def syntok_inline(text: str, a: int, b: int) -> list[int]:
            return [a + s for s, _ in syntok_spans(text[a:b])[1:]]

        found["syntok"] = syntok_spans
        found["syntok+lines"] = lambda text: [(s.start, s.end) for s in _split(text, syntok_inline)]
    except ImportError:
        notes.append("syntok not installed (pip install syntok==1.4.4): skipped")
    return found, notes


def bench_tricky(segment: Segmenter) -> tuple[int, Score, list[str]]:
    score, passed, failures = Score(), 0, []
    for name, parts in TRICKY:
        text, gold = case_text(parts)
        predicted = _starts(segment(text))
        score.add(predicted, gold)
        if predicted == gold:
            passed += 1
        else:
            cuts = sorted(predicted | {0, len(text)})
            got = [text[a:b].strip() for a, b in zip(cuts, cuts[1:])]
            failures.append(f"{name}: {got!r}")
    return passed, score, failures


def load_wice() -> list[list[str]] | None:
    if not WICE.exists():
        return None
    rows = [json.loads(line) for line in WICE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [[e for e in row["evidence"] if e.strip()] for row in rows]


_TERMINAL = re.compile(r"[.!?…][\"'”’)\]]*$")


def bench_wice(segment: Segmenter, docs: list[list[str]]) -> tuple[Score, Score]:
    """Boundary scores over all join points, and over those after a sentence ending in . ! or ?"""
    score, punctuated = Score(), Score()
    for evidence in docs:
        text, gold = case_text([e if k == len(evidence) - 1 else e + " " for k, e in enumerate(evidence)])
        predicted = _starts(segment(text))
        score.add(predicted, gold)
        ends, pos = set(), 0
        for e in evidence[:-1]:
            pos += len(e) + 1
            if _TERMINAL.search(e.rstrip()):
                ends.add(pos)
        punctuated.tp += len(predicted & ends)
        punctuated.gold += len(ends)
    return score, punctuated


def bench_speed(segment: Segmenter, text: str, budget_s: float = 15.0) -> float:
    """Characters per second; a segmenter too slow for the whole text is timed on a prefix."""
    started = time.perf_counter()
    segment(text[:20_000])
    projected = (time.perf_counter() - started) * len(text) / 20_000
    sample = text if projected <= budget_s else text[: int(len(text) * budget_s / projected)]
    started = time.perf_counter()
    segment(sample)
    return len(sample) / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-failures", action="store_true", help="print the tricky cases each segmenter fails")
    parser.add_argument("--segmenters", help="comma-separated names to run (default: all installed)")
    args = parser.parse_args(argv)

    libraries, notes = _library_segmenters()
    segmenters: dict[str, Segmenter] = {"rules": rules, **libraries}
    if args.segmenters:
        wanted = [name.strip() for name in args.segmenters.split(",") if name.strip()]
        unknown = sorted(set(wanted) - set(segmenters))
        if unknown:
            parser.error(f"unknown or uninstalled segmenters {unknown}; available: {sorted(segmenters)}")
        segmenters = {name: segmenters[name] for name in wanted}
    docs = load_wice()
    if docs is None:
        notes.append(f"WiCE data not found at {WICE}: WiCE columns skipped")
    aiact = AIACT.read_text(encoding="utf-8")

    columns = ("segmenter", "tricky", "tricky P", "tricky R", "WiCE P", "WiCE R", "R after .!?", "chars/s")
    widths = (14, 7, 9, 9, 7, 7, 11, 11)
    header = " ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(columns, widths)))
    lines = [header, "-" * len(header)]
    all_failures: dict[str, list[str]] = {}
    for name, segment in segmenters.items():
        passed, tricky, failures = bench_tricky(segment)
        all_failures[name] = failures
        speed = bench_speed(segment, aiact)
        if docs is not None:
            wice, punctuated = bench_wice(segment, docs)
            wice_cols = f"{wice.precision:>7.3f} {wice.recall:>7.3f} {punctuated.recall:>11.3f}"
        else:
            wice_cols = f"{'-':>7} {'-':>7} {'-':>11}"
        lines.append(
            f"{name:<14} {f'{passed}/{len(TRICKY)}':>7} {tricky.precision:>9.3f} {tricky.recall:>9.3f} "
            f"{wice_cols} {speed:>11,.0f}"
        )
    if docs is not None:
        gold = sum(len(d) - 1 for d in docs)
        punctuated = sum(bool(_TERMINAL.search(e.rstrip())) for d in docs for e in d[:-1])
        lines.append(
            f"WiCE: {len(docs)} documents, {gold} gold boundaries, {punctuated} after a sentence ending in . ! ? "
            f"(the rest follow unpunctuated web headings and menus)"
        )
    lines.append(f"speed: AI Act, {len(aiact):,} chars")
    lines.extend(notes)
    print("\n".join(lines))
    if args.show_failures:
        for name, failures in all_failures.items():
            print(f"\n{name}: {len(failures)} failing cases")
            for failure in failures:
                print("  " + failure)


if __name__ == "__main__":
    main()
