"""Writers turn numbered sources into an answer whose sentences carry ``[n]`` markers.

* :class:`ExtractiveWriter` (offline, the default without a key) picks the source sentences that
  answer the question best (question → sentence similarity, term coverage, the asked kind of
  answer) and quotes them whole and byte-exact, one per line, each followed by its marker:
  faithful by construction, and still verified like any other answer.
* :class:`LLMWriter` asks a chat model to answer only from the sources. It may refuse
  (``INSUFFICIENT: reason``). Output with no markers or markers that name no source is sent back
  once for repair; if it is still malformed, or the model is unreachable, the caller falls back to
  the extractive writer and says so in the trace.

Both return a :class:`Draft`: the answer text, the claims (one per sentence, with the source
numbers its markers give) and whether the writer refused.
"""

from __future__ import annotations

import json
import logging
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from anchor_core import definitions, tables
from anchor_core.ask.llm import ChatClient, LLMError
from anchor_core.ask.question import VALUE_KINDS, analyse, asked_sentence, fits_kind
from anchor_core.embeddings import Embedder
from anchor_core.report import Source
from anchor_core.scorers.text import stem
from anchor_core.segment import Sentence, is_fenced_block, sentences
from anchor_core.text import NOTE_LINE, words

_MARKER = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")
_REFUSAL = re.compile(r"^\s*(?:INSUFFICIENT|REFUSE|CANNOT ANSWER)\s*[:\-—]?\s*(.*)", re.I | re.S)


@dataclass
class DraftClaim:
    text: str
    cited: list[int] = field(default_factory=list)
    unit_id: str | None = None
    """For a quote (extractive writer): the unit it is taken from, and its offsets in the stored unit
    text, ``unit.text[start:end] == text``."""
    start: int | None = None
    end: int | None = None
    lead: int | None = None
    """For an enumerated point quoted under its lead-in (extractive writer): the index, in the draft's claims,
    of the claim that quotes the lead-in; for a point's further sentence, of the claim that quotes the point.
    They are one provision split for quoting ("The following AI practices shall be prohibited:" + "(a) ..."),
    so the claim is read with that one when the answer's relevance is checked."""
    located: bool = False
    """The writer located the quote by the source's structure (a reference list's entry), not by scoring its
    sentences: it is anchored at the writer's offsets whatever its length, since the checker reads sentences and a
    reference entry is none (:func:`anchor_core.segment.is_noise`)."""


@dataclass
class Draft:
    answer: str
    claims: list[DraftClaim]
    writer: str
    refused: bool = False
    reason: str = ""
    notes: list[str] = field(default_factory=list)


def split_marked(answer: str) -> list[DraftClaim]:
    """Sentences of an answer with the ``[n]`` markers that follow them; markers are removed from
    the claim text (the claim is what gets anchored)."""
    out: list[DraftClaim] = []
    for s in sentences(answer):
        cited = [int(n) for m in _MARKER.finditer(s.text) for n in re.split(r"\s*,\s*", m.group(1))]
        text = _MARKER.sub("", s.text).strip()
        if len(words(text)) >= 3:
            out.append(DraftClaim(text=text, cited=cited))
        elif out and cited:
            out[-1].cited += [c for c in cited if c not in out[-1].cited]
    return out


# Ranking weights, chosen by ``python -m eval.answers_bench --fit`` on the GDPR, PEP and RFC dev questions'
# evidence strings; never on the AI Act labels the bench reports (see eval/results/answers.md).
DENSE_WEIGHT = 1.0
KIND_WEIGHT = 0.4
SOURCE_WEIGHT = 1.0
# A second value of the asked kind within this much of the first pick's score is quoted beside it, chosen
# the same way (``--fit``'s margin table): macro evidence hit 0.594 at 0, 0.646 at 0.1, 0.674 at 0.2 and 0.5
# (0.2 prints fewer quotes)
ALT_MARGIN = 0.2
# A passage of another unit scoring within this much of the first pick is a tie the ranking cannot break
# (about 1% of a typical first score of 1.5-2.5): it is quoted beside the first, whatever it adds. The
# GDPR, PEP and RFC evidence hits are the same at every tie margin in 0-0.1 (0.674 at ALT_MARGIN), so
# they do not choose it; it is there so a reviewer sees both of two provisions that tie (found on the AI
# Act's aiact-060, Article 53(2) behind 54(6) by 0.017), at the smallest margin that shows such a tie
TIE_MARGIN = 0.02
# When a question tells a situation before it asks, the share of the asking sentence's terms that a sentence covers
# counts again, beside its share of the whole question: "Our notified body has stopped its activities. Within how
# many days must the authority withdraw its designation?" asks about the withdrawal, and the situation only places
# the question (a question of one sentence is ranked as before). Chosen by
# ``python -m eval.writer_fit`` on the answerable questions of fresh rounds 1-17 (the first quote holds the asked fact;
# the other weights fixed), reported on rounds 18-28, which did not choose it (``eval/results/writer-fit.md``)
ASKED_WEIGHT = 1.5


class ExtractiveWriter:
    """Quote the source sentences that answer the question best, each with its ``[n]``.

    Sentences are ranked by how well they answer: the question → sentence cosine of the run's
    embedder (all-MiniLM-L6-v2 was trained on question-answer pairs), the IDF-weighted share of
    the question's terms the sentence covers (and, when the question tells a situation before it
    asks, again of its asking sentence's terms), whether it has the shape of the asked kind of answer
    (:func:`anchor_core.ask.question.fits_kind`: a duration question wants a duration, a list
    question an enumeration) and the retrieval score of its source. With no embedder (the offline
    BM25-only path) the cosine term is left out and the others rank alone.

    The answer is laid out one quote per line. A quote is stored text, byte for byte, and a whole
    sentence (never cut, never re-punctuated). A lead-in that ends with a colon brings its
    enumerated points (at most ``max_points``, the best-answering ones in document order, then
    "… and N more"); a point is quoted under its lead-in. A yes/no question opens with "Yes" or
    "No" only when the top quote states a rule that settles it (:func:`yes_no_reading`), marked
    as the writer's reading; otherwise with "The sources say:".

    Args:
        max_sentences: quoted passages (a lead-in with its points counts once).
        min_gain: a further passage must add this share of the question's weighted terms.
        embedder: the run's embedder; ``None`` ranks without the cosine.
        dense_weight, kind_weight, source_weight: the ranking weights (chosen on other corpora:
            ``python -m eval.answers_bench --fit``; see ``eval/results/answers.md``).
        max_points: enumerated points quoted under a lead-in.
        alt_margin: for a value question, another sentence that states a value of the asked kind
            and scores within this much of the first pick is quoted too, even when it adds no
            question word (two deadlines, two fines: the reviewer sees both); 0 turns it off.
        tie_margin: a passage of another unit that scores within this much of the first pick is
            quoted too, for any kind of question (two provisions the ranking cannot tell apart:
            Article 54(6) and Article 53(2) both exempt open-source models); 0 turns it off.
        asked_weight: how much the share of the asking sentence's terms adds to the share of the whole
            question's (:data:`ASKED_WEIGHT`; 0 ranks by the whole question only).
    """

    name = "extractive"

    def __init__(self, max_sentences: int = 3, min_gain: float = 0.15, *, embedder: Embedder | None = None,
                 dense_weight: float = DENSE_WEIGHT, kind_weight: float = KIND_WEIGHT,
                 source_weight: float = SOURCE_WEIGHT, max_points: int = 6, alt_margin: float = ALT_MARGIN,
                 tie_margin: float = TIE_MARGIN, asked_weight: float = ASKED_WEIGHT) -> None:
        if max_sentences <= 0:
            raise ValueError(f"max_sentences must be greater than 0. Currently, the max_sentences is {max_sentences}")
        if max_points <= 0:
            raise ValueError(f"max_points must be greater than 0. Currently, the max_points is {max_points}")
        self.max_sentences = max_sentences
        self.min_gain = min_gain
        self.embedder = embedder
        self.dense_weight = dense_weight
        self.kind_weight = kind_weight
        self.source_weight = source_weight
        self.max_points = max_points
        self.alt_margin = alt_margin
        self.tie_margin = tie_margin
        self.asked_weight = asked_weight

    def write(self, question: str, sources: list[Source], terms: list[str], weights: dict[str, float], *,
              units: Mapping[str, str] | None = None,
              cited: Mapping[str, Sequence[tuple[int, int, str]]] | None = None) -> Draft:
        """The answer to ``question`` from ``sources``; ``units`` (stored unit texts by id, optional) lets a
        lead-in count the points that continue past the end of its chunk ("… and N more"); ``cited``
        (optional: per unit, the spans of its references with the cited target's title) lets a sentence be
        read with what it cites ("Chapters I and II shall apply" cites "Prohibited AI practices")."""
        q = {stem(t): weights.get(t, 1.0) for t in terms}
        asks = asked_sentence(question)
        asking = {stem(w) for w in words(asks)} | {f"#{x}" for x in _DOTTED.findall(asks)}
        # a version or section number ("3.6.0", "4.1.2") is one term, as specific as the rarest word: its
        # digits alone ("3", "6", "0") would match "2.6" as well
        dotted = {f"#{x}": max(q.values(), default=1.0) for x in _DOTTED.findall(question)}
        q.update(dotted)
        total = sum(q.values()) or 1.0
        kind = analyse(question).kind
        cands = [c for c in _all_candidates(sources, units or {}) if not c.outside]
        if dotted:
            for c in cands:
                c.stems |= {f"#{x}" for x in _DOTTED.findall(c.text)}
        if cited:
            _read_cited(cands, cited)
        if not cands:
            return Draft(answer="", claims=[], writer=self.name, refused=True,
                         reason="no source sentence talks about the question")
        # the question's terms its asking sentence writes, when a situation told before it writes others (a question
        # of one sentence is ranked by its terms once)
        asked = {t: v for t, v in q.items() if t in asking}
        if asked.keys() == q.keys():
            asked = {}
        total_asked = sum(asked.values()) or 1.0
        for c in cands:
            c.covered = {t for t in q if t in c.stems}
            c.cov = sum(q[t] for t in c.covered) / total
            c.cov_asked = sum(asked[t] for t in c.covered if t in asked) / total_asked
        dense = self._cosines(question, cands)
        valued = _table_readings(sources, units or {})
        to_define = definitions.asked_to_define(question) if kind == "definition" else None
        for i, c in enumerate(cands):
            # a table row is read with the units its header names ("1,200" under "Fee (USD)" is an amount)
            text = valued.get(c.src.unit_id, {}).get(c.text.strip(), c.text) if tables.is_row(c.text) else c.text
            fit = fits_kind(text, kind, lead_in=bool(c.points), point=c.lead is not None, question=question)
            c.fit = fit
            c.defines_asked = to_define is not None and fit >= 1.0
            c.score = (c.cov + self.asked_weight * c.cov_asked + self.dense_weight * dense[i] + self.kind_weight * fit
                       + self.source_weight * c.src.score - 0.01 * c.rank - 0.0001 * min(len(c.text), 600))
        groups = self._pick(cands, kind, q, total)
        if not groups:
            return Draft(answer="", claims=[], writer=self.name, refused=True,
                         reason="no source sentence talks about the question")
        if kind == "list":
            groups = self._referred_lists(groups, cands)
        return self._compose(question, kind, _with_notes(groups, cands))

    def _referred_lists(self, groups: list[tuple[_Cand, list[_Cand], _Cand | None]],
                        cands: list[_Cand]) -> list[tuple[_Cand, list[_Cand], _Cand | None]]:
        """A quoted sentence that hands its content to a list elsewhere ("the data listed in Sections A
        and B of Annex VIII shall be entered", "shall contain the information set out in Annex V")
        brings that list's points when a source holds them: the list is the answer to a "which/what"
        question, the sentence only says where it is. The list takes the slot after the sentence; the
        number of quoted passages stays ``max_sentences``."""
        taken = {id(x) for _, group, _ in groups for x in group}
        lists = _lists_by_unit(cands)
        out: list[tuple[_Cand, list[_Cand], _Cand | None]] = []
        for g in groups:
            out.append(g)
            c = g[0]
            for name, every in lists.items():
                points = [x for x in every if x.src.unit_id != c.src.unit_id]  # not its own unit's points
                if not points:
                    continue
                # the list as its label writes it, or as the reference that retrieval followed from this
                # source to it was written here ("the objectives referred to in paragraph 1", whose own
                # reference led to Annex II)
                names = [name] + sorted({x.src.reference for x in points
                                         if x.src.reference and x.src.followed_from == c.src.label})
                if not any(re.search(_HANDS_OVER + rf"(?:[\w,]+\s+){{0,6}}?{re.escape(n)}(?!\w)", c.text, re.I)
                           for n in names):
                    continue  # a reference that does not hand content over ("pursuant to Article 9")
                free = [x for x in points if id(x) not in taken]
                if len(free) < len(points) or not (len(free) >= _MIN_LIST or any(x.lead for x in free)):
                    continue  # quoted already, in part or whole; or a paragraph or two, not a list
                best = max(free, key=lambda x: x.score)
                group, owner = self._group(best, "list")
                if any(id(x) in taken for x in group):
                    group, owner = [x for x in free[: self.max_points]], None
                out.append((best, group, owner))
                taken |= {id(x) for x in group}
        return out[: self.max_sentences]

    def _cosines(self, question: str, cands: list[_Cand]) -> list[float]:
        if self.embedder is None or self.dense_weight == 0:
            return [0.0] * len(cands)
        try:
            vecs = embed_cached(self.embedder, [question] + [c.context for c in cands])
        except Exception as e:  # noqa: BLE001 - a failing model must not cost the answer
            logging.getLogger(__name__).warning("sentence embeddings failed (%s); ranking without them", e)
            return [0.0] * len(cands)
        qv, sv = vecs[0], vecs[1:]
        norms = np.linalg.norm(sv, axis=1) * (np.linalg.norm(qv) or 1.0)
        sims = (sv @ qv) / np.where(norms == 0, 1.0, norms)
        return [float(x) for x in sims]

    def _pick(self, cands: list[_Cand], kind: str, q: dict[str, float],
              total: float) -> list[tuple[_Cand, list[_Cand], _Cand | None]]:
        """Passages to quote, best first: the sentence that ranked and the candidates quoted for it (a
        lead-in and its points, a point under its lead-in, or the sentence alone)."""
        # "How does the GDPR define 'processing'?" is answered by "'processing' means ...", however many of the
        # question's other words "'restriction of processing' means the marking of stored ..." writes
        order = sorted(cands, key=lambda c: (not c.defines_asked, -c.score))
        groups: list[tuple[_Cand, list[_Cand], _Cand | None]] = []
        taken: set[int] = set()
        covered: set[str] = set()
        for c in order:
            if len(groups) >= self.max_sentences:
                break
            if id(c) in taken:
                continue
            if not groups and c.score <= 0:
                break
            gain = sum(q[t] for t in c.covered - covered) / total
            # another value of the asked kind, close behind the first pick, is quoted beside it even
            # when it adds no question word: the reviewer sees the competing value
            rival = (self.alt_margin > 0 and kind in VALUE_KINDS and c.fit >= 1.0 and bool(groups)
                     and c.score >= groups[0][0].score - self.alt_margin)
            # so is a provision of another unit that ties with the first pick: the ranking cannot say
            # which of the two answers, so the reviewer sees both
            rival = rival or (self.tie_margin > 0 and bool(groups) and c.src.unit_id != groups[0][0].src.unit_id
                              and c.score >= groups[0][0].score - self.tie_margin)
            if groups and gain < self.min_gain and not rival:
                continue
            if c.lead is not None and kind != "list":
                # a list earns its place by what it adds; the point quoted from it is its best-answering one
                sibling = max((p for p in c.lead.points if not p.outside and id(p) not in taken),
                              key=lambda p: (p.defines_asked, p.score), default=c)
                if (sibling.defines_asked, sibling.score) > (c.defines_asked, c.score):
                    c = sibling
            group, owner = self._group(c, kind)
            if any(id(x) in taken for x in group):
                continue
            groups.append((c, group, owner))
            for x in group:
                taken.add(id(x))
                # a rival shown for what it competes with does not count as covering the question's
                # words: a passage that adds them still earns its own place
                if gain >= self.min_gain or len(groups) == 1:
                    covered |= x.covered
        return groups

    def _group(self, c: _Cand, kind: str) -> tuple[list[_Cand], _Cand | None]:
        """The candidates quoted for ``c`` and the lead-in whose points they show (``None``: no list)."""
        if c.continues is not None:  # a point's further sentence, quoted after its point, under its lead-in
            group, lead = self._group(c.continues, "")
            return [*group, c], lead
        lead = c if c.points else c.lead
        if lead is None:
            return [c], None
        chain = [lead]
        while chain[0].lead is not None:  # a nested lead-in is shown under its own lead-in
            chain.insert(0, chain[0].lead)
        chain = [x for x in chain if not x.outside]  # a lead-in no source holds is not quoted
        if c is not lead and kind != "list":
            return chain + [c], lead  # the point that answers, under the lead-in that says what the points are
        points = [p for p in lead.points if not p.outside]
        if len(points) > self.max_points:
            best = sorted(points, key=lambda p: -p.score)[: self.max_points]
            if c is not lead and c not in best:
                best[-1] = c
            points = [p for p in points if p in best]
        return chain + points, lead

    def _compose(self, question: str, kind: str, groups: list[tuple[_Cand, list[_Cand], _Cand | None]]) -> Draft:
        claims: list[DraftClaim] = []
        lines: list[str] = []
        notes: list[str] = []
        if kind == "yes_no":
            reading = yes_no_reading(question, groups[0][0])
            if reading is None:
                lines.append("The sources say:")
            else:
                first = groups[0][0].src
                lines.append(f"{reading} (the writer's reading of {first.label} [{first.n}], quoted below):")
                notes.append(f"the opening '{reading}' is the writer's reading of {first.label}, not a checked claim")
        for _, group, owner in groups:
            head = group[0]
            placed: dict[int, int] = {}  # candidate → its claim's index, for the points' lead-ins
            for i, c in enumerate(group):
                lines.append((f"{c.src.label}: " if i == 0 else "  ") + f"“{c.text}” [{c.src.n}]")
                under = c.continues if c.continues is not None else c.lead  # a point's further sentence: its point
                placed[id(c)] = len(claims)
                claims.append(DraftClaim(text=c.text, cited=[c.src.n], unit_id=c.src.unit_id,
                                         start=c.src.start + c.start, end=c.src.start + c.end,
                                         lead=placed.get(id(under)) if under is not None else None))
            if owner is not None:
                lead = owner
                rest = [p for p in lead.points if p not in group]
                if rest:
                    # bullets ("—") name nothing; "(a)", "3." do
                    named = [p.marker for p in rest if p.marker and not _is_bullet(p.marker)]
                    names = ", ".join(named[:8]) + (", …" if len(named) > 8 else "") if named else ""
                    lines.append(f"  … and {len(rest)} more of {head.src.label}" + (f" ({names})" if names else ""))
        return Draft(answer="\n".join(lines), claims=claims, writer=self.name, notes=notes)


def _with_notes(groups: list[tuple[_Cand, list[_Cand], _Cand | None]],
                cands: list[_Cand]) -> list[tuple[_Cand, list[_Cand], _Cand | None]]:
    """Each quoted passage with the notes its paragraphs refer to: an upload stores a document's footnotes and
    endnotes on their own lines after the paragraph whose mark refers to them (:data:`NOTE_LINE`), and a note
    qualifies what it is attached to ("within 30 days" / "Footnote 2: Days here means Business Days."), so a
    reviewer reads it with the quote. Only notes a source holds are quoted; a note quoted already is not
    repeated."""
    taken = {id(x) for _, group, _ in groups for x in group}
    out: list[tuple[_Cand, list[_Cand], _Cand | None]] = []
    for head, group, owner in groups:
        notes: list[_Cand] = []
        for c in group:
            for n in _notes_of(c, cands):
                if id(n) not in taken:
                    taken.add(id(n))
                    notes.append(n)
        out.append((head, group + notes, owner))
    return out


def _notes_of(c: _Cand, cands: list[_Cand]) -> list[_Cand]:
    """The quotable sentences of the note lines that follow the line ``c`` ends on, in its own source."""
    text = c.src.text
    nl = text.find("\n", max(c.end - 1, c.start))
    if nl < 0:
        return []
    lo = pos = nl + 1
    while NOTE_LINE.match(text, pos):
        eol = text.find("\n", pos)
        pos = len(text) if eol < 0 else eol + 1
    return [x for x in cands if x.src is c.src and not x.outside and lo <= x.start < pos] if pos > lo else []


# an enumerator: "(a)", "(iv)", "3.", "4.1.2.", "A.", a bullet ("—", "•", the RFCs' "o  "), or the term of a
# definition list ("invalid_scope:  The requested scope is invalid", or the term on a line of its own)
_POINT = re.compile(r"^\s*(?:\((?P<paren>[a-z]{1,4}|\d{1,3})\)|(?P<num>\d{1,3}(?:\.\d{1,3})*)\.(?=\s)|"
                    r"(?P<letter>[A-Z])\.(?=\s)|(?P<bullet>[—–•*-]|o(?=\s{2}))(?=\s)|"
                    r"(?P<term>\"?[a-z][a-z0-9]*(?:_[a-z0-9]+)+\"?)(?::(?=\s)|[ \t]*\n))")
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10, "xi": 11,
          "xii": 12, "xiii": 13, "xiv": 14, "xv": 15}
_TITLE = re.compile(r"[.;:!?,][\"'”’)\]]*$")


@dataclass(eq=False)
class _Cand:
    src: Source
    rank: int
    start: int
    """Offsets in the source's text (the chunk); the source's own ``start`` places them in the unit."""
    end: int
    text: str
    stems: set[str]
    marker: str = ""
    """The enumerator of a point: ``(a)``, ``3.``, ``—``; empty for other sentences."""
    lead: _Cand | None = None
    points: list[_Cand] = field(default_factory=list)
    continues: _Cand | None = None
    """The point this sentence goes on from ("invalid_token / The access token ... expired ... The resource
    SHOULD respond with the HTTP 401 (Unauthorized) status code."): it is read, and quoted, with it."""
    covered: set[str] = field(default_factory=set)
    cov: float = 0.0
    cov_asked: float = 0.0
    """The share of the asking sentence's terms (by weight) the sentence writes."""
    fit: float = 0.0
    score: float = 0.0
    defines_asked: bool = False
    """The sentence is the definition of the term the question asks the sources to define: it is quoted first."""
    outside: bool = False
    """Not in any source (read from the unit text): counted as a point, never quoted."""
    ustart: int = 0
    """Offset in the unit text, for reading the sources of one unit in order."""

    cites: str = ""
    """The titles of what the sentence cites that its own words do not say ("Chapter II — Prohibited AI
    practices" for "Chapters I and II shall apply ..."); empty when it cites nothing new."""

    @property
    def context(self) -> str:
        """What the sentence says read in place: a point is read after its lead-in(s), which say what the
        points are ("The following practices shall be prohibited:" + "(f) ... emotions ... workplace"),
        and with the titles of what it cites."""
        own = f"{self.text} ({self.cites})" if self.cites else self.text
        if self.continues is not None:
            return f"{self.continues.context} {own}"
        return own if self.lead is None else f"{self.lead.context} {own}"


def _read_cited(cands: list[_Cand], cited: Mapping[str, Sequence[tuple[int, int, str]]]) -> None:
    """Give each candidate the titles of the references inside it whose words it does not already hold."""
    for c in cands:
        spans = cited.get(c.src.unit_id)
        if not spans:
            continue
        end = c.ustart + len(c.text)
        have = {stem(w) for w in words(c.text)}
        titles = [t for a, b, t in spans if c.ustart <= a and b <= end and {stem(w) for w in words(t)} - have]
        c.cites = "; ".join(dict.fromkeys(titles))


# the verbs that hand a provision's content to another unit: "the data listed in Sections A and B of
# Annex VIII", "the information specified in Annex IX", "the procedure set out in Annex VII"
_HANDS_OVER = (r"\b(?:listed|set out|specified|laid down|referred to|contained|described|enumerated|provided for|"
               r"mentioned|identified|indicated|as defined)\s+(?:in|under)\s+")


_DOTTED = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?![\w]|\.\d)")  # "3.6.0", "4.1.2", not "3." ending a sentence

_MIN_LIST = 3
"""Enumerated passages a source unit must hold to count as a list when none of them follows a lead-in
(two numbered paragraphs are not one; the points under "The following information shall be provided:" are)."""


def _lists_by_unit(cands: list[_Cand]) -> dict[str, list[_Cand]]:
    """The quotable enumerated points of each source unit, by the unit's label as a reference writes it
    (the source label without its part: ``Annex VIII`` for ``Annex VIII(A)``)."""
    out: dict[str, list[_Cand]] = {}
    for c in cands:
        if c.outside or not c.marker:
            continue
        name = re.sub(r"\s*\([^()]*\)$", "", c.src.label).strip()
        if name:
            out.setdefault(name, []).append(c)
    for points in out.values():
        points.sort(key=lambda x: x.ustart)
    return out


def _key(m: re.Match[str]) -> tuple[str, int, str]:
    """(style, value, prefix) of an enumerator, for telling the next point from a nested one."""
    if m.group("paren"):
        v = m.group("paren")
        if v.isdigit():
            return "paren-num", int(v), ""
        return "alpha", ord(v[0]) - 96 if len(v) == 1 else 0, v
    if m.group("num"):
        parts = m.group("num").split(".")
        return f"num{len(parts)}", int(parts[-1]), ".".join(parts[:-1])
    if m.group("letter"):
        return "letter", ord(m.group("letter")) - 64, ""
    if m.group("term"):
        return "bullet", 0, ":"  # the terms of a definition list follow each other as bullets do
    return "bullet", 0, m.group("bullet")


def _follows(prev: tuple[str, int, str], m: re.Match[str]) -> bool:
    style, value, prefix = _key(m)
    if prev[0] == "bullet":
        return style == "bullet" and prefix == prev[2]
    if prev[0] == "roman":
        v = m.group("paren")
        return bool(v) and _ROMAN.get(v, 0) == prev[1] + 1
    if prev[0] == "alpha":
        return style == "alpha" and len(prefix) == 1 and value == prev[1] + 1
    return style == prev[0] and value == prev[1] + 1 and prefix == prev[2]


def _first_key(m: re.Match[str]) -> tuple[str, int, str]:
    if m.group("paren") == "i":
        return "roman", 1, ""  # "(i)" opens a roman list; "(a)" an alphabetic one
    return _key(m)


def _is_bullet(marker: str) -> bool:
    m = _POINT.match(marker + " ")
    return m is not None and m.group("bullet") is not None


# an entry of a references or footnotes section: "[22] [Python-Dev] Translated ...", ".. [#hg] Mercurial",
# "[RFC6749]  Hardt, D., ..." (it names a source; it answers nothing)
_CITATION_ENTRY = re.compile(r"^\s*(?:\.\.\s+)?\[(?:\d+|#?[\w.-]+)\]\s")
# a JSON object or array written out as an example ('{\n  "access_token":"2YotnFZ...",'): data, not a statement
_JSON_EXAMPLE = re.compile(r"^\s*[{\[]\s*(?:\n\s*)?\"[^\"\n]*\"\s*[:,\]]")


def _table_readings(sources: list[Source], units: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Per unit, its table rows as a value test reads them (:func:`anchor_core.tables.readings`): from the unit's
    stored text when given, which holds the header of a table that a chunk cut."""
    out: dict[str, dict[str, str]] = {}
    for src in sources:
        if src.unit_id not in out and "|" in src.text:
            out[src.unit_id] = tables.readings(units.get(src.unit_id, src.text))
    return out


def _quotable(text: str, rows: Mapping[str, str] | None = None) -> bool:
    """Whether a sentence may be quoted: not a title line, a reference entry or a JSON example. ``rows``: the
    unit's table rows (:func:`_table_heads`); a row states its cells, and a header row says what they are."""
    if rows and text.strip() in rows:
        return True
    if _CITATION_ENTRY.match(text) or _JSON_EXAMPLE.match(text):
        return False
    n = len(words(text))
    m = _POINT.match(text)
    if m and n >= 1 and _TITLE.search(text) is not None:
        return True  # a point of one word is a list item ("— terrorism,"), not a title line
    if m and m.group("bullet") and n >= 2:
        return True  # a bulleted line is an item, punctuated or not ("- 3.6.0 final: 2016-12-23")
    if n >= 1 and text.lstrip().startswith("```"):
        return True  # a fenced code block (a Markdown upload's "pip install pypdf[crypto]")
    return n >= 2 and (n >= 8 or _TITLE.search(text) is not None)


def _cand(src: Source, rank: int, start: int, end: int, text: str, heading: set[str], *, ustart: int,
          outside: bool = False) -> _Cand:
    m = _POINT.match(text)
    return _Cand(src=src, rank=rank, start=start, end=end, text=text, stems={stem(w) for w in words(text)} | heading,
                 marker=m.group(0).strip() if m else "", outside=outside, ustart=ustart)


def _all_candidates(sources: list[Source], units: Mapping[str, str]) -> list[_Cand]:
    """The sentences of the sources, whole (never cut at a length limit), with lead-ins linked to their
    enumerated points. Title lines (no closing punctuation, a few words) are left out.

    With a unit's stored text, the sources of one unit are read together in unit order, and the unit's
    sentences outside every source are added as ``outside``: a lead-in in one chunk then finds its points
    in another retrieved chunk of the same unit, and counts those that were not retrieved; an ``outside``
    sentence is never quoted (the checker only sees the sources), nor is a piece of a sentence that a
    chunk boundary cut."""
    by_unit: dict[str, list[tuple[int, Source]]] = {}
    for rank, src in enumerate(sources):
        by_unit.setdefault(src.unit_id, []).append((rank, src))
    out: list[_Cand] = []
    for uid, group in by_unit.items():
        text = units.get(uid)
        if text is None or any(text[src.start:src.end] != src.text for _, src in group):
            for rank, src in group:  # no unit text: each source on its own
                heading = {stem(w) for w in words(src.heading)}
                rows = _table_heads(src.text)
                out += _link([_cand(src, rank, x.start, x.end, x.text, heading, ustart=src.start + x.start)
                              for x in sentences(src.text, max_chars=None) if _quotable(x.text, rows)], rows)
            continue
        # the unit's sentences around its sources (a whole RFC is one unit: never segment all of it)
        lo = max(0, min(src.start for _, src in group) - _AROUND_BEFORE)
        hi = min(len(text), max(src.end for _, src in group) + _AROUND_AFTER)
        rows = _table_heads(text)
        whole = [x for x in _unit_sentences(text, lo, hi) if _quotable(x.text, rows)]
        spans = {(x.start, x.end) for x in whole}
        cands: list[_Cand] = []
        seen: set[tuple[int, int]] = set()
        for rank, src in group:
            heading = {stem(w) for w in words(src.heading)}
            for x in sentences(src.text, max_chars=None):
                key = (src.start + x.start, src.start + x.end)
                if key in seen or not _quotable(x.text, rows):
                    continue
                seen.add(key)
                cands.append(_cand(src, rank, x.start, x.end, x.text, heading, ustart=key[0],
                                   outside=key not in spans))  # a piece a chunk boundary cut is not quoted
        rank0, src0 = group[0]
        heading0 = {stem(w) for w in words(src0.heading)}
        ranges = [(src.start, src.end) for _, src in group]
        cands += [_cand(src0, rank0, x.start - src0.start, x.end - src0.start, x.text, heading0, ustart=x.start,
                        outside=True)
                  for x in whole if not any(a < x.end and x.start < b for a, b in ranges)]
        cands.sort(key=lambda c: (c.ustart, c.outside))
        out += _link(cands, rows)
    return out


_AROUND_BEFORE = 5_000
_AROUND_AFTER = 20_000


@lru_cache(maxsize=256)
def _unit_sentences(text: str, lo: int, hi: int) -> tuple[Sentence, ...]:
    """Whole sentences of ``text[lo:hi]`` with offsets into ``text`` (cached: a unit is read once per run
    and often again by the next question)."""
    return tuple(Sentence(lo + x.start, lo + x.end, x.text) for x in sentences(text[lo:hi], max_chars=None))


def _column(c: _Cand) -> int | None:
    """The column a candidate starts at when it starts a line of its source, else ``None`` (it goes on in
    the line of the sentence before it)."""
    text = c.src.text
    line = text[text.rfind("\n", 0, c.start) + 1:c.start]
    return len(line) if not line.strip() else None


def _fenced(c: _Cand, after: list[_Cand]) -> bool:
    """A lead-in followed by a fenced code block (Markdown: "install extra dependencies:" then "```" ... "```"):
    the block, one passage to the segmenter (:func:`~anchor_core.segment.is_fenced_block`), is what the lead-in
    introduces, so it becomes the lead-in's point. ``False`` (nothing linked) when no whole block follows it in
    the same source (an unclosed fence is no block)."""
    if not after or after[0].outside or after[0].src is not c.src or not is_fenced_block(after[0].text):
        return False
    if after[0].lead is None:
        after[0].lead = c
    c.points.append(after[0])
    return True


def _table_heads(text: str) -> dict[str, str]:
    """Each line of a table of ``text`` (:func:`anchor_core.tables.table_runs`) mapped to its table's header row."""
    if "|" not in text:
        return {}
    return {line: run[0] for run in tables.table_runs(text) for line in run}


def _link(out: list[_Cand], rows: Mapping[str, str] | None = None) -> list[_Cand]:
    """Link each lead-in (a sentence ending with a colon) to the enumerated points that follow it, and each table
    row to its header row (``rows``: :func:`_table_heads`)."""
    for i, c in enumerate(out):
        if not c.text.rstrip().endswith(":"):
            continue
        if _fenced(c, out[i + 1:]):
            continue
        prev: tuple[str, int, str] | None = None
        nested = False  # inside the points of a point that is itself a lead-in
        last = c
        col = _column(c)
        for p in out[i + 1:]:
            m = _POINT.match(p.text)
            if m is None:
                # a further sentence of the last point (an RFC definition runs on: "invalid_token / The
                # access token provided is expired ... The resource SHOULD respond with ..."): one that
                # goes on in the same line, or a line indented deeper than the lead-in, does not end the list
                if c.points and not p.outside and ((pc := _column(p)) is None or (col is not None and pc > col)):
                    if p.continues is None and p.lead is None:
                        p.continues = c.points[-1]
                    continue
                break
            opens = last.text.rstrip().endswith(":")
            if prev is None:
                prev = _first_key(m)
            elif not (opens and m.group("paren") == "i") and _follows(prev, m):
                prev = (prev[0], prev[1] + 1, prev[2]) if prev[0] in ("roman", "alpha") else _key(m)
                nested = False
            elif opens or nested:
                nested = True  # "(c) ... the following:" then "(i)", "(ii)": (c)'s points, not the list's
                last = p
                continue
            else:
                break  # another enumeration (the next numbered paragraph): the list has ended
            last = p
            if p.lead is None:
                p.lead = c
            c.points.append(p)
    if rows:
        _link_tables(out, rows)
    for c in out:  # a point's words include its lead-in's (outermost first, so nested points get all)
        if c.lead is not None:
            c.stems |= c.lead.stems
        if c.continues is not None:  # and a point's further sentence its point's (in order: they come after it)
            c.stems |= c.continues.stems
    return out


def _link_tables(out: list[_Cand], rows: Mapping[str, str]) -> None:
    """Link each table row to its header row, as a point to its lead-in: a row is read, and quoted, under the header
    that says what its cells are."""
    heads: dict[str, _Cand] = {}
    for c in out:
        head = rows.get(c.text.strip())
        if head is None:
            continue
        if c.text.strip() == head:
            heads[head] = c
        elif (h := heads.get(head)) is not None and c.lead is None and h.lead is None:
            c.lead = h
            h.points.append(c)


_PERMIT_Q = re.compile(r"^\W*(?:(?:and|so|but|also|now)\W+)?(?:can|could|may|might)\b|\b(?:is|are) (?:it|we|they|"
                       r"you|\w+) (?:\w+ ){0,2}(?:allowed|permitted|lawful|legal|ok)\b|\bis it (?:allowed|permitted|"
                       r"lawful|legal|ok)\b", re.I)
_DUTY_Q = re.compile(r"\b(?:have|has|need|needs) to\b|\bmust\b|\b(?:obliged|required|obligated) to\b|"
                     r"\bdo (?:we|they|you|i) need\b|\bshall\b", re.I)
_APPLY_Q = re.compile(r"^\W*(?:does|do|is|are|will)\b.*\b(?:apply|applies|cover|covers|covered)\b", re.I)
_PROHIBITED = re.compile(r"\b(?:shall|is|are) (?:be )?prohibited\b|\bshall not be (?:placed|put|used|permitted)\b",
                         re.I)
_NOT_APPLY = re.compile(r"\b(?:does|do|shall) not apply\b", re.I)
# a duty: "shall" followed by an action (not "shall not", not the classification "shall be considered")
_DUTY = re.compile(r"\b(?:shall|must)(?: \w+ly)? (?!not\b|be\b|apply\b|mean\b|have\b)\w+|\bshall be (?:subject|"
                   r"required|obliged)\b|\bshall have the right\b", re.I)


def yes_no_reading(question: str, picked: _Cand) -> str | None:
    """``"Yes"`` / ``"No"`` when the sentence that answers states a rule that settles the question,
    else ``None`` (the writer then opens with "The sources say:").

    Conservative by design. The sentence (with its lead-in, for a point) must hold at least
    :data:`READING_COVERAGE` of the question's IDF-weighted terms, and only three readings are made:

    * a permission question ("Can we ...?", "Is it lawful to ...?") answered by a prohibition
      ("shall be prohibited", or a point under a lead-in that says so) → ``No``;
    * a scope question ("Does the Act apply to ...?") answered by "does not apply" → ``No``;
    * a duty question ("Do we have to ...?", "Are providers obliged to ...?") answered by a duty
      ("shall" with an action, "shall have the right") with no "does not apply" or prohibition beside it
      → ``Yes``.

    A lead-in quoted for its list never settles a question alone (the list may not hold the asked case).
    """
    if picked.points or picked.text.rstrip().endswith(":") or picked.cov < READING_COVERAGE:
        return None
    text = picked.text
    lead = picked.lead.text if picked.lead is not None and not picked.lead.outside else ""  # only what is quoted
    duty_q = bool(_DUTY_Q.search(question) or re.match(r"^\W*(?:is|are) \w+(?: \w+)? (?:obliged|required)\b",
                                                        question, re.I))
    if _PERMIT_Q.search(question) and not duty_q:
        return "No" if _PROHIBITED.search(text) or _PROHIBITED.search(lead) else None
    if _APPLY_Q.search(question) and not duty_q:
        return "No" if _NOT_APPLY.search(text) else None
    if duty_q and _DUTY.search(text) and not _NOT_APPLY.search(text) and not _PROHIBITED.search(text + " " + lead):
        return "Yes"
    return None


READING_COVERAGE = 0.5
"""Share of the question's weighted terms the settling sentence must hold (a prior, not fitted: half the
question's content must be in the rule before the writer reads a Yes or No out of it)."""


_VEC_CACHE: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_VEC_CACHE_SIZE = 20_000


def embed_cached(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """``embedder.embed(texts)`` with the vectors of texts seen before (same model) reused; missing
    texts are embedded in one batch."""
    model = getattr(embedder, "model_id", type(embedder).__name__)
    missing = list(dict.fromkeys(t for t in texts if (model, t) not in _VEC_CACHE))
    if missing:
        for t, v in zip(missing, embedder.embed(missing)):
            _VEC_CACHE[(model, t)] = np.asarray(v, dtype=np.float32)
        while len(_VEC_CACHE) > _VEC_CACHE_SIZE:
            _VEC_CACHE.popitem(last=False)
    return np.vstack([_VEC_CACHE[(model, t)] for t in texts])


SYSTEM = ("You answer questions for compliance reviewers strictly from the numbered sources given. "
          "Every sentence of your answer must end with the marker of the source that supports it, like [2]. "
          "Use only facts stated in the sources; do not add outside knowledge. Keep it short (at most five "
          "sentences). If the sources do not answer the question, reply exactly 'INSUFFICIENT: ' followed by "
          "one sentence saying what is missing.")


def render_sources(sources: list[Source]) -> str:
    return "\n\n".join(f"[{s.n}] {s.label}: {' '.join(s.text.split())}" for s in sources)


class LLMWriter:
    name = "llm"

    def __init__(self, client: ChatClient, model: str) -> None:
        self.client = client
        self.model = model

    def write(self, question: str, sources: list[Source], terms: list[str], weights: dict[str, float]) -> Draft:
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f"Sources:\n\n{render_sources(sources)}\n\nQuestion: {question}"}]
        text = self.client.complete(messages, model=self.model)
        notes: list[str] = []
        for attempt in range(2):
            m = _REFUSAL.match(text)
            if m:
                return Draft(answer="", claims=[], writer=f"llm:{self.model}", refused=True,
                             reason=m.group(1).strip() or "the sources do not answer the question", notes=notes)
            problem = _malformed(text, {s.n for s in sources})
            if problem is None:
                return Draft(answer=text.strip(), claims=split_marked(text), writer=f"llm:{self.model}", notes=notes)
            if attempt == 0:
                notes.append(f"writer output malformed ({problem}); asked for a repair")
                messages += [{"role": "assistant", "content": text},
                             {"role": "user", "content": f"Your answer is not usable: {problem}. Rewrite it so that "
                              "every sentence ends with the [n] marker of a source listed above, or reply "
                              "'INSUFFICIENT: ' and why."}]
                text = self.client.complete(messages, model=self.model)
        raise LLMError(f"the writer's output stayed malformed after one repair ({problem})")


def _malformed(text: str, valid: set[int]) -> str | None:
    if not text.strip():
        return "empty answer"
    claims = split_marked(text)
    if not claims:
        return "no sentence of three or more words"
    cited = {n for c in claims for n in c.cited}
    if not cited:
        return "no [n] source markers"
    bad = sorted(cited - valid)
    if bad:
        return f"markers {bad} name no source (valid: 1 to {max(valid) if valid else 0})"
    return None


JUDGE_SYSTEM = ("You decide whether numbered sources contain the answer to a question. Reply with JSON "
                '{"answerable": true|false, "reason": "<one sentence>"}. Say false when the sources are about a '
                "related topic but do not state the answer.")


def llm_judge(client: ChatClient, model: str, question: str, sources: list[Source]) -> tuple[bool, str]:
    messages = [{"role": "system", "content": JUDGE_SYSTEM},
                {"role": "user", "content": f"Sources:\n\n{render_sources(sources)}\n\nQuestion: {question}"}]
    text = client.complete(messages, model=model, max_tokens=200, json_mode=True)
    try:
        data = json.loads(_json_part(text))
        return bool(data["answerable"]), str(data.get("reason", ""))
    except (ValueError, KeyError, TypeError):
        raise LLMError(f"the judge's reply is not the JSON asked for: {text[:120]!r}") from None


DECOMPOSE_SYSTEM = ("Split the answer into atomic factual claims, each checkable on its own against a source. "
                    'Reply with JSON {"claims": [{"text": "...", "sources": [n, ...]}]} keeping the [n] markers '
                    "of the sentence each claim comes from. Do not add facts.")


def llm_decompose(client: ChatClient, model: str, answer: str) -> list[DraftClaim]:
    messages = [{"role": "system", "content": DECOMPOSE_SYSTEM}, {"role": "user", "content": answer}]
    text = client.complete(messages, model=model, max_tokens=800, json_mode=True)
    try:
        data = json.loads(_json_part(text))
        out = [DraftClaim(text=str(c["text"]).strip(), cited=[int(n) for n in c.get("sources", [])])
               for c in data["claims"]]
    except (ValueError, KeyError, TypeError):
        raise LLMError(f"the decomposer's reply is not the JSON asked for: {text[:120]!r}") from None
    return [c for c in out if len(words(c.text)) >= 3]


def _json_part(text: str) -> str:
    a, b = text.find("{"), text.rfind("}")
    return text[a: b + 1] if a >= 0 and b > a else text
