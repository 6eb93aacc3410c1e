"""Claim → the exact source span that supports it.

``anchor_claim(claim, source_text)`` returns an :class:`Anchor` whose ``quote`` is
``source_text[start:end]``, always, or ``None`` when nothing in the source supports the claim.

How:

1. **Verbatim fast path.** A claim of 6+ words found in the source exactly, or nearly
   (rapidfuzz partial-ratio alignment ≥ 90 on the normalised text), anchors at once with
   score 1.0 and method ``verbatim``; the span is the matched part, not the whole sentence.
2. **Candidates.** The source is split into sentences (noise such as page furniture and
   bibliography removed) and windows of up to 3 adjacent sentences; BM25 and, with an
   embedder, cosine similarity rank them, fused by RRF. The index is cached per source.
3. **Scoring.** A :class:`~anchor_core.scorers.Scorer` scores the best candidates; the
   best one above the scorer's threshold is the anchor. Sentences already used by another
   claim of the same answer are avoided when an unused candidate scores nearly as well.
4. **Flags.** Drift between claim and quote (a number that differs, negation flipped,
   modality changed, qualifier dropped) is flagged even when the claim passes.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from anchor_core.embeddings import Embedder
from anchor_core.errors import AnchorError
from anchor_core.fusion import rrf
from anchor_core.normalize import normalize
from anchor_core.scorers import Scorer, make_scorer
from anchor_core.scorers.features import pair_features
from anchor_core.scorers.text import stem
from anchor_core.segment import Sentence, sentences
from anchor_core.text import STOP_WORDS, words

Method = Literal["verbatim", "lexical", "learned", "nli", "llm"]
VERBATIM_MIN_WORDS = 6
VERBATIM_MIN_RATIO = 90.0
MAX_WINDOW = 3


class InputError(AnchorError):
    """A claim or source that cannot be checked (empty, binary, no sentences)."""


class Anchor(BaseModel):
    """Where a claim is supported: ``source_text[start:end] == quote``."""

    quote: str
    start: int
    end: int
    score: float
    supported: bool
    method: Method
    threshold: float
    flags: list[str] = Field(default_factory=list)
    """Machine-readable drift flags: ``number_mismatch``, ``negation_flip``, ``modality_change``,
    ``qualifier_dropped``."""
    reasons: list[str] = Field(default_factory=list)
    """Human-readable reasons, e.g. ``amount 35 000 000 not in source``."""
    sentences: list[int] = Field(default_factory=list)
    """Indexes of the source sentences the quote covers."""


@dataclass
class Window:
    first: int
    last: int  # inclusive sentence index
    start: int
    end: int
    text: str


def _terms(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in STOP_WORDS]


@dataclass
class SourceIndex:
    """Sentences, windows and their BM25 statistics (and vectors, once asked) for one source."""

    text: str
    sentences: list[Sentence]
    windows: list[Window]
    tf: list[Counter]
    df: Counter
    avg_len: float
    vectors: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)

    @classmethod
    def build(cls, text: str) -> SourceIndex:
        sents = sentences(text)
        windows = []
        for i in range(len(sents)):
            for size in range(1, MAX_WINDOW + 1):
                j = i + size - 1
                if j >= len(sents):
                    break
                s, e = sents[i].start, sents[j].end
                windows.append(Window(i, j, s, e, text[s:e]))
        tf = [Counter(_terms(w.text)) for w in windows]
        df: Counter = Counter()
        for c in tf:
            df.update(c.keys())
        avg = sum(sum(c.values()) for c in tf) / max(len(tf), 1)
        return cls(text, sents, windows, tf, df, avg)

    def bm25(self, claim: str, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
        q = set(_terms(claim))
        n = len(self.windows)
        scores = np.zeros(n, dtype=np.float32)
        for t in q:
            df = self.df.get(t, 0)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i, c in enumerate(self.tf):
                f = c.get(t)
                if f:
                    length = sum(c.values())
                    scores[i] += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * length / self.avg_len))
        return scores

    def dense(self, claim: str, embedder: Embedder, rows: list[int]) -> dict[int, float]:
        """Cosine of the claim with the given windows; window vectors are embedded once and kept."""
        todo = [i for i in rows if (embedder.model_id, i) not in self.vectors]
        if todo:
            for i, v in zip(todo, embedder.embed([self.windows[i].text for i in todo])):
                self.vectors[(embedder.model_id, i)] = v
        q = embedder.embed([claim])[0]
        return {i: float(self.vectors[(embedder.model_id, i)] @ q) for i in rows}


_CACHE: OrderedDict[str, SourceIndex] = OrderedDict()
_CACHE_SIZE = 64


def source_index(text: str) -> SourceIndex:
    """The (cached) index of a source text."""
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    idx = _CACHE.get(key)
    if idx is None:
        idx = SourceIndex.build(text)
        _CACHE[key] = idx
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return idx


def check_text(value: str, what: str) -> None:
    if not isinstance(value, str):
        raise InputError(f"the {what} must be text, got {type(value).__name__}")
    if not value.strip():
        raise InputError(f"the {what} is empty; give the text to check")
    if "\x00" in value:
        raise InputError(f"the {what} contains NUL bytes: it looks like a binary file, not text")


def _sentences_of(idx: SourceIndex, start: int, end: int) -> list[int]:
    return [i for i, s in enumerate(idx.sentences) if s.start < end and start < s.end]


def verbatim(claim: str, idx: SourceIndex, candidates: list[Window]) -> tuple[int, int, float] | None:
    """An exact or near-exact occurrence of a 6+ word claim: (start, end, ratio)."""
    norm_claim = " ".join(claim.strip().strip("\"'“”‘’").split())
    if len(norm_claim.split()) < VERBATIM_MIN_WORDS:
        return None
    norm_claim = norm_claim.rstrip(".;:,")
    src = normalize(idx.text)
    pos = src.text.lower().find(norm_claim.lower())
    if pos >= 0:
        s, e = src.to_original(pos, pos + len(norm_claim))
        return s, e, 100.0
    best: tuple[int, int, float] | None = None
    for w in candidates:
        wn = normalize(w.text)
        if len(wn.text) < len(norm_claim):
            continue  # partial_ratio aligns the shorter string: the claim must be the one found
        al = fuzz.partial_ratio_alignment(norm_claim.lower(), wn.text.lower(), score_cutoff=VERBATIM_MIN_RATIO)
        if al is None or (best is not None and al.score <= best[2]):
            continue
        # The alignment's end can stop short of the last word: extend to word boundaries.
        ds, de = al.dest_start, al.dest_end
        while ds > 0 and wn.text[ds - 1].isalnum():
            ds -= 1
        while de < len(wn.text) and wn.text[de].isalnum():
            de += 1
        s, e = wn.to_original(ds, de)
        best = (w.start + s, w.start + e, al.score)
    return best


def drift(premise: str, claim: str) -> tuple[list[str], list[str]]:
    """Flags and reasons for drift between a quote and a claim."""
    a = pair_features(premise, claim)
    flags, reasons = [], []
    if a.missing_numbers or a.missing_years:
        flags.append("number_mismatch")
        reasons += [f"{'amount' if amt else 'number'} {t} not in source" for t, amt in a.missing_numbers]
        reasons += [f"number {t} not in source" for t in a.missing_years]
    if a.negation:
        flags.append("negation_flip")
        reasons.append(a.negation)
    if a.modality:
        flags.append("modality_change")
        reasons.append(f"modality differs: source '{a.modality[0]}', claim '{a.modality[1]}'")
    if a.qualifier:
        flags.append("qualifier_dropped")
        reasons.append(f"qualifier dropped: source says '{a.qualifier}', claim does not")
    return flags, reasons


def candidates(claim: str, idx: SourceIndex, embedder: Embedder | None, n: int = 8) -> list[Window]:
    """The ``n`` most promising windows: BM25 ∥ dense, fused by RRF."""
    if not idx.windows:
        return []
    rankings = []
    bm = idx.bm25(claim)
    pool = [int(i) for i in np.argsort(-bm, kind="stable")[: n * 4]]
    rankings.append([str(i) for i in pool if bm[i] > 0])
    if embedder is not None:
        # Dense re-ranks the BM25 pool (plus the single sentences, cheap to embed once per source):
        # embedding every window of a long source for every claim costs minutes, not milliseconds.
        singles = [i for i, w in enumerate(idx.windows) if w.first == w.last][:400]
        rows = sorted(set(pool) | set(singles))
        dn = idx.dense(claim, embedder, rows)
        rankings.append([str(i) for i in sorted(rows, key=lambda i: -dn[i])[: n * 4]])
    fused = rrf([r for r in rankings if r])
    return [idx.windows[int(i)] for i, _ in fused[:n]]


_SCORER_CACHE: dict[str, Scorer] = {}


def default_scorer(embedder: Embedder | None = None) -> Scorer:
    key = f"learned:{embedder.model_id if embedder else '-'}"
    if key not in _SCORER_CACHE:
        _SCORER_CACHE[key] = make_scorer("learned", embedder=embedder)
    return _SCORER_CACHE[key]


def best_anchor(claim: str, source_text: str, *, scorer: Scorer | None = None, embedder: Embedder | None = None,
                used: set[int] | None = None, n_candidates: int = 8, tie_margin: float = 0.02) -> Anchor | None:
    """The best-supported span for ``claim`` whether or not it passes (``supported`` says);
    ``None`` only when the source has no candidate sentence at all."""
    check_text(claim, "claim")
    check_text(source_text, "source")
    idx = source_index(source_text)
    if not idx.sentences:
        raise InputError("the source has no sentences to anchor to (only noise such as page headers or references)")
    scorer = scorer or default_scorer(embedder)
    cands = candidates(claim, idx, embedder, n_candidates)
    vb = verbatim(claim, idx, cands)
    if vb is not None:
        s, e, ratio = vb
        flags, reasons = drift(source_text[s:e], claim) if ratio < 100 else ([], [])
        return Anchor(quote=source_text[s:e], start=s, end=e, score=1.0, supported=True, method="verbatim",
                      threshold=scorer.threshold, flags=flags,
                      reasons=[f"quoted {'verbatim' if ratio == 100 else f'nearly verbatim ({ratio:.0f}/100)'}",
                               *reasons],
                      sentences=_sentences_of(idx, s, e))
    if not cands:
        return None
    scores = scorer.score([w.text for w in cands], [claim] * len(cands))
    order = sorted(range(len(cands)), key=lambda i: (-scores[i], cands[i].last - cands[i].first))
    pick = order[0]
    if used:
        for i in order[1:]:
            if scores[i] < scores[pick] - tie_margin:
                break
            if not set(range(cands[i].first, cands[i].last + 1)) & used:
                pick = i
                break
    w, sc = cands[pick], float(scores[pick])
    flags, reasons = drift(w.text, claim)
    supported = sc >= scorer.threshold
    if not supported:
        reasons = list(dict.fromkeys([*scorer.explain(w.text, claim), *reasons]))
    return Anchor(quote=w.text, start=w.start, end=w.end, score=round(sc, 4), supported=supported,
                  method=_method(scorer), threshold=scorer.threshold, flags=flags, reasons=reasons,
                  sentences=list(range(w.first, w.last + 1)))


def _method(scorer: Scorer) -> Method:
    name = getattr(scorer, "name", "learned")
    return name if name in ("lexical", "learned", "nli", "llm") else "learned"


def anchor_claim(claim: str, source_text: str, **options) -> Anchor | None:
    """Anchor one claim in one source; ``None`` when nothing in the source supports it.

    Options: ``scorer`` (a Scorer; default the learned scorer), ``embedder`` (adds dense
    candidate search and the embedding feature), ``used`` (sentence indexes already taken by
    other claims of the same answer).

    >>> a = anchor_claim("Member States shall lay down the rules on penalties.",
    ...                  "Intro. Member States shall lay down the rules on penalties. End.")
    >>> a.quote, a.method
    ('Member States shall lay down the rules on penalties', 'verbatim')
    """
    a = best_anchor(claim, source_text, **options)
    return a if a is not None and a.supported else None


_ATOM_SPLIT = re.compile(r"\s*;\s*|,?\s+(?:but|whereas|while|however)\s+|,\s+and\s+(?=\w+\s+\w+\s+\w+)")


def decompose(claim: str) -> list[str]:
    """Split a compound claim into atomic claims: at ``;``, at ``but``/``whereas``/``while``
    clauses and at ``, and`` before a clause. Atoms shorter than three words stay with their
    neighbour; a claim that does not split is its own single atom."""
    check_text(claim, "claim")
    parts = [p.strip(" ,.") for p in _ATOM_SPLIT.split(claim.strip()) if p and p.strip(" ,.")]
    atoms: list[str] = []
    for p in parts:
        if atoms and len(p.split()) < 3:
            atoms[-1] = f"{atoms[-1]} {p}"
        else:
            atoms.append(p)
    if len(atoms) > 1 and len(atoms[0].split()) < 3:
        atoms[1] = f"{atoms[0]} {atoms[1]}"
        atoms = atoms[1:]
    return atoms or [claim.strip()]
