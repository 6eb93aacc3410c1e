"""Answerability from the answering passage: does a retrieved passage hold the asked kind of answer
about the asked focus?

Global coverage ("the corpus mentions every word somewhere") is the wrong test: a regulation that
covers notified bodies at length still states no fee. So the test runs on the passages that
retrieval (and the reference hops) returned, one sentence at a time:

``focus``
    the best IDF-weighted share of the question's focus parts that one sentence (with the sentence
    before it and the unit heading) contains. Parts the corpus never uses (lay words such as
    "chatbots") carry no weight: dense retrieval found the provision, and a word the corpus does
    not use cannot be asked of it. Names and acronyms are different (``term_missing``).
``tied``
    for a question that asks for a value (a date, duration, amount, percentage, count, body,
    place): the same share, but only over sentences that contain an expression of that kind
    (:func:`anchor_core.ask.question.answer_values`). The value must sit next to the focus, not
    anywhere in the corpus: in the sentence itself (the unit heading counts half,
    :data:`HEADING_SHARE`), and the unit at the other end of a reference only when that sentence
    writes the reference ("fines ... for infringements of Article 4"), not every unit a hop linked to
    it; what the sentence exempts ("other than ...") does not count. A question that counts time
    ("how many days") takes only an amount of time, never a calendar date; one that asks for a status
    or an error code takes only a code. For other kinds it equals ``focus``.
``tied_local``
    ``tied`` with each focus part's IDF multiplied by ``log(1 + n / df)``, where ``df`` counts the
    retrieved sentences that write the part and ``n`` all of them: the parts every retrieved passage
    writes ("notifying authority") say little about which sentence answers, the ones few write
    ("withdraw") say much. A value of a neighbouring step shares the common parts and misses the
    telling one. Parts no retrieved sentence writes are left out (``tied`` already counts them).
``tied_asked``
    ``tied`` over the focus parts of the asking sentence only (:func:`asked_sentence`), not of the
    situation a practitioner tells before it; equal to ``tied`` for a one-sentence question.
``dense``
    the best cosine between the question and a retrieved chunk.
``answers``
    the best score of the ``answers`` cross-encoder (:mod:`anchor_core.crossencoder`, trained
    here on ObliQA and rule-made pairs) over the retrieved passages: does this passage hold the
    answer, read as a whole rather than word by word. Run only when ``ANCHOR_ANSWER_MODEL=answers`` asks
    for it (and torch is installed); by default the model without it (``fallback`` in the JSON) decides. On
    every dev and held-out question measured (the 303 dev questions and fresh rounds 18-22: 903) the two
    refuse exactly the same questions, and the cross-encoder made ``anchor ask`` 1.7 times slower (1.81 s
    against 1.08 s per question on 2 cores, ``python -m bench.ask_latency``), so it is opt-in since session 44.

A logistic model over these (``data/answerable.json``, fitted by ``python -m
eval.answerability --write`` leave-one-corpus-out) turns them into a score; the kind label is not
a feature, so the model cannot learn "number questions are unanswerable".
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import numpy as np

from anchor_core import crossencoder, definitions, tables
from anchor_core.ask.question import (
    LOWER_WORD,
    MULTIPLICATIVE,
    TIME_UNIT_WORD,
    QuestionAnalysis,
    analyse,
    answer_values,
    asked_form,
    asked_sentence,
    asked_unit,
    asks_bound,
    asks_calendar_point,
    counted,
    counts_time,
    expressions,
    focus_phrase,
    has_number,
    is_event_bounded,
    is_frequency,
    is_time_amount,
    is_word_count,
    mask_references,
    named_list,
)
from anchor_core.embeddings import Embedder
from anchor_core.models import Hit
from anchor_core.scorers.text import stem
from anchor_core.segment import sentences
from anchor_core.text import STOP_WORDS, words

# a deadline may be stated as a date or as a period; a fine as a sum or as a share of turnover
ACCEPTS: dict[str, tuple[str, ...]] = {
    "date": ("date", "duration"), "duration": ("duration", "date"), "amount": ("amount", "percentage"),
    "percentage": ("percentage",), "count": ("count",), "person_or_body": ("person_or_body",), "place": ("place",),
}
KIND_NOUN = {"date": "date", "duration": "period or deadline", "amount": "amount", "percentage": "percentage",
             "count": "number", "person_or_body": "person or body", "place": "place", "status": "status code",
             "code": "error code", "age": "age", "names": "names"}


_HOW_LONG = re.compile(r"\bhow long\b", re.I)
# "how long does it take / last": the length of a process, which no date or deadline states (whereas "how long
# do we have to ..." may be answered by one: "by 2 August 2026")
_HOW_LONG_TAKES = re.compile(r"\bhow long\b[^?]*?\b(?:take|takes|taking|last|lasts|run|runs)\b", re.I)
# "how long does it usually take", "how many have been designated so far": what happens in practice or has
# happened until now, which a rule ("within two weeks") does not state; only a sentence that speaks of
# practice or of the present count does
_ASKS_PRACTICE = re.compile(r"\b(?:usually|typically|normally|on average|in practice|so far|to date|"
                            r"up to now|until now)\b", re.I)
_STATES_PRACTICE = re.compile(r"\b(?:usual(?:ly)?|typical(?:ly)?|normal(?:ly)?|average|in practice|so far|"
                              r"to date|up to now|until now|generally|as a rule|in most cases|commonly|"
                              r"currently|at present|as of)\b", re.I)
_HOW_OFTEN = re.compile(r"\bhow (?:often|frequently)\b", re.I)
# "how long is the term", "how long are certificates valid": the length of something, not a point in time
_HOW_LONG_IS = re.compile(r"\bhow long (?:is|are|was|were)\b", re.I)


def _asks_how_long_it_takes(question: str, kind: str) -> bool:
    """A duration question about the length of a process ("how long does it take"), not how often."""
    return kind == "duration" and bool(_HOW_LONG_TAKES.search(question)) and not _HOW_OFTEN.search(question)

HEADING_SHARE = 0.5
"""How much a focus part found only in the unit heading ties a value to the focus (one in the value's own
sentence: 1). Set a priori, not searched: it was the only value tried (gate LOCO 72/92 refused, 20/211
falsely -> 73/92, 18/211)."""


def accepted_kinds(question: str, kind: str) -> tuple[str, ...]:
    """The kinds of expression that can answer a question of ``kind`` (:data:`ACCEPTS`), narrowed by
    what the question's wording asks for.

    >>> accepted_kinds("When must we reply?", "date"), accepted_kinds("In which year does it apply?", "date")
    (('date', 'duration'), ('date',))
    >>> accepted_kinds("Within how many hours?", "duration"), accepted_kinds("What fee in US dollars?", "amount")
    (('duration',), ('amount',))
    """
    accepts = ACCEPTS.get(kind, ())
    # "how many days" asks for a quantity of time: a calendar date, "by 2 August" or "without undue
    # delay" is not one
    if kind == "duration" and counts_time(question):
        return ("duration",)
    # "the maximum retention period", "what minimum notice": a length of time, which a date is not
    if kind == "duration" and asks_bound(question):
        return ("duration",)
    # "how long does it take", "how long is the term of office": a length of time too ("by 2 August 2025" is not
    # one); "how long do we have to" may still be answered by a deadline
    if _asks_how_long_it_takes(question, kind) or (kind == "duration" and _HOW_LONG_IS.search(question)):
        return ("duration",)
    # "in which year" asks for a point on the calendar: "three years" is not one
    if kind == "date" and asks_calendar_point(question):
        return ("date",)
    # "in US dollars" asks for a sum of money: a share of turnover is not one
    if kind == "amount" and (asked_unit(question) or ("",))[0] == "money":
        return ("amount",)
    # "which status code": an HTTP status; "what error": an error code or a status; "at what age": an age
    if kind == "other" and (form := asked_form(question)):
        return (form,)
    # "which audit firms", "with which third countries": a list of named things, answered by their names
    if kind == "list" and (named := named_list(question)):
        return (named,)
    return accepts


@dataclass
class Answerability:
    analysis: QuestionAnalysis
    focus: float = 0.0
    tied: float = 0.0
    tied_local: float = 0.0
    """``tied`` with each focus part weighed also by how few retrieved sentences write it: the parts that tell
    the passages apart count most."""
    tied_asked: float = 0.0
    """``tied`` over the parts of the question's asking sentence only, not the situation told before it."""
    dense: float = 0.0
    sentence: str = ""
    """The sentence that best ties the asked kind to the focus (or best covers the focus)."""
    expression: str = ""
    """The expression of the asked kind in that sentence (``72 hours``), when the kind is a value."""
    unknown: list[str] = field(default_factory=list)
    """Focus parts the corpus never uses (given no weight)."""
    answers: float | None = None
    """The cross-encoder's best score over the passages (``None``: not run)."""
    answer_passage: str = ""
    """The passage the cross-encoder scored best."""
    asked: str = ""
    """The kind of expression the question asks for, when it asks for one (:data:`KIND_NOUN`'s keys: the
    analysis's value kind, or the form an ``other`` question names: ``status``, ``code``, ``age``)."""
    term: str = ""
    """The term the question asks the sources to define ("How does the GDPR define 'consent'?"), if it asks so."""
    defined: bool | None = None
    """Whether a retrieved sentence defines :attr:`term` (:func:`anchor_core.definitions.defines`, or the corpus's
    definition that retrieval fetched for it); ``None`` when the question asks for no definition."""
    term_used: bool = False
    """Whether a retrieved passage writes :attr:`term` at all (defining it or not)."""
    action: str = ""
    """The act whose procedure the question asks for, as the question writes it ("What is the procedure for
    *applying* to be appointed?"), if it asks so (:func:`asked_action`)."""
    action_phrase: str = ""
    """The act with what follows it in the asking clause ("applying to be appointed as a member")."""
    action_found: bool | None = None
    """Whether a retrieved sentence about the question's focus writes :attr:`action` (or a word of its family:
    "revocation" for "revoking"); ``None`` when the question asks for no procedure of an act."""

    def features(self) -> dict[str, float]:
        f = {"dense": self.dense, "focus": self.focus, "tied": self.tied, "tied_local": self.tied_local,
             "tied_asked": self.tied_asked}
        if self.answers is not None:
            f["answers"] = self.answers
        return f

    def as_dict(self) -> dict:
        a = self.analysis
        return {"kind": a.kind, "focus_terms": a.parts, "focus": round(self.focus, 3), "tied": round(self.tied, 3),
                **({"term": self.term, "defined": self.defined} if self.defined is not None else {}),
                **({"action": self.action, "action_found": self.action_found}
                   if self.action_found is not None else {}),
                "tied_local": round(self.tied_local, 3), "tied_asked": round(self.tied_asked, 3),
                "dense": round(self.dense, 3), "expression": self.expression, "answer_sentence": self.sentence[:200],
                "unknown": self.unknown,
                **({"answers": round(self.answers, 3), "answer_passage": self.answer_passage[:200]}
                   if self.answers is not None else {})}


def passage_text(hit: Hit) -> str:
    """What the cross-encoder reads of a hit: its heading, then its text."""
    return f"{hit.heading}. {hit.text}" if hit.heading and hit.heading not in hit.text[:200] else hit.text


def answer_scores(question: str, hits: list[Hit]) -> list[float] | None:
    """The ``answers`` cross-encoder over every hit, when ``ANCHOR_ANSWER_MODEL=answers`` asks for it (``None``
    otherwise, the default, or when it is not installed)."""
    if os.environ.get("ANCHOR_ANSWER_MODEL", "").strip().lower() != "answers" or not hits:
        return None
    if not crossencoder.available("answers"):
        return None
    return crossencoder.shared("answers").score([question] * len(hits), [passage_text(h) for h in hits])


def assess(question: str, hits: list[Hit], *, weights: dict[str, float], dense: float = 0.0,
           analysis: QuestionAnalysis | None = None, answers: list[float] | None = None,
           embedder: Embedder | None = None, units: Mapping[str, str] | None = None) -> Answerability:
    """Score how well one place in ``hits`` answers ``question``. ``weights`` maps words to their
    IDF in the corpus (0.0 = never used); words missing from it count as unknown. ``answers``: the
    cross-encoder's score per hit (:func:`answer_scores`), when it ran. ``embedder``: lets a count
    question's noun match the corpus's word for it (:func:`count_synonyms`); without one, only its own
    word counts. ``units``: the stored texts of the hits' units by id, so that a table row whose chunk does not
    hold its table's header is still read with the header's units (:mod:`anchor_core.tables`)."""
    a = analysis or analyse(question)
    out = Answerability(analysis=a, dense=dense)
    if answers is not None and len(answers) == len(hits) and hits:
        best = max(range(len(hits)), key=lambda i: answers[i])
        out.answers, out.answer_passage = float(answers[best]), hits[best].text
    parts = a.parts
    idf = {p: weights.get(p, 0.0) for p in parts}
    out.unknown = [p for p in parts if not idf[p]]
    known = [p for p in parts if idf[p]]
    stems = {p: stem(p) for p in known}
    accepts = accepted_kinds(question, a.kind)
    out.asked = a.kind if a.value else accepts[0] if len(accepts) == 1 and accepts[0] in KIND_NOUN else ""
    if a.kind == "list" and accepts:  # a list of named things (accepted_kinds): what is missing is their names
        out.asked = "names"
    time_amount = a.kind == "duration" and counts_time(question)
    practice = bool(_ASKS_PRACTICE.search(question))
    how_long = a.kind == "duration" and bool(_HOW_LONG.search(question)) and not _HOW_OFTEN.search(question)
    how_often = a.kind == "duration" and bool(_HOW_OFTEN.search(question))
    how_long_takes = _asks_how_long_it_takes(question, a.kind)  # _HOW_LONG_TAKES implies how_long
    # a count answers "how many members" only next to "members", not as any number in the sentence
    unit_noun = stem(counted(question) or "") if a.kind == "count" else ""
    terms = named_terms(question, hits)
    # the versions, sections and acts the question names its subject by ("on what date was the release candidate of
    # 3.2.5 published?"): a value next to another one of them is that one's
    asked_ids = identifiers(question)
    # a passage reached by a reference (or one whose reference was followed) is read with the other
    # end: the penalty article that cites "Article 4" is about what Article 4 is about
    unit_stems: dict[str, set[str]] = {}
    for h in hits:
        unit_stems.setdefault(h.unit_id, set()).update(stem(w) for w in words(f"{h.heading} {h.text}"))
    linked: dict[str, set[str]] = {}
    # (the reference as written, the unit at its other end), per unit: a value's sentence reads the
    # other end only when it writes that reference itself ("fines ... for infringements of Article 4")
    refs: dict[str, list[tuple[str, str]]] = {}
    for h in hits:
        for step in h.via[:1]:
            linked.setdefault(h.unit_id, set()).update(unit_stems.get(step.unit_id, set()))
            linked.setdefault(step.unit_id, set()).update(unit_stems.get(h.unit_id, set()))
            if step.raw:
                refs.setdefault(h.unit_id, []).append((step.raw, step.unit_id))
                refs.setdefault(step.unit_id, []).append((step.raw, h.unit_id))
    # every sentence once: which focus parts its window (it, the sentence before it, the unit heading) holds,
    # which its value can be tied to (its own words, or the heading at half weight), and whether a value in it
    # may answer at all; the scores below weigh these sets three ways
    reads: list[_Reading] = []
    # per unit (per chunk when its unit's text is not given): its table rows as a value test reads them, made once
    tabled: dict[str, dict[str, str]] = {}
    for h in hits:
        sents = sentences(h.text) or []
        # a table row is read with the units its column headers name ("Annual renewal | 1,200" under "Fee (USD)")
        whole = units.get(h.unit_id) if units else None
        key = h.unit_id if whole is not None else h.chunk_id
        if "|" in h.text and key not in tabled:
            tabled[key] = tables.readings(whole if whole is not None else h.text)
        table = tabled.get(key, {}) if "|" in h.text else {}
        heading = {stem(w) for w in words(h.heading)}
        head = heading | linked.get(h.unit_id, set())
        sent_stems = [{stem(w) for w in words(h.text[s.start:s.end])} for s in sents]
        for i, s in enumerate(sents):
            window = sent_stems[i] | (sent_stems[i - 1] if i else set()) | head
            # the value must sit in the sentence that talks about the focus (its unit heading aside,
            # and the unit at the other end of a reference that the sentence itself writes)
            text = h.text[s.start:s.end]
            # what the sentence exempts is not what its value is about: "a REIT other than a Qualified
            # Investor Fund may borrow up to 65%" states no limit for a Qualified Investor Fund, so its
            # value does not answer a question about one
            kept = exempted_removed(text)
            own = {stem(w) for w in words(kept)}
            exempts_asked = kept != text and any(stems[p] in sent_stems[i] and stems[p] not in own for p in known)
            for raw, other in refs.get(h.unit_id, []):
                if raw in text:
                    own = own | unit_stems.get(other, set())
            # a defined term of the question ("Trust Service Provider") that the passages write whole: where
            # the value's sentence (or the one before it) writes another term of the same head instead, the
            # value is that term's: a "Third Party Provider"'s cover is no Trust Service Provider's, though
            # "provider" and "cover" match. (A short form, "the Board" for "the European Data Protection
            # Board", is no other term.)
            rival = bool(terms) and rival_term(h.text[sents[i - 1].start:s.end] if i else text, terms)
            if asked_ids and not rival:
                before = h.text[sents[i - 1].start:s.start] if i else ""
                rival = rival_identifier(f"{h.heading}\n{before}{text}", text, asked_ids)
            reads.append(_Reading(
                text=text, valued=table.get(text.strip(), text) if table else text,
                window={p for p in known if stems[p] in window},
                # the unit heading says what the unit is about, not what this sentence's value is about ("for
                # six years, records of:" under "Shari'a Supervisory Board"): a focus part only the heading
                # holds ties the value half as much
                own={p for p in known if stems[p] in own}, heading={p for p in known if stems[p] in heading},
                tieable=not rival and not (practice and not _STATES_PRACTICE.search(text)) and not exempts_asked,
                stems=sent_stems[i]))
    # what a count question counts may be written in the corpus's own word ("how many EU countries": "three
    # Member States"); the words after the numbers are embedded only when a count is not next to the question's own
    # noun, and once per question
    synonyms: list[frozenset[str]] = []
    # what a count of times counts ("renewable once" for "how many times can it be renewed"), not its period ("a year")
    events = frozenset(stems[p] for p in known if not TIME_UNIT_WORD.fullmatch(p))

    def also() -> frozenset[str]:
        if not synonyms:
            followers = set().union(*(number_followers(r.text) for r in reads))
            synonyms.append(count_synonyms(counted(question) or "", followers, embedder))
        return synonyms[0]

    found_at: dict[int, list[str]] = {}
    # the words the retrieved passages write in lower case: a capitalised phrase made only of them is a term or a
    # heading, not the name of someone who acts, nor of a named place or organisation that a list asks for (read only
    # for a question a person, a body or a place answers)
    common = (frozenset(w for h in hits for w in LOWER_WORD.findall(h.text))
              if {"person_or_body", "place"} & set(accepts) else None)

    def values(i: int) -> list[str]:
        if i not in found_at:
            text = reads[i].valued
            found = [e for k in accepts for e in answer_values(text, k, question, numeric=a.numeric, common=common)]
            if time_amount:
                found = [e for e in found if is_time_amount(e)]
            elif how_often:  # "how often": a period bounded by an event ("throughout its lifecycle") is no frequency
                found = [e for e in found if not is_event_bounded(e)]
            elif how_long:  # "how long" is not answered by a frequency ("regularly"), and "how long does
                # it take" not by a deadline either ("by 2 August 2025")
                found = [e for e in found if not is_frequency(e) and not (how_long_takes and expressions(e, "date"))]
            if found and unit_noun:
                near = counts_next_to(text, unit_noun, events=events) or (
                    embedder is not None and counts_next_to(text, unit_noun, also=also()))
                # a quantifier over the listed items ("one of the following", "both of the following conditions")
                # is read where it stands, so it needs no number beside the noun
                found = found if near else [e for e in found if is_word_count(e)]
            found_at[i] = found
        return found_at[i]

    # a question whose every focus word the corpus never writes ("Which courts have jurisdiction over disputes?"
    # over a contract that names no court) has no lexical evidence anywhere: nothing is covered (0.0), rather than
    # everything the corpus knows of it (vacuously 1.0). A question with no focus words at all keeps 1.0. Over
    # the dev sets and rounds 1-26 no question is such: every one writes a word its corpus uses.
    vacuous = 1.0 if known or not parts else 0.0

    def strongest(w: dict[str, float]) -> tuple[float, float, int, int]:
        """(focus, tied, the focus sentence, the tied sentence) under the part weights ``w``."""
        total = sum(w.values())
        best_focus, best_tied, at_focus, at_tied = 0.0, 0.0, -1, -1
        for i, r in enumerate(reads):
            cover = sum(w.get(p, 0.0) for p in r.window) / total if total else vacuous
            if cover > best_focus:
                best_focus, at_focus = cover, i
            if not accepts or not r.tieable:
                continue
            held = sum(w.get(p, 0.0) * (1.0 if p in r.own else HEADING_SHARE) for p in r.own | r.heading)
            tie = held / total if total else vacuous
            if tie > best_tied and values(i):
                best_tied, at_tied = tie, i
        return best_focus, best_tied, at_focus, at_tied

    def feature(w: dict[str, float]) -> float:
        """``tied`` under the part weights ``w`` (``focus`` for a question that asks for no value)."""
        f, t, _, _ = strongest(w)
        return t if accepts else f

    idf_known = {p: idf[p] for p in known}
    best_focus, best_tied, at_focus, at_tied = strongest(idf_known)
    if accepts and at_tied >= 0:
        out.sentence, out.expression = reads[at_tied].text, values(at_tied)[0]
    elif not accepts and at_focus >= 0:
        out.sentence = reads[at_focus].text
    out.focus = best_focus
    out.tied = best_tied if accepts else best_focus
    out.tied_local = out.tied_asked = out.tied
    # the parts that tell the retrieved sentences apart: a part most of them write ("notifying authority" in
    # every passage about notified bodies) says little about which one answers, a part few of them write
    # ("withdraw", "files") says much; a part none of them writes cannot tie anything and is left out here
    # (``tied`` counts it as missing)
    n = len(reads)
    df = {p: sum(stems[p] in r.stems for r in reads) for p in known}
    local = {p: idf[p] * math.log(1 + n / df[p]) for p in known if df[p]}
    if local:
        out.tied_local = feature(local)
    # the parts of the question sentence itself, not of the situation told before it ("Our notified body has
    # stopped its activities. Within how many days must the authority withdraw its designation?")
    asked_stems = {stem(w) for w in words(asked_sentence(question))}
    own_q = {p: idf[p] for p in known if stems[p] in asked_stems}
    if own_q and len(own_q) < len(known):
        out.tied_asked = feature(own_q)
    # "How does the GDPR define 'consent'?" asks for the sources' definition: a passage that uses the term without
    # saying what it is does not answer, however well it covers the question's words
    if a.kind == "definition" and (term := definitions.asked_to_define(question)):
        fetched = {definitions.norm(t) for h in hits if (t := definitions.fetched_term(h.named)) is not None}
        defining = next((r.text for r in reads if definitions.defines(r.text, term)), None)
        out.term = term
        out.defined = definitions.norm(term) in fetched or defining is not None
        out.term_used = out.defined or any(definitions.mentions(h.text, term) for h in hits)
        out.sentence = defining or out.sentence
    # "What is the procedure for applying to be appointed?" asks how an act is done: a passage about the topic that
    # never writes the act ("members ... appointed by the Board shall have relevant qualifications") says who may
    # be appointed, not how to apply
    act, phrase = _asked_act(question)
    if a.kind in ("procedure", "other", "list") and act:
        family = stem(act)[:FAMILY_PREFIX]
        total = sum(idf_known.values())
        out.action, out.action_phrase = act, phrase
        out.action_found = any(any(w.startswith(family) for w in r.stems)
                               and (not total or sum(idf_known[p] for p in r.window) >= total / 2) for r in reads)
    return out


FAMILY_PREFIX = 4
"""How many leading letters of an act's stem a word of its family shares: "revok"-ing and "revoc"-ation, "appl"-ying
and "appl"-ication, "reserv"-ing and "reserv"-ation (a shared prefix may also be another word's, "applicable": the
check then passes, so it errs towards answering)."""

# "the procedure for revoking", "the process to apply for", "what steps must we take to register", "what procedure
# does the OAuth 2.0 framework define for an authorization server to accept ...": the act after "for" or "to", at
# most ten words after the noun ("to" not after a verb that makes it a modal: "have to", "need to")
_ACT = re.compile(r"\b(?:procedures?|process(?:es)?|steps?)\b(?:\s+[\w'’.-]+){0,10}?\s+"
                  r"(?:for\s+(?P<gerund>[a-z]+ing)|(?<!\bhave\s)(?<!\bhas\s)(?<!\bhad\s)(?<!\bneed\s)"
                  r"(?<!\bneeds\s)(?<!\bable\s)(?<!\bgoing\s)(?<!\bought\s)to\s+(?P<verb>[a-z]+))\b"
                  r"(?P<rest>[^?:;.]*)", re.I)
# "what selection procedure", "which exact preparation steps": the asked procedure named by a noun of action (not
# by an adjective: "formal", "existing", "additional"; nor a procedure the question only mentions, "under the
# examination procedure, what majority ...")
_NAMED_ACT = re.compile(r"\b(?i:what|which)\s+(?:[a-z-]+\s+)?(?P<noun>[a-z]+(?:ion|ment))\s+"
                        r"(?:procedures?|process(?:es)?|steps?)\b")
# verbs that name no act of its own ("getting a name added", "giving that mandate", "making a request"): the act is
# then the verb after "to" ("asking the FSRA to add it") or the participle that ends the object ("getting a mode
# number assigned to it"; not "a recommended name", whose participle qualifies a noun)
_LIGHT_VERBS = frozenset("""
get gets getting got give gives giving gave make makes making made do does doing did have has having take takes
taking took be being been become becoming follow follows following use using ask asking obtain obtaining seek
seeking
""".split())
_THEN_TO = re.compile(r"\bto\s+(?P<verb>[a-z]+)\b")
_PARTICIPLE = re.compile(r"\b(?P<verb>[a-z]{3,}(?:ed|en))\b(?=\s*(?:$|,|\b(?:to|by|in|on|for|from|into|at|as|with|"
                         r"under|onto)\b))")


def asked_action(question: str) -> str:
    """The act whose procedure the asking sentence asks for, as it writes it; ``""`` when it names none.

    >>> asked_action("A lawyer would like to sit on the Panel. What is the procedure for applying to be appointed?")
    'applying'
    >>> asked_action("What procedure does the release process prescribe for revoking it?")
    'revoking'
    >>> asked_action("What's the procedure for getting a recommended name added to the table?")
    'added'
    >>> asked_action("What is the procedure for asking the FSRA to add it to that list?")
    'add'
    >>> asked_action("What selection procedure does the Commission follow when it designates a structure?")
    'selection'
    >>> asked_action("How must the server treat that app?")
    ''
    """
    return _asked_act(question)[0]


def _act_verb(verb: str) -> bool:
    """``verb`` names an act: not a light verb, a function word, a name ("the process to GitHub") or an adverb
    ("structured to effectively mitigate")."""
    return verb not in _LIGHT_VERBS and verb.lower() not in STOP_WORDS and verb.islower() and not verb.endswith("ly")


def _asked_act(question: str) -> tuple[str, str]:
    """:func:`asked_action`, and how the asking sentence asks for it, from "for" or "to" up to the end of its clause,
    at most twelve words after that ("for applying to be appointed as a member", "to destroy them", "for getting a
    mode number assigned to it"), for a reason that names it; ``("", "")`` when the question names no act."""
    asking = asked_sentence(question)
    m = _ACT.search(asking)
    if m is None:
        named = _NAMED_ACT.search(asking)
        # "the process" of a name ("the PEP process") or a "procedure" that is itself the subject is no act
        noun = named.group("noun") if named else ""
        return (noun, f"for {noun}") if noun and _act_verb(noun) else ("", "")
    verb, lead = m.group("gerund") or m.group("verb"), "for" if m.group("gerund") else "to"
    rest = m.group("rest").split(",")[0]
    said = [verb, *rest.split()]
    if verb in _LIGHT_VERBS:
        # "getting a mode number assigned to it", "asking the FSRA to add it"
        then = [x for x in (_THEN_TO.search(rest), _PARTICIPLE.search(rest))
                if x is not None and _act_verb(x.group("verb"))]
        if not then:
            return "", ""
        verb = min(then, key=lambda x: x.start()).group("verb")
    if not _act_verb(verb):
        return "", ""
    ws = said[:12]
    while len(ws) > 1 and ws[-1].lower() in STOP_WORDS:  # "... as a member of"
        ws.pop()
    return verb, " ".join([lead, *ws])


@dataclass
class _Reading:
    """One retrieved sentence as :func:`assess` reads it (focus parts by where it holds them)."""

    text: str
    valued: str
    """What a value test reads: the sentence, or a table row with its header's units."""
    window: set[str]
    own: set[str]
    heading: set[str]
    tieable: bool
    stems: set[str]


_TERM = re.compile(r"(?<![\w'’])(?:[A-Z][\w'’-]*\s+){1,4}[A-Z][\w'’-]*")


def named_terms(question: str, hits: list[Hit]) -> list[str]:
    """The capitalised multi-word terms of ``question`` that the retrieved passages write whole,
    lower-cased: defined terms, whose values are not any other term's. A word capitalised only because
    it opens the question is not part of one.

    >>> from anchor_core.models import Hit
    >>> hit = Hit(chunk_id="r:0", unit_id="r", doc_id="d", kind="passage", part=None, heading="", start=0,
    ...           end=40, text="A Trust Service Provider must maintain cover.", score=1.0)
    >>> named_terms("How much cover must a Trust Service Provider carry?", [hit])
    ['trust service provider']
    >>> named_terms("Which Qualified Investor Fund may borrow?", [hit]), named_terms("How Many Days?", [hit])
    ([], [])
    """
    out = []
    body = " ".join(f"{h.heading} {h.text}" for h in hits).lower()
    for m in _TERM.finditer(question):
        t = m.group(0)
        before = question[:m.start()].rstrip()
        if not before or before[-1] in ".?!:\"'“(":
            t = t.partition(" ")[2]  # the question's first word is capitalised by grammar
            if " " not in t.strip():
                continue
        t = t.lower()
        if t in body:
            out.append(t)
    return out


_DETERMINER = re.compile(r"^(?:The|A|An|This|That|Each|Every|Any|Such|No)\s+")


def rival_term(text: str, terms: list[str]) -> bool:
    """Whether ``text`` writes a capitalised term with the head noun of one of ``terms`` (lower-cased)
    but not that term itself.

    >>> rival_term("A Third Party Provider must maintain cover of US$150,000.", ["trust service provider"])
    True
    >>> rival_term("The Provider must maintain cover.", ["trust service provider"])
    False
    >>> rival_term("A Trust Service Provider, unlike a Third Party Provider, must ...", ["trust service provider"])
    False
    """
    low = text.lower()
    written = [_DETERMINER.sub("", m.group(0)).lower() for m in _TERM.finditer(text)]
    return any(t not in low and any(" " in w and w.endswith(" " + t.rsplit(" ", 1)[-1]) for w in written)
               for t in terms)


# an identifier a question may name its subject by: a version or section number ("3.2.5", "164.404") or an act's
# designation ("2019/1020"); a decimal that is a share or a quantity ("99.9 %", "1.5 million", "2.5 years") is none
_IDENTIFIER = re.compile(r"(?<![\w.,/])(?:\d{1,4}\.\d{1,4}(?:\.\d{1,4})*|\d{2,4}/\d{1,4})"
                         r"(?![\w/%]|\.\d|\s?%|\s?(?:per ?cent|million|billion|thousand|times|years?|months?|"
                         r"weeks?|days?|hours?|minutes?|seconds?|"
                         r"[kKMGT]i?B|bits?|bytes?|probability|points?)\b)")


# a document or provision named by its series and number: "RFC 7519", "PEP 8", "Article 26(3)", and the PEPs' own
# markup for the first two (":pep:`438`")
_NAMED_NUMBER = re.compile(r"(?:\b(?P<series>RFC|PEP|Article)\s?|:(?P<role>pep|rfc):`)(?P<n>\d{1,5})(?!\.\d)\b")


def identifiers(text: str) -> set[str]:
    """The version numbers, section numbers, designations and numbered documents or articles ``text`` writes.

    >>> sorted(identifiers("Python 3.2.5 and Regulation (EU) 2019/1020 apply; 99.9% uptime; 2.0 GB; 1.5 million"))
    ['2019/1020', '3.2.5']
    >>> sorted(identifiers("RFC 7519 and PEP 8 under Article 26(3), and :pep:`438`"))
    ['article 26', 'pep 438', 'pep 8', 'rfc 7519']
    """
    named = {f"{(m.group('series') or m.group('role')).lower()} {m.group('n')}" for m in _NAMED_NUMBER.finditer(text)}
    return set(_IDENTIFIER.findall(text)) | named


def rival_identifier(window: str, sentence: str, asked: set[str]) -> bool:
    """Whether ``sentence`` names another version, section or act than the ones the question asks about
    (``asked``), and its window (it, the sentence before it, its heading) names none of them: "3.5.0 release
    candidate 2: August 25, 2015" does not date the release candidate of 3.2.5.

    >>> rival_identifier("- 3.5.0 release candidate 2: August 25, 2015", "- 3.5.0 release candidate 2: August 25, 2015",
    ...                  {"3.2.5"})
    True
    >>> rival_identifier("Python 3.2.5 schedule - rc1: 2013-05-03", "- rc1: 2013-05-03", {"3.2.5"})
    False
    >>> rival_identifier("- 3.3.7 final: 2017-09-19", "- 3.3.7 final: 2017-09-19", {"3.3"})  # a release of 3.3
    False
    """
    if not asked:
        return False

    def related(x: str) -> bool:  # the same number, or one of its series ("3.3.7" of "3.3", "164.404" of "164")
        return any(x == a or x.startswith(a + ".") or a.startswith(x + ".") for a in asked)

    found = identifiers(sentence)
    return any(not related(x) for x in found) and not any(related(x) for x in identifiers(window))


_EXEMPTION = re.compile(r"\b(?:other than|except(?: for)?|excluding|with the exception of|apart from|save for|"
                        r"not including)\s+(?P<what>[^,;:()]{1,80}?)(?=\s+(?:may|must|shall|should|is|are|can|"
                        r"will|which|who|that|where|if|and|or)\b|[,;:()]|$)", re.I)


def exempted_removed(text: str) -> str:
    """``text`` without the things it exempts: "A REIT other than a Qualified Investor Fund may
    borrow ..." reads "A REIT may borrow ...".

    >>> exempted_removed("A REIT other than a Qualified Investor Fund may borrow up to 65%.")
    'A REIT may borrow up to 65%.'
    >>> exempted_removed("All members except the Chair shall vote.")
    'All members shall vote.'
    """
    return re.sub(r"\s{2,}", " ", _EXEMPTION.sub("", text))


_TOKEN = re.compile(r"[\w'’-]+")
# plurals that the stemmer does not join to their singular ("two natural persons" counts people)
_IRREGULAR = {stem(p): stem(s) for p, s in (("people", "person"), ("men", "man"), ("women", "woman"),
                                             ("children", "child"))}


# units of measure: a number written before one measures in it ("5 GB", "200 GB download/month") and counts
# nothing else
_MEASURE = frozenset(stem(u) for u in """
bit bits byte bytes octet octets kb mb gb tb kib mib gib kbps mbps gbps ms second seconds minute minutes hour hours
day days week weeks month months year years percent eur euro euros usd dollar dollars aed gbp pound pounds
""".split())


def _count_tokens(text: str) -> list[str]:
    """The lower-cased words and numbers of ``text``, references masked ("Article 65(2)" counts nothing)."""
    return [t.lower() for t in _TOKEN.findall(mask_references(text))]


_TIMES = stem("times")


def _same_word(a: str, b: str) -> bool:
    """Two stems of one word ("renewabl" and "renew"): equal, or one opens the other and has four letters."""
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def counts_next_to(text: str, head: str, window: int = 4, *, also: frozenset[str] = frozenset(),
                   events: frozenset[str] = frozenset()) -> bool:
    """True when a number stands within ``window`` words of a word whose stem is ``head``
    ("at least 32 characters", "members: 27"), and is not a measure in another unit written right after it.
    ``also``: other words (lower-cased) that name what the question counts in the corpus's words ("Member
    States" for "countries", :func:`count_synonyms`); they count only after the number ("three Member States").
    ``events``: the stems of the question's words; "once", "twice" or "thrice" counts times when one of them
    stands just before it ("renewable once" for "how many times can the term be renewed").

    >>> counts_next_to("The panel shall have at least three members.", stem("members"))
    True
    >>> counts_next_to("They offer 5 GB for $90/month, with 200 GB download/month.", stem("downloads"))
    False
    >>> counts_next_to("in at least three Member States", stem("countries"), also=frozenset({"states"}))
    True
    >>> counts_next_to("The term shall be renewable once.", stem("times"), events=frozenset({stem("renewed")}))
    True
    >>> counts_next_to("The term shall be renewable once.", stem("times"), events=frozenset({stem("meet")}))
    False
    """
    tokens = _count_tokens(text)
    head = _IRREGULAR.get(head, head)
    if head == _TIMES and any(MULTIPLICATIVE.fullmatch(t) and any(_same_word(stem(w), e)
                                                                  for w in tokens[max(0, i - 3):i] for e in events)
                              for i, t in enumerate(tokens)):
        return True  # "renewable once" counts the times of renewing, when the question asks about renewing
    nums = [i for i, t in enumerate(tokens) if has_number(t)
            and not (i + 1 < len(tokens) and (unit := stem(tokens[i + 1])) in _MEASURE and unit != head)]
    heads = [i for i, t in enumerate(tokens) if _IRREGULAR.get(st := stem(t), st) == head]
    if any(abs(i - j) <= window for i in nums for j in heads):
        return True
    return any(t in also for i in nums for t in tokens[i + 1:i + 1 + window])


COUNT_SIMILAR = 0.55
"""The embedder's cosine from which a word written after a number names what a count question counts, in the
corpus's words ("three Member States" for "how many EU countries", "three methods" for "how many ways")."""


def number_followers(text: str, window: int = 4) -> set[str]:
    """The words (lower-cased, not numbers, not stop words) written within ``window`` words after a number
    in ``text``: what the number may count.

    >>> sorted(number_followers("It defines three methods of sending tokens."))
    ['methods', 'sending', 'tokens']
    """
    tokens = _count_tokens(text)
    return {t for i, x in enumerate(tokens) if has_number(x) for t in tokens[i + 1:i + 1 + window]
            if not has_number(t) and t not in STOP_WORDS and len(t) > 2}


def count_synonyms(noun: str, candidates: set[str], embedder: Embedder | None,
                   threshold: float | None = None) -> frozenset[str]:
    """The ``candidates`` whose embedding is within ``threshold`` cosine of ``noun`` (what the question
    counts): the corpus's word for it. None without an embedder, or when ``noun`` is a unit of measure
    ("bytes" is not "bits", however close their vectors)."""
    cands = sorted(c for c in candidates if stem(c) != stem(noun) and stem(c) not in _MEASURE)
    if embedder is None or not cands or stem(noun) in _MEASURE:
        return frozenset()
    vecs = np.asarray(embedder.embed([noun, *cands]))
    sims = vecs[1:] @ vecs[0]
    cut = COUNT_SIMILAR if threshold is None else threshold
    return frozenset(c for c, s in zip(cands, sims) if float(s) >= cut)


@cache
def model() -> dict:
    return json.loads(resources.files("anchor_core.ask").joinpath("data/answerable.json").read_text("utf-8"))


def spec_for(ans: Answerability, spec: dict | None = None) -> dict:
    """The model that fits the features ``ans`` has: the full one, or its fallback without the
    cross-encoder."""
    m = spec or model()
    if all(k in ans.features() for k in m["weights"]):
        return m
    return m["fallback"]


def score(ans: Answerability, spec: dict | None = None) -> float:
    m = spec_for(ans, spec)
    f = ans.features()
    z = m["bias"] + sum(w * f[k] for k, w in m["weights"].items())
    return 1 / (1 + math.exp(-z))


def asked_focus(question: str, analysis: QuestionAnalysis) -> str:
    """The focus of the sentence that asks, as the question writes it: a situation told before it ("During a
    market surveillance inquiry in autumn 2025 we handed the authority trade secrets. From what date did the
    confidentiality article start to apply?") is the asker's circumstance, not what the answer is missing.
    The whole question's focus when it is one sentence, or when the asking sentence has no focus part of its own.

    >>> q = "We run a small shop with two cameras. How long may we keep CCTV footage?"
    >>> asked_focus(q, analyse(q))
    'keep CCTV footage'
    """
    sentence = asked_sentence(question)
    if sentence == question.strip():
        return analysis.focus
    own = set(words(sentence))
    parts = [p for p in analysis.parts if p in own]
    return (focus_phrase(sentence, parts) if parts else "") or analysis.focus


def reason(ans: Answerability, topic: str = "") -> str:
    """Why the passages do not answer, naming the missing part. The missing value is named against the
    asking sentence's focus (:func:`asked_focus`); a passage that addresses too little of the question is
    named against the whole question's focus, whose share it gives."""
    a = ans.analysis
    # the focus is quoted as the question writes it: its words are the asker's, not always a noun phrase
    # ("owns the copyright in images produced by a text-to-image model")
    whole = topic or a.focus
    asking = topic or (asked_focus(a.question, a) if a.question else whole)
    about = f"“{asking}”" if asking else "the question's subject"
    asked = ans.asked or (a.kind if a.value else "")
    if asked and ans.focus >= 0.5 and ans.tied < ans.focus:
        return f"the sources describe {about} but state no {KIND_NOUN[asked]} for it"
    if asked and ans.tied == 0.0:
        return f"no retrieved passage states the asked {KIND_NOUN[asked]} about {about}"
    about = f"“{whole}”" if whole else "the question's subject"
    return f"no retrieved passage addresses {about} (best passage covers {ans.focus:.0%} of it)"
