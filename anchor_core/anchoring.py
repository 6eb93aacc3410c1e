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
3. **Non-adjacent evidence.** Each candidate window is also scored together with up to
   two other sentences that hold a number (a date, a year, a count) of the claim that the
   window lacks, such as a dateline or a title (``Anchor.extra_spans``, exact offsets).
4. **Scoring.** A :class:`~anchor_core.scorers.Scorer` scores the candidates; the best one
   is the anchor, supported when it reaches the scorer's threshold. Sentences already used
   by another claim of the same answer are avoided when an unused candidate scores nearly
   as well. The quote is then shrunk to the smallest sub-window scoring within
   ``SHRINK_MARGIN`` of it.
5. **Atoms.** A compound claim (:func:`decompose`) is anchored atom by atom and is
   supported only when every atom is; the weakest atom gives the score.
6. **Flags.** Drift between claim and quote (a number that differs, negation flipped,
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
from anchor_core.normalize import Normalized, normalize
from anchor_core.scorers import DEFAULT_SCORER, Scorer, build_scorer
from anchor_core.scorers.features import is_year, pair_features, unit_word
from anchor_core.scorers.text import analyse, neighbourhood, stem
from anchor_core.segment import Sentence, sentences
from anchor_core.text import STOP_WORDS, words

Method = Literal["verbatim", "lexical", "learned", "nli", "llm"]
VERBATIM_MIN_WORDS = 6
VERBATIM_MIN_RATIO = 90.0
MAX_WINDOW = 3
# Non-adjacent evidence: at most this many extra sentences per window, each bringing at least this much
# missing claim content (a content word counts 1, a capitalised name _ENTITY_NEED, a number or date _NUMBER_NEED).
MAX_EXTRA = 2
MIN_EXTRA_GAIN = 3.0
_NUMBER_NEED = 3.0
_ENTITY_NEED = 1.0
_WORD_NEED = 1.0
# Only a sentence that holds a missing number (a date, a year, a count) is added: that is the evidence that
# sits apart in a dateline or a title. Names and words found elsewhere made the scorer accept claims whose
# predicate is absent (measured on WiCE dev: 3 more false positives for 2 more true positives).
EXTRA_NEEDS_NUMBER = True
# A narrower window whose score is within this margin of the best one is quoted instead.
SHRINK_MARGIN = 0.03


class InputError(AnchorError):
    """A claim or source that cannot be checked (empty, binary, no sentences)."""


class Span(BaseModel):
    """A secondary evidence span: ``source_text[start:end] == quote``."""

    quote: str
    start: int
    end: int
    sentences: list[int] = Field(default_factory=list)


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
    """Human-readable reasons, e.g. ``amount 35 000 000 not in the quoted span``."""
    sentences: list[int] = Field(default_factory=list)
    """Indexes of the source sentences the quote covers."""
    extra_spans: list[Span] = Field(default_factory=list)
    """Secondary evidence outside the quote, in source order, each with ``source_text[start:end] == quote``:
    the sentence that holds a date, a figure or a name the quote lacks (a dateline, a title), or the span of
    another atom of a compound claim. The score was computed on the quote and these spans together; empty
    when the quote alone carries the claim."""


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
    _keys: list[frozenset[str]] | None = field(default=None, repr=False)
    _postings: dict[str, list[int]] | None = field(default=None, repr=False)
    _by_range: dict[tuple[int, int], Window] | None = field(default=None, repr=False)
    _window_postings: dict[str, list[tuple[int, int]]] | None = field(default=None, repr=False)
    _lengths: list[int] = field(default_factory=list, repr=False)
    _norm: dict[str, Normalized] | None = field(default=None, repr=False)

    def sentence_keys(self) -> list[frozenset[str]]:
        """Match keys (stems, number values) of each sentence, as the scorers see them."""
        if self._keys is None:
            self._keys = [frozenset(t.key for t in analyse(s.text) if t.kind != "punct") for s in self.sentences]
        return self._keys

    def postings(self) -> dict[str, list[int]]:
        """Match key → indexes of the sentences that hold it."""
        if self._postings is None:
            post: dict[str, list[int]] = {}
            for i, keys in enumerate(self.sentence_keys()):
                for k in keys:
                    post.setdefault(k, []).append(i)
            self._postings = post
        return self._postings

    def keys_of(self, first: int, last: int) -> set[str]:
        keys = self.sentence_keys()
        return set().union(*keys[first:last + 1])

    def normalized(self, text: str) -> Normalized:
        """``normalize(text)`` of the source or one of its windows, kept: every claim reuses it."""
        if self._norm is None:
            self._norm = {}
        if text not in self._norm:
            self._norm[text] = normalize(text)
        return self._norm[text]

    def window(self, first: int, last: int) -> Window:
        if self._by_range is None:
            self._by_range = {(w.first, w.last): w for w in self.windows}
        return self._by_range[(first, last)]

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
        # Each sentence is tokenised once; a window's term counts are the sum of its sentences'.
        sent_tf = [Counter(_terms(s.text)) for s in sents]
        tf = [sum((sent_tf[k] for k in range(w.first, w.last + 1)), Counter()) for w in windows]
        df: Counter = Counter()
        for c in tf:
            df.update(c.keys())
        avg = sum(sum(c.values()) for c in tf) / max(len(tf), 1)
        return cls(text, sents, windows, tf, df, avg)

    def bm25(self, claim: str, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
        q = set(_terms(claim))
        n = len(self.windows)
        scores = np.zeros(n, dtype=np.float32)
        if self._window_postings is None:
            post: dict[str, list[tuple[int, int]]] = {}
            for i, c in enumerate(self.tf):
                for t, f in c.items():
                    post.setdefault(t, []).append((i, f))
            self._window_postings = post
            self._lengths = [sum(c.values()) for c in self.tf]
        for t in q:
            df = self.df.get(t, 0)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i, f in self._window_postings.get(t, ()):
                scores[i] += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * self._lengths[i] / self.avg_len))
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
    src = idx.normalized(idx.text)
    # The claim goes through the source's normalisation too: a quote copied with its curly
    # apostrophes ("Member State’s") must meet the source's straightened ones.
    norm_claim = normalize(norm_claim, lexicon=src.lexicon).text
    pos = src.text.lower().find(norm_claim.lower())
    if pos >= 0:
        s, e = src.to_original(pos, pos + len(norm_claim))
        return s, e, 100.0
    best: tuple[int, int, float] | None = None
    for w in candidates:
        wn = idx.normalized(w.text)
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
        reasons += [f"{'amount' if amt else 'number'} {t} not in the quoted span" for t, amt in a.missing_numbers]
        reasons += [f"number {t} not in the quoted span" for t in a.missing_years]
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
        _SCORER_CACHE[key] = build_scorer(DEFAULT_SCORER, embedder=embedder)
    return _SCORER_CACHE[key]


def _needs(claim: str) -> dict[str, float]:
    """Content keys of the claim and how much each one matters when evidence for it is sought elsewhere."""
    out: dict[str, float] = {}
    for t in analyse(claim):
        if not t.content:
            continue
        w = _NUMBER_NEED if t.kind == "number" else _ENTITY_NEED if t.text[:1].isupper() else _WORD_NEED
        out[t.key] = max(out.get(t.key, 0.0), w)
    return out


def _number_units(claim: str) -> dict[str, str]:
    """Number key → the claim word it counts ("three *years*"), for the claim's counts and amounts (not years)."""
    toks = analyse(claim)
    out: dict[str, str] = {}
    for i, t in enumerate(toks):
        if t.kind == "number" and not is_year(t) and t.key not in out:
            unit = unit_word(toks, i)
            if unit is not None:
                out[t.key] = unit
    return out


def _states_number(idx: SourceIndex, i: int, key: str, units: dict[str, str] | None) -> bool:
    """Sentence ``i`` holds the number ``key``, next to the word it counts in the claim when it counts one."""
    if key not in idx.sentence_keys()[i]:
        return False
    unit = (units or {}).get(key)
    if unit is None:
        return True
    toks = analyse(idx.sentences[i].text)
    return any(t.key == key and unit in neighbourhood(toks, j, 3, 3) for j, t in enumerate(toks))


def extra_sentences(idx: SourceIndex, needs: dict[str, float], first: int, last: int,
                    max_extra: int = MAX_EXTRA, units: dict[str, str] | None = None) -> list[int]:
    r"""Sentences outside ``[first, last]`` that hold what the window lacks: greedily, the one holding the most
    missing claim content (a number or date weighs most), up to ``max_extra``. A sentence is added only when
    it holds a missing number of the claim (``EXTRA_NEEDS_NUMBER``) and brings at least ``MIN_EXTRA_GAIN``. With
    ``units`` (:func:`_number_units`), a count or amount counts only where the sentence states it next to the
    word it counts in the claim: the "1" of "April 1" is not the "1" of "Season 1".

    >>> idx = source_index("Published Aug. 10, 2014\nThe weather was mild.\nSmith replaced Stewart at the Glen.")
    >>> w, needs = idx.windows[-1], _needs("In 2014 Smith replaced Stewart.")  # the last sentence alone
    >>> [idx.sentences[i].text for i in extra_sentences(idx, needs, w.first, w.last)]
    ['Published Aug. 10, 2014']
    """
    have = idx.keys_of(first, last)
    missing = {k: w for k, w in needs.items() if k not in have}
    chosen: list[int] = []
    while missing and len(chosen) < max_extra:
        gain: dict[int, float] = {}
        for k, w in missing.items():
            for i in idx.postings().get(k, ()):
                if not first <= i <= last and i not in chosen and (k[0] != "#" or _states_number(idx, i, k, units)):
                    gain[i] = gain.get(i, 0.0) + w
        if not gain:
            break
        best = max(gain, key=lambda i: (gain[i], -len(idx.sentences[i].text), -i))
        if gain[best] < MIN_EXTRA_GAIN:
            break
        if EXTRA_NEEDS_NUMBER and not any(k[0] == "#" and _states_number(idx, best, k, units) for k in missing):
            break
        chosen.append(best)
        keys = idx.sentence_keys()[best]
        missing = {k: w for k, w in missing.items() if k not in keys}
    return sorted(chosen)


@dataclass(frozen=True)
class _Evidence:
    """A window of adjacent sentences plus non-adjacent extra sentences, as scored."""

    window: Window = field(compare=False, hash=False)
    extras: tuple[int, ...] = ()
    first: int = -1
    last: int = -1

    def __post_init__(self) -> None:
        object.__setattr__(self, "first", self.window.first)
        object.__setattr__(self, "last", self.window.last)

    def premise(self, idx: SourceIndex) -> str:
        parts = [(self.window.start, self.window.text)] + [(idx.sentences[i].start, idx.sentences[i].text)
                                                            for i in self.extras]
        return " ".join(t for _, t in sorted(parts))

    def chars(self, idx: SourceIndex) -> int:
        return self.window.end - self.window.start + sum(len(idx.sentences[i].text) for i in self.extras)

    def sentence_set(self) -> set[int]:
        return set(range(self.window.first, self.window.last + 1)) | set(self.extras)


def _score(scorer: Scorer, idx: SourceIndex, evidence: list[_Evidence], claim: str,
           memo: dict[_Evidence, float]) -> list[float]:
    todo = [e for e in dict.fromkeys(evidence) if e not in memo]
    if todo:
        term = defined_term(claim)
        premises = [e.premise(idx) for e in todo]
        for e, premise, sc in zip(todo, premises, scorer.score(premises, [claim] * len(todo))):
            memo[e] = float(sc)
            if term and sc >= scorer.threshold and defines_other(premise, term):
                memo[e] = min(float(sc), scorer.threshold - 1e-4)
    return [memo[e] for e in evidence]


def _defines_reason(premise: str, claim: str) -> list[str]:
    from anchor_core.definitions import find

    term = _claim_term(claim)
    if term is None or not defines_other(premise, term[1]):
        return []
    named = ", ".join(f"‘{t}’" for t, _, _ in find(premise)[:3])
    return [f"the quote defines {named}, not what the claim defines (‘{term[0]}’)"]


# "Days means Business Days.", "The term 'deployer' refers to ...", "A ‘provider’ is defined as ..."
_CLAIM_DEFINES = re.compile(
    r"^\s*(?:the (?:term|expression|word) )?(?:an? |the )?['‘\"“]?(?P<t>[^\W\d_][\w\- ]{0,58}?)['’\"”]?,?\s+"
    r"(?:(?:here|in this \w+),?\s+)?(?:means(?! of\b)|shall mean|is defined as|refers to)\b", re.IGNORECASE)
_TERM_JOINERS = frozenset({"of", "or", "and", "for", "in", "on", "to"})


def _claim_term(claim: str) -> tuple[str, str] | None:
    """The term a claim shaped as a definition defines: as the claim writes it, and compared as
    :func:`anchor_core.definitions.norm` does."""
    from anchor_core.definitions import norm

    m = _CLAIM_DEFINES.match(claim)
    if not m:
        return None
    toks = m.group("t").lower().split()
    # a term is a name ("Business Day", "Retail Debenture or Sukuk"), not a clause ("the request made by
    # electronic means", "moving to GitHub also means")
    if len(toks) > 6 or any(w in STOP_WORDS and w not in _TERM_JOINERS for w in toks):
        return None
    return m.group("t"), norm(m.group("t"))


def defined_term(claim: str) -> str:
    """The term a claim shaped as a definition defines, compared as :func:`anchor_core.definitions.norm` does
    (``Days means Business Days.`` → ``day``), else ``""``."""
    term = _claim_term(claim)
    return term[1] if term else ""


def defines_other(premise: str, term: str) -> bool:
    """Whether ``premise`` defines only other terms than ``term`` (a :func:`defined_term`): a quoted definition
    (``‘Business Day’ means a day other than ...``) of another term, and no sentence that says what ``term``
    means. A definition of another term does not state the claim's definition, however many words they share
    ("Days means Business Days" is not what "'Business Day' means ..." says)."""
    from anchor_core.definitions import DEFINING_VERBS, find, norm

    found = find(premise)
    if not found or any(norm(t) == term for t, _, _ in found):
        return False
    words = r"[-\s]+".join(re.escape(w) for w in term.split(" "))
    said = re.compile(rf"\b{words}s?\b['’\"”]?,?\s+(?:(?:here|in this \w+),?\s+)?"
                      rf"(?:{'|'.join(DEFINING_VERBS)})\b", re.IGNORECASE)
    # "Days here means ..." says it; the "Day" that ends the defined term "'Business Day' means" does not
    return not any(not any(a <= m.start() < b for _, a, b in found) for m in said.finditer(premise))


def _shrink(scorer: Scorer, idx: SourceIndex, pick: _Evidence, score: float, claim: str, needs: dict[str, float],
            memo: dict[_Evidence, float], margin: float, max_extra: int,
            units: dict[str, str] | None = None) -> tuple[_Evidence, float]:
    """The smallest sub-window of the picked window (with its own extra sentences) whose score stays within
    ``margin`` of the pick's and on the same side of the threshold: wider windows cover more claim words, so
    the widest one tends to win by a hair. A pick with extra sentences is also tried as its window alone and as each
    extra sentence alone: a clause heading ("1. DELIVERY") picked with the sentence that holds the claim's number
    scores a hair above that sentence, which states the claim by itself and is the quote."""
    w = pick.window
    subs = [_Evidence(w), *(_Evidence(idx.window(i, i)) for i in pick.extras)] if pick.extras else []
    if w.first == w.last and not subs:
        return pick, score
    for a in range(w.first, w.last + 1):
        for b in range(a, w.last + 1):
            if (a, b) != (w.first, w.last):
                sub = idx.window(a, b)
                subs.append(_Evidence(sub))
                extras = extra_sentences(idx, needs, a, b, max_extra, units) if max_extra else []
                if extras:
                    subs.append(_Evidence(sub, tuple(extras)))
    scores = _score(scorer, idx, subs, claim, memo)
    best, best_score = pick, score
    supported = score >= scorer.threshold
    # a window that does not support the claim is shown as the closest span: of the sub-windows as close, the one
    # that shares most of the claim's words ("Suppliers must not employ any person under the age of 16", not the
    # heading "2. Child labour." before it, which scores as little), then the shortest
    wanted = set(_terms(claim))

    def rank(e: _Evidence) -> tuple[int, int]:
        return (0 if supported else _shared(wanted, idx, e)), -e.chars(idx)

    best_rank = rank(best)
    for e, sc in zip(subs, scores):
        if sc < score - margin or supported != (sc >= scorer.threshold):
            continue
        if (r := rank(e)) > best_rank:
            best, best_score, best_rank = e, sc, r
    return best, best_score


def _shared(wanted: set[str], idx: SourceIndex, e: _Evidence) -> int:
    """How many of the claim's terms ``wanted`` the evidence ``e`` writes."""
    return len(wanted & set(_terms(e.premise(idx))))


def _span(idx: SourceIndex, i: int) -> Span:
    s = idx.sentences[i]
    return Span(quote=s.text, start=s.start, end=s.end, sentences=[i])


def _anchor_one(claim: str, source_text: str, idx: SourceIndex, scorer: Scorer, embedder: Embedder | None,
                used: set[int] | None, n_candidates: int, tie_margin: float, multi_span: bool,
                shrink_margin: float | None) -> Anchor | None:
    cands = candidates(claim, idx, embedder, n_candidates)
    vb = verbatim(claim, idx, cands)
    flags, reasons = drift(source_text[vb[0]:vb[1]], claim) if vb is not None and vb[2] < 100 else ([], [])
    # A nearly verbatim quote whose number or negation differs is not a quote of the claim: score it instead.
    if vb is not None and not {"number_mismatch", "negation_flip"} & set(flags):
        s, e, ratio = vb
        return Anchor(quote=source_text[s:e], start=s, end=e, score=1.0, supported=True, method="verbatim",
                      threshold=scorer.threshold, flags=flags,
                      reasons=[f"quoted {'verbatim' if ratio == 100 else f'nearly verbatim ({ratio:.0f}/100)'}",
                               *reasons],
                      sentences=_sentences_of(idx, s, e))
    if not cands:
        return None
    needs, units = _needs(claim), _number_units(claim)
    max_extra = MAX_EXTRA if multi_span else 0
    evidence = [_Evidence(w) for w in cands]
    if max_extra:
        for w in cands:
            extras = extra_sentences(idx, needs, w.first, w.last, max_extra, units)
            if extras:
                evidence.append(_Evidence(w, tuple(extras)))
    memo: dict[_Evidence, float] = {}
    scores = _score(scorer, idx, evidence, claim, memo)
    # equal scores: the shortest window; but windows that do not support the claim score alike at the precision a
    # report shows (0.00 and 0.0003 when the claim's number is absent from all), and of those the one that shares
    # most of the claim's words is the closest, not the document's title or a clause heading
    wanted = set(_terms(claim))

    def key(i: int) -> tuple[float, int, int]:
        if scores[i] >= scorer.threshold:
            return -scores[i], 0, evidence[i].chars(idx)
        return -round(scores[i], 2), -_shared(wanted, idx, evidence[i]), evidence[i].chars(idx)

    order = sorted(range(len(evidence)), key=key)
    pick = order[0]
    if used:
        for i in order[1:]:
            if scores[i] < scores[pick] - tie_margin:
                break
            if not evidence[i].sentence_set() & used:
                pick = i
                break
    ev, sc = evidence[pick], scores[pick]
    if shrink_margin is not None:
        ev, sc = _shrink(scorer, idx, ev, sc, claim, needs, memo, shrink_margin, max_extra, units)
    w = ev.window
    premise = ev.premise(idx)
    flags, reasons = drift(premise, claim)
    supported = sc >= scorer.threshold
    if not supported:
        reasons = list(dict.fromkeys([*_defines_reason(premise, claim), *scorer.explain(premise, claim), *reasons]))
    return Anchor(quote=w.text, start=w.start, end=w.end, score=round(sc, 4), supported=supported,
                  method=_method(scorer), threshold=scorer.threshold, flags=flags, reasons=reasons,
                  sentences=list(range(w.first, w.last + 1)), extra_spans=[_span(idx, i) for i in ev.extras])


def _combine(atoms: list[str], anchors: list[Anchor | None], scorer: Scorer) -> Anchor | None:
    """One anchor for a compound claim: supported only when every atom is; the weakest atom gives the score."""
    found = [(t, a) for t, a in zip(atoms, anchors) if a is not None]
    if not found:
        return None
    weakest = min(found, key=lambda ta: ta[1].score)[1]
    primary = found[0][1]
    spans = {(s.start, s.end): s for _, a in found for s in a.extra_spans}
    for _, a in found[1:]:
        spans.setdefault((a.start, a.end), Span(quote=a.quote, start=a.start, end=a.end, sentences=a.sentences))
    spans.pop((primary.start, primary.end), None)
    reasons: list[str] = []
    for t, atom_anchor in zip(atoms, anchors):
        if atom_anchor is None:
            reasons.append(f"atom “{t}”: no supporting sentence")
        elif not atom_anchor.supported:
            reasons += [f"atom “{t}”: {r}" for r in atom_anchor.reasons[:3]]
    supported = len(found) == len(atoms) and all(a.supported for _, a in found)
    methods = {a.method for _, a in found}
    return Anchor(quote=primary.quote, start=primary.start, end=primary.end, score=weakest.score, supported=supported,
                  method=primary.method if len(methods) == 1 else _method(scorer), threshold=scorer.threshold,
                  flags=list(dict.fromkeys(f for _, a in found for f in a.flags)),
                  reasons=reasons if not supported else list(dict.fromkeys(r for _, a in found for r in a.reasons)),
                  sentences=primary.sentences, extra_spans=sorted(spans.values(), key=lambda s: s.start))


def best_anchor(claim: str, source_text: str, *, scorer: Scorer | None = None, embedder: Embedder | None = None,
                used: set[int] | None = None, n_candidates: int = 8, tie_margin: float = 0.02,
                multi_span: bool = True, atoms: bool = True, shrink_margin: float | None = SHRINK_MARGIN
                ) -> Anchor | None:
    """The best-supported span for ``claim`` whether or not it passes (``supported`` says);
    ``None`` only when the source has no candidate sentence at all.

    Args:
        multi_span: also score each window with up to ``MAX_EXTRA`` non-adjacent sentences that hold claim
            content the window lacks (``Anchor.extra_spans``).
        atoms: a compound claim (see :func:`decompose`) is anchored atom by atom and is supported only when
            every atom is; a claim quoted verbatim is not split.
        shrink_margin: the quote is shrunk to the smallest sub-window scoring within this margin of the best
            window (``None``: keep the best window).
    """
    check_text(claim, "claim")
    check_text(source_text, "source")
    idx = source_index(source_text)
    if not idx.sentences:
        raise InputError("the source has no sentences to anchor to (only noise such as page headers or references)")
    scorer = scorer or default_scorer(embedder)
    args = (idx, scorer, embedder, used, n_candidates, tie_margin, multi_span, shrink_margin)
    parts = decompose(claim) if atoms else [claim]
    whole = _anchor_one(claim, source_text, *args)
    if len(parts) == 1 or (whole is not None and whole.method == "verbatim"):
        return whole
    return _combine(parts, [_anchor_one(p, source_text, *args) for p in parts], scorer)


_SCORER_METHODS: dict[str, Method] = {"lexical": "lexical", "learned": "learned", "nli": "nli", "llm": "llm"}


def _method(scorer: Scorer) -> Method:
    return _SCORER_METHODS.get(getattr(scorer, "name", "learned"), "learned")


def anchor_claim(claim: str, source_text: str, **options) -> Anchor | None:
    """Anchor one claim in one source; ``None`` when nothing in the source supports it.

    Options: ``scorer`` (a Scorer; default the learned scorer), ``embedder`` (adds dense
    candidate search and the embedding feature; none by default), ``used`` (sentence indexes
    already taken by other claims of the same answer), ``multi_span``, ``atoms`` and
    ``shrink_margin`` (see :func:`best_anchor`).

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
