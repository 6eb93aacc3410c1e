"""When a question asks when a work that a document of the corpus *cites* was published, the citing document's
reference list answers.

A standard's bibliography gives each cited work's date in its entry::

    [RFC3218]  Rescorla, E., "Preventing the Million Message Attack on
               Cryptographic Message Syntax", RFC 3218,
               DOI 10.17487/RFC3218, January 2002,
               <http://www.rfc-editor.org/info/rfc3218>.

No sentence of the body says "RFC 3218 was published in January 2002", and reference entries are not sentences a
claim may anchor to (:func:`anchor_core.segment.is_noise`), so the answerability test never sees the date; this
module answers from the entry instead (as :mod:`anchor_core.ask.dated` answers from a document's own header), and
only when

- the question asks when something *was* published, or for a publication date
  (:func:`~anchor_core.ask.dated.asks_publication`), and no document of the corpus is the one asked about (its
  own header answers then);
- exactly one entry of the reference lists of the retrieved or named units is the one asked about: the question
  writes its designation ("RFC 3218", "FIPS PUB 180-4", its label) or most of its title, clearly more of it than
  of any other entry's;
- every number the asking sentence writes (a version, a draft number, a revision) is in the entry: "PKCS #5
  version 2.1" is not the entry for version 2.0.

A question that neither names the work nor writes its title may describe the body sentence that cites it ("the JWS
spec says these attacks were discussed in detail for CMS and cites an RFC for it"): :func:`by_context` finds that
sentence, and the entry of its citation answers when the sentence is clearly the best fit, shares at least two
words with the question, and the asking sentence names nothing the entry does not write.

An entry that cites a draft (a work in progress, an Internet-Draft, a W3C working draft or candidate
recommendation) dates the draft, not a publication: such a question is refused, saying what the entry cites.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from anchor_core.ask.dated import (
    _DESIGNATION,
    _FORM,
    MIN_TITLE,
    TITLE_MARGIN,
    asking_clause,
    asks_publication,
    title_covers,
)
from anchor_core.ask.gate import content_terms
from anchor_core.ask.gate import names as gate_names
from anchor_core.ask.question import QuestionAnalysis
from anchor_core.scorers.text import stem
from anchor_core.segment import split_sentences

# "[RFC3218]", "[NIST.800-38D]", "[12]" at the start of a line, then the entry (or a line break: a long label
# stands on its own line)
_ENTRY_START = re.compile(r"(?m)^[ \t]*\[([A-Za-z0-9][^\]\s]{0,40})\](?=[ \t]*\S|[ \t]*\n[ \t]+\S)")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December")
_DATE = re.compile(rf"\b(?:\d{{1,2}}\s+)?(?:{_MONTHS})\s+(?:\d{{1,2}},\s+)?(?:19|20)\d{{2}}\b|\b(?:19|20)\d{{2}}\b")
_URL = re.compile(r"<[^<>]*>|https?://\S+")
_TITLE = re.compile(r"\"([^\"]{3,300})\"|“([^”]{3,300})”")
# what a draft is cited as: its date is the draft's, not the work's publication
_DRAFT = re.compile(r"\bwork in progress\b|\bdraft\b|\bcandidate recommendation\b|\bproposed recommendation\b",
                    re.I)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w])")


@dataclass(frozen=True)
class Entry:
    """One entry of a reference list: ``unit text[start:end]`` is the whole entry."""

    unit_id: str
    start: int
    end: int
    label: str
    title: str
    date: str
    """The entry's last date outside a URL ("January 2002"); ``""`` when it gives none."""
    designations: tuple[str, ...]
    """Its label and the designations it writes, normalised (``rfc3218``)."""
    draft: str
    """What marks it as a draft ("Work in Progress"), ``""`` when it cites a publication."""
    text: str

    @property
    def flat(self) -> str:
        """The entry on one line, runs of white space as one space."""
        return " ".join(self.text.split())


def _norm(designation: str) -> str:
    return re.sub(r"[\s.]+", "", designation.lower().replace("special publication", "sp").replace("nist", ""))


def entries(unit_id: str, text: str) -> list[Entry]:
    """The reference entries of a unit's text: a bracketed label at a line start, up to the next blank line or
    label. An entry must give a quoted title and a date to count.

    >>> e = entries("rfc-7516", '[RFC3218]  Rescorla, E., "Preventing the Million Message Attack on\\n'
    ...             '           Cryptographic Message Syntax", RFC 3218,\\n'
    ...             '           DOI 10.17487/RFC3218, January 2002,\\n'
    ...             '           <http://www.rfc-editor.org/info/rfc3218>.\\n\\n[JSMS] Rescorla, E., "JavaScript '
    ...             'Message Security Format", Work in Progress, draft-rescorla-jsms-00, March 2011.\\n')
    >>> [(x.label, x.date, x.draft) for x in e]
    [('RFC3218', 'January 2002', ''), ('JSMS', 'March 2011', 'Work in Progress')]
    >>> e[1].designations
    ('jsms', 'draft-rescorla-jsms-00')
    """
    starts = list(_ENTRY_START.finditer(text))
    out = []
    for k, m in enumerate(starts):
        stop = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        blank = _BLANK_LINE.search(text, m.end(), stop)
        end = blank.start() if blank else stop
        begin = m.start(1) - 1  # the "[" (not the indent before it)
        body = text[begin:end].rstrip()
        end = begin + len(body)
        flat = " ".join(body.split())
        title_m = _TITLE.search(flat)
        found = [d.group(0) for d in _DESIGNATION.finditer(flat)]
        plain = _URL.sub(" ", flat)
        dates = list(_DATE.finditer(plain))
        if not title_m or not dates:
            continue  # a body line that opens with a citation ("[RFC3218] should be consulted"), or an undated entry
        draft = _DRAFT.search(flat)
        names = [_norm(m.group(1))] + [_norm(d) for d in found]
        out.append(Entry(unit_id=unit_id, start=begin, end=end, label=m.group(1),
                         title=title_m.group(1) or title_m.group(2), date=dates[-1].group(0),
                         designations=tuple(dict.fromkeys(n for n in names if n)),
                         draft=draft.group(0) if draft else "", text=body))
    return out


@dataclass(frozen=True)
class CitedAnswer:
    entry: Entry
    why: str
    """How the question points at it: ``names RFC 3218``, ``writes 80% of its title`` or ``describes the sentence
    that cites it``."""
    by: Literal["name", "title", "context"]
    """Whether the question names the work (a designation, a label, an identifier), writes its title, or describes
    the body sentence that cites it."""
    citing: tuple[int, int] | None = None
    """For ``context``: the citing sentence, ``unit text[start:end]`` of the entry's unit."""


# words that ask about a citation rather than a topic: "what publication date does RFC 8414 give for that spec",
# "which edition does JWA cite"
_CITE_FORM = frozenset("""
give gives giving gave cite cites cited citing reference references referenced referencing list lists listed
edition editions version versions revision revisions book paper report standard guideline guidelines dated
article articles note notes work works
""".split())


def _spelled(question: str) -> set[str]:
    """What the question may write as a label or identifier, normalised as :func:`_norm` does: each token and
    each pair of tokens run together ("SEC 1" → ``sec1``), a bracketed label ("[RFC3218]")."""
    toks = re.findall(r"[A-Za-z0-9][\w./#-]*[A-Za-z0-9]|[A-Za-z0-9]", question)
    out = {_norm(t) for t in toks} | {_norm(a + b) for a, b in zip(toks, toks[1:])}
    out |= {_norm(m) for m in re.findall(r"\[([^\]\s]{1,40})\]", question)}
    # a bare word is a label only when it holds a digit or is an acronym ("JWT", "SEC1"), not "format" or "the"
    return {t for t in out if len(t) >= 3 and (any(c.isdigit() for c in t) or t.upper() in question)}


def asks_cited_date(question: str, analysis: QuestionAnalysis) -> bool:
    """A date question that asks when something was published, or what date a document gives for what it cites.

    >>> from anchor_core.ask.question import analyse
    >>> q = "Which NIST publication is that, and what date does JWA give for it?"
    >>> asks_cited_date(q, analyse(q))
    True
    >>> q = "By when must the server publish its metadata?"
    >>> asks_cited_date(q, analyse(q))
    False
    """
    if asks_publication(question, analysis):
        return True
    asking = asking_clause(question)
    return analysis.kind == "date" and bool(_GIVES_DATE.search(asking))


# "what date does JWA give for it", "in what month and year is that SWT version dated"
_GIVES_DATE = re.compile(r"\bwhat\s+(?:publication\s+)?date\s+(?:does|do|did)\b[^?]*\b(?:give|cite|list|state)s?\b|"
                         r"\b(?:is|are|was|were)\b[^?]*\bdated\b|"
                         # "which edition of XML does RFC 6749 cite there, and with what date"
                         r"\b(?:does|do|did)\b[^?]*\b(?:cite|list|reference)s?\b[^?]*\bwhat\s+(?:publication\s+)?date\b",
                         re.I)


def choose(question: str, found: list[Entry], citing: Iterable[str] = ()) -> tuple[CitedAnswer | None, str]:
    """The one entry ``question`` asks about, with how it points at it (``None`` and the reason when none or
    several do). ``citing``: the designations and names of the corpus's documents (``RFC 8414``, ``JWA``): a
    question names the citing document too ("what publication date does RFC 8414 give for ..."), which is not the
    work asked about."""
    own = {_norm(c) for c in citing}
    if not found:
        return None, "the retrieved documents list no references"
    # the citing documents' own entries (a spec citing a companion spec the question also names) are not asked about
    found = [e for e in found if not set(e.designations) & own]
    if not found:
        return None, "every reference entry of the retrieved documents is a document the question names"
    written = ({_norm(d.group(0)) for d in _DESIGNATION.finditer(question)} | _spelled(question)) - own
    # an identifier the question writes whole ("saml-core-2.0-os") names the entry that writes it
    idents = [t.lower() for t in re.findall(r"[\w.]+(?:-[\w.]+)+", question)
              if any(c.isdigit() for c in t) and len(t) >= 6]
    named = [e for e in found if set(e.designations) & written or any(i in e.flat.lower() for i in idents)]
    if len({e.date for e in named}) == 1:  # one work, cited by several units alike
        named = named[:1]
    if len(named) == 1:
        return CitedAnswer(named[0], f"names {named[0].label}", "name"), ""
    if len(named) > 1:
        return None, "the question names several cited works"
    # every entry has a title (entries); the question's words are weighed against all of them
    q = set(content_terms(question))
    covers = title_covers([set(content_terms(e.title)) for e in found], [q] * len(found))
    ranked = sorted(zip(covers, found), key=lambda x: -x[0])
    best, entry = ranked[0]
    rivals = [c for c, e in ranked[1:] if (e.title, e.date) != (entry.title, entry.date)]
    second = rivals[0] if rivals else 0.0
    if best < MIN_TITLE:
        return None, f"the question writes at most {best:.0%} of a cited work's title"
    if best - second < TITLE_MARGIN:
        return None, f"the question writes as much of two cited works' titles ({best:.0%}, {second:.0%})"
    return CitedAnswer(entry, f"writes {best:.0%} of its title", "title"), ""


# a citation in running text: "[RFC6211]", "[NIST.800-38A]", "[W3C.REC-xml-20081126]"
_CITATION = re.compile(r"\[([A-Za-z0-9][^\[\]\s]{0,60})\]")


@dataclass(frozen=True)
class ContextPick:
    """The cited work whose citing sentence the question describes best, and how well."""

    label: str
    unit_id: str
    sentence: tuple[int, int]
    score: float
    """The share of the question's describing words (:func:`_describing`) the sentence and the entry's title hold,
    each weighed by how few candidate sentences hold it."""
    second: float
    """The same for the best sentence that cites another work (0 when none does)."""
    near: frozenset[str]
    """The words of the sentence that lead up to this citation (from the previous citation or the sentence's start),
    stemmed: what the sentence says the cited work is ("the Char definition in Section 2.2 of")."""
    others: frozenset[str]
    """The words that lead up to the sentence's other citations and not to this one: what the other works are."""
    described: tuple[str, ...]
    """The question's describing words that the sentence itself writes (not the entry)."""


def _describing(question: str, own: set[str]) -> list[str]:
    """The question's words that describe the work, stemmed: its content words less those that ask about a
    citation or a date ("publication", "cites", "give") and the names of the citing documents."""
    form = {stem(w) for w in _FORM | _CITE_FORM}
    out = [stem(w) for w in content_terms(question) if not w.isdigit()]
    return list(dict.fromkeys(w for w in out if w not in form and _norm(w) not in own))


def citing_sentences(unit_id: str, text: str, labels: set[str]) -> list[tuple[str, int, int]]:
    """``(label, start, end)`` for each body sentence of ``text`` that cites one of ``labels``: the sentence's span
    in ``text``. Reference entries themselves are not body text.

    >>> t = '   Attacks are discussed in [RFC6211].\\n\\n   [RFC6211] Schaad, J., "CMS", RFC 6211, April 2011.\\n'
    >>> [(lab, t[a:b]) for lab, a, b in citing_sentences("rfc-1", t, {"RFC6211"})]
    [('RFC6211', 'Attacks are discussed in [RFC6211].')]
    """
    starts = {m.start(1) - 1 for m in _ENTRY_START.finditer(text)}
    out: list[tuple[str, int, int]] = []
    blocks: dict[int, list[tuple[int, int]]] = {}
    for m in _CITATION.finditer(text):
        if m.group(1) not in labels or m.start() in starts:
            continue
        a = text.rfind("\n\n", 0, m.start())
        a = 0 if a < 0 else a + 2
        b = text.find("\n\n", m.end())
        b = len(text) if b < 0 else b
        if a not in blocks:
            blocks[a] = [(a + x.start, a + x.end) for x in split_sentences(text[a:b], max_chars=None)]
        span = next(((x, y) for x, y in blocks[a] if x <= m.start() < y), None)
        if span is not None:
            out.append((m.group(1), *span))
    return out


def by_context(question: str, units: dict[str, str], found: list[Entry], own: set[str]) -> ContextPick | None:
    """The work cited in the body sentence that ``question`` describes ("the JWS spec says these attacks were
    discussed in detail for CMS and cites an RFC for it"): each sentence citing a listed work is scored by the
    share of the question's describing words (:func:`_describing`) that it or the cited entry writes, each word
    weighed by how few of the candidate sentences write it, and the asking sentence's words twice (they name the
    asked work: "that HMAC RFC"). ``found``: the dated entries of ``units`` (:func:`entries`). ``None`` when no
    sentence cites a listed work."""
    q = _describing(question, own)
    if not q:
        return None
    cands: list[tuple[str, str, int, int, set[str], set[str]]] = []
    for uid, text in units.items():
        labelled = {m.group(1) for m in _ENTRY_START.finditer(text) if _norm(m.group(1)) not in own}
        listed = {e.label: _URL.sub(" ", e.flat) for e in found if e.unit_id == uid}
        for label, a, b in citing_sentences(uid, text, labelled):
            own_words = {stem(w) for w in content_terms(_CITATION.sub(" ", text[a:b]))}
            said = own_words | {stem(w) for w in content_terms(f"{listed.get(label, '')} {label}")}
            said |= {stem(p) for p in re.split(r"[^A-Za-z0-9]+", label.lower()) if p}
            cands.append((label, uid, a, b, said, own_words))
    if not cands:
        return None
    df = {w: sum(w in c[4] for c in cands) for w in q}
    # the asking sentence's words name the asked work ("that HMAC RFC", "the NIST Special Publication"): twice
    asked = {stem(w) for w in content_terms(asking_clause(question))}
    weight = {w: (2 if w in asked else 1) * math.log(1 + len(cands) / max(df[w], 1)) for w in q}
    total = sum(weight.values())
    scored = sorted(((sum(weight[w] for w in q if w in c[4]) / total, c) for c in cands), key=lambda x: -x[0])
    best, (label, uid, a, b, _, sentence_words) = scored[0]
    second = next((sc for sc, c in scored[1:] if c[0] != label), 0.0)
    text = units[uid]
    leads: dict[str, set[str]] = {}
    prev = a
    for m in _CITATION.finditer(text, a, b):
        leads.setdefault(m.group(1), set()).update(stem(w) for w in content_terms(text[prev:m.start()]))
        prev = m.end()
    near = leads.get(label, set())
    others = set().union(*(v for k, v in leads.items() if k != label)) - near
    return ContextPick(label=label, unit_id=uid, sentence=(a, b), score=best, second=second, near=frozenset(near),
                       others=frozenset(others), described=tuple(w for w in q if w in sentence_words))


def find(question: str, units: dict[str, str], citing: Iterable[str] = (),
         names: Iterable[str] = (), titles: Iterable[str] = ()) -> tuple[CitedAnswer | None, str]:
    """The reference entry that dates what ``question`` asks about, from the texts of ``units`` (unit id → text),
    or ``None`` with why not. ``citing``: the designations of the documents the question names (the ones that
    cite, "RFC 8414"); ``names``: other words that name a document of the corpus ("jwa", "jwk"), which the asking
    sentence may use to say whose reference list it means; ``titles``: the titles of the documents of ``units``,
    whose words the asking sentence may use for the citing document ("what date does the threat model give").
    A question that neither names the work nor writes its title may describe the body sentence that cites it
    (:func:`by_context`). A chosen entry that cites a draft is returned too: its ``draft`` says so, and the caller
    refuses."""
    citing, names, titles = list(citing), list(names), list(titles)
    found = [e for uid, text in units.items() for e in entries(uid, text)]
    got, why = choose(question, found, citing + names)
    said: set[str] = set()
    if got is None:
        if why.startswith("the question names"):
            return None, why
        got, said, why_not = _from_context(question, units, found, citing + names)
        if got is None:
            return None, f"{why}; {why_not}"
    entry = got.entry
    flat = entry.flat
    asking = asking_clause(question)
    own = {_norm(c) for c in citing}
    in_entry = {_norm(t) for t in _NUMBER.findall(flat)} | set(content_terms(flat))
    in_titles = {_norm(t) for t in _NUMBER.findall(" ".join(titles))}  # "the OAuth 2.0 framework" is the citing one
    missing = [n for n in _NUMBER.findall(asking) if _norm(n) not in in_entry | in_titles
               and not any(_norm(n) in c for c in own)]
    if missing:
        return None, f"the question asks about {', '.join(missing)}, which the entry for {entry.label} does not cite"
    # the asking sentence asks about nothing else than this work's date ("the very first individual draft of
    # ..." asks about a draft the entry does not date); what the citing sentence says of the work describes it too
    allowed = {stem(w) for w in _FORM | _CITE_FORM | set(content_terms(flat)) | {n.lower() for n in names}} | said
    allowed |= {stem(w) for t in titles for w in content_terms(t)}
    rest = [w for w in content_terms(asking) if stem(w) not in allowed and not w.isdigit() and _norm(w) not in own]
    if rest:
        return None, f"the question asks about {' '.join(rest)}, which the entry for {entry.label} does not date"
    return got, ""


def _from_context(question: str, units: dict[str, str], found: list[Entry], own_names: list[str]
                  ) -> tuple[CitedAnswer | None, set[str], str]:
    """The entry of the work cited by the body sentence the question describes (:func:`by_context`), with the
    words the sentence says of it; ``None`` and why not when no sentence is clearly the one, or its citation is
    not dated, or the question asks about what another citation of that sentence is."""
    own = {_norm(c) for c in own_names}
    written = {_norm(d.group(0)) for d in _DESIGNATION.finditer(question)} - own
    if written:
        return None, set(), "the question names a work that no reference list of the retrieved documents dates"
    pick = by_context(question, units, found, own)
    if pick is None:
        return None, set(), "no sentence of the retrieved documents cites a listed work"
    if len(pick.described) < 2:
        # one shared word is not a description of a sentence ("that protocol")
        return None, set(), "the question does not describe a sentence that cites a listed work"
    if pick.score <= pick.second:
        return None, set(), (f"two sentences citing different works fit the question as well ({pick.score:.0%} "
                             "of its words)")
    entry = next((e for e in found if e.unit_id == pick.unit_id and e.label == pick.label), None)
    if entry is None:
        return None, set(), f"the sentence the question describes cites [{pick.label}], whose entry gives no date"
    clause = asking_clause(question)
    asking = {stem(w) for w in content_terms(clause)}
    title = {stem(w) for w in content_terms(entry.flat)}
    # a name the asking sentence gives the work ("the JWK Thumbprint specification") is the entry's, whatever the
    # sentence says ("SHA-1 thumbprint ... [RFC5280]")
    unnamed = sorted(w for w in gate_names(clause) if stem(w.lower()) not in title
                     and _norm(w) not in own and w.lower() not in _FORM | _CITE_FORM)
    if unnamed:
        return None, set(), f"the question names {' '.join(unnamed)}, which the entry for {entry.label} does not write"
    clash = sorted(w for w in asking & pick.others if w not in title)
    if clash:
        return None, set(), (f"the question asks about {' '.join(clash)}, which the sentence says of another work "
                             f"than [{pick.label}]")
    return CitedAnswer(entry, f"describes the sentence that cites it ({pick.score:.0%} of its words)", "context",
                       citing=pick.sentence), set(pick.near), ""
