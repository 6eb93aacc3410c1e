"""Defined terms: "‘deployer’ means ...", and the questions that ask about one.

Legislation and rulebooks define their terms in a sentence of a fixed shape: the term in quotation
marks, then ``means`` (``shall mean``, ``has the meaning``, ``is defined as``, ``refers to``). The
AI Act's Article 3, the GDPR's Article 4 and the ADGM rulebooks' interpretation sections are written
this way; :func:`definitions_of` finds those sentences for a term in any stored corpus, with no
adapter and no list of terms, reading only the units the full-text index says may hold them.

A question asks about a defined term when it quotes it (``count as a 'deployer'``) or asks what it
is (``What counts as personal data?``, ``What does "processing" mean?``, ``definition of
profiling``). :func:`asked` returns the definitions such a question asks for, so that retrieval can
fetch the unit that defines the term as it fetches a unit the question names (``Annex III``): a
lay question about who is a deployer is answered by the definition, which shares few of its words.
Only a term the corpus itself defines, matched whole (a plural ``s`` aside), is fetched; a word the
corpus merely uses is not.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from anchor_core.stores.base import Store

# the term in quotation marks (straight or curly), then the defining verb; "(‘the AI Office’)" style
# abbreviations and "for the purposes of this Part" lead-ins are not definitions of this shape
_VERBS = ("means", "shall mean", "has the meaning", "is defined as", "refers to")
_DEFINES = re.compile(
    r"(?:^|(?<=[\s(\[]))['‘\"“]([^\W\d_][^'’\"”\n]{0,78}?)['’\"”],?\s+(?:\([^)\n]{1,40}\)\s+)?"
    rf"(?:{'|'.join(_VERBS)})\b")
# a term the question quotes: the quote is not an apostrophe ("customers' moods", "provider's")
_QUOTED = re.compile(r"(?<![\w'’])['‘\"“]([^\W\d_][^'’\"”?!\n]{0,58}?)['’\"”](?![\w'’])")
_ARTICLE = r"(?:an? |the )?"
_TERM = r"(?P<t>[^\W\d_][\w'’\- ]{1,58}?)"
_ASKS = [re.compile(p, re.I) for p in (
    rf"\bwhat (?:is|are) {_ARTICLE}{_TERM}\s*\?*\s*$",
    rf"\bwho (?:is|are) {_ARTICLE}{_TERM}\s*\?*\s*$",
    rf"\bwhat (?:does|do) {_ARTICLE}{_TERM} mean\b",
    rf"\b(?:what|who) (?:is )?meant by {_ARTICLE}{_TERM}(?=\s*[?,.;]|\s*$)",
    rf"\b(?:counts?|qualif(?:y|ies)|regarded|considered) as {_ARTICLE}{_TERM}"
    r"(?=\s*[?,.;]|\s*$|\s+(?:and|or|if|when|under|in|for)\b)",
    rf"\bdefinitions? of {_ARTICLE}{_TERM}(?=\s*[?,.;]|\s*$|\s+(?:and|or|under|in)\b)",
    rf"\bhow (?:is|are) {_ARTICLE}{_TERM} defined\b",
)]


FETCHED = "definition of "
"""How a hit fetched for a defined term is marked (``Hit.named``: "definition of ‘deployer’")."""


@dataclass(frozen=True)
class Definition:
    term: str
    """The term as the corpus writes it (``deployer``)."""
    unit_id: str
    start: int
    end: int
    """Offsets of the defining sentence's opening (the quoted term and its verb) in the unit text."""


def norm(term: str) -> str:
    """How terms are compared: lower case, one space, a plural ``s`` on the last word dropped."""
    t = " ".join(term.lower().replace("’", "'").split())
    return t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t


def find(text: str) -> list[tuple[str, int, int]]:
    """The definitions written in ``text``: (term, start, end).

    >>> find("(4) ‘deployer’ means a natural or legal person ...")
    [('deployer', 4, 20)]
    """
    return [(m.group(1).strip(), m.start(), m.end()) for m in _DEFINES.finditer(text)]


_lock = threading.Lock()
_cache: dict[tuple[int, str, str, str], list[Definition]] = {}
_CACHE_MAX = 20_000
_MAX_TERM_WORDS = 6
"""A phrase longer than this is a question's subject, not a defined term ("the procedure for ...")."""


def definitions_of(term: str, store: Store, corpus: str) -> list[Definition]:
    """The corpus's definitions of ``term`` (matched by :func:`norm`), read once per corpus version.

    Only units that the full-text index says hold the term followed by a defining verb are read
    (:meth:`Store.units_with_words`, whose index stems "Makers" as it stems "maker"), so a question
    never reads the whole corpus."""
    info = store.corpus(corpus)
    key = (id(store), corpus, info.version, norm(term))
    with _lock:
        if key in _cache:
            return _cache[key]
    # "deployer means" is one phrase to the SQLite index (the quotation marks are not tokens), and all
    # of its words to Elasticsearch: either way a superset of the units that define it. The singular is
    # asked too: Elasticsearch's standard analyzer does not stem "processors" to "processor". Each phrase
    # is the term followed by one of the defining verbs that ``find`` reads.
    phrases = dict.fromkeys(" ".join(re.findall(r"[^\W_]+", t)) for t in (term.lower(), norm(term)))
    ids: set[str] = set()
    for phrase in phrases:
        for verb in _VERBS:
            ids.update(store.units_with_words(corpus, [f"{phrase} {verb}"]))
    out: list[Definition] = []
    ordered = sorted(ids)
    for i in range(0, len(ordered), 200):
        for uid, u in store.get_units(corpus, ordered[i:i + 200]).items():
            out += [Definition(t, uid, start, end) for t, start, end in find(u.text) if norm(t) == norm(term)]
    out.sort(key=lambda d: (d.unit_id, d.start))
    with _lock:
        for old in [k for k in _cache if k[:2] == key[:2] and k[2] != key[2]]:
            del _cache[old]  # an older version of the same corpus
        if len(_cache) >= _CACHE_MAX:
            _cache.clear()  # a long-running dashboard asks about ever new terms
        _cache[key] = out
    return out


def defined_terms(store: Store, corpus: str) -> dict[str, list[Definition]]:
    """Every definition in the stored corpus, by normalised term (reads every unit: for tools and
    tests; retrieval looks terms up one at a time with :func:`definitions_of`)."""
    ids = store.unit_ids(corpus)
    out: dict[str, list[Definition]] = {}
    for i in range(0, len(ids), 500):
        for uid, u in store.get_units(corpus, ids[i:i + 500]).items():
            for term, start, end in find(u.text):
                out.setdefault(norm(term), []).append(Definition(term, uid, start, end))
    return out


def question_terms(question: str) -> list[tuple[str, int]]:
    """Phrases the question asks about as terms: the ones it quotes, and the subject of "what is
    ...", "what counts as ...", "what does ... mean", "definition of ...". (phrase, offset)."""
    found = [(m.group(1).strip(), m.start()) for m in _QUOTED.finditer(question)]
    for p in _ASKS:
        for m in p.finditer(question):
            t = m.group("t").strip(" '‘’\"“”")
            if t:
                found.append((t, m.start("t")))
    seen: set[str] = set()
    out = []
    for t, at in sorted(found, key=lambda f: f[1]):
        if len(t.split()) > _MAX_TERM_WORDS:
            continue
        if norm(t) not in seen:
            seen.add(norm(t))
            out.append((t, at))
    return out


def asked(question: str, *, store: Store, corpus: str) -> list[tuple[str, int, list[Definition]]]:
    """The defined terms the question asks about: (as the question writes it, its offset, the
    corpus's definitions of it). Nothing is read from the store for a question that quotes no term
    and asks no "what is"."""
    out = []
    for t, at in question_terms(question):
        found = definitions_of(t, store, corpus)
        if found:
            out.append((t, at, found))
    return out
