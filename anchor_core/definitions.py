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
from functools import lru_cache

from anchor_core.scorers.text import stem
from anchor_core.stores.base import Store
from anchor_core.text import STOP_WORDS

# the term in quotation marks (straight or curly), then the defining verb; "(‘the AI Office’)" style
# abbreviations and "for the purposes of this Part" lead-ins are not definitions of this shape
DEFINING_VERBS = ("means", "shall mean", "has the meaning", "is defined as", "refers to")
_DEFINES = re.compile(
    r"(?:^|(?<=[\s(\[]))['‘\"“]([^\W\d_][^'’\"”\n]{0,78}?)['’\"”],?\s+(?:\([^)\n]{1,40}\)\s+)?"
    # a qualifier the definition attaches to its term ("‘consent’ of the data subject means")
    r"(?:of (?:the |a |an )?[^\W\d_]+(?: [^\W\d_]+){0,2},?\s+)?"
    rf"(?:{'|'.join(DEFINING_VERBS)})\b")
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
    rf"\bdefines? {_ARTICLE}{_TERM}(?=\s*[?,.;]|\s*$|\s+(?:and|or|under|in|for)\b)",
)]


FETCHED = "definition of "
"""How a hit fetched for a defined term is marked (``Hit.named``: "definition of ‘deployer’")."""


def fetched_label(term: str) -> str:
    """The mark of a hit fetched for ``term``'s definition (:data:`FETCHED`)."""
    return f"{FETCHED}‘{term}’"


def fetched_term(named: str) -> str | None:
    """The term whose definition a hit was fetched for, read from its mark (``None``: not fetched so).

    >>> fetched_term(fetched_label("deployer")), fetched_term("Annex III")
    ('deployer', None)
    """
    return named[len(FETCHED):].strip("‘’'") if named.startswith(FETCHED) else None


@dataclass(frozen=True)
class Definition:
    term: str
    """The term as the corpus writes it (``deployer``)."""
    unit_id: str
    start: int
    end: int
    """Offsets of the defining sentence's opening (the quoted term and its verb) in the unit text."""


def norm(term: str) -> str:
    """How terms are compared: lower case, one space (a hyphen is one: "general purpose" is "general-purpose"), a
    plural ``s`` on the last word dropped."""
    t = " ".join(term.lower().replace("’", "'").replace("-", " ").split())
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
        for verb in DEFINING_VERBS:
            ids.update(store.units_with_words(corpus, [f"{phrase} {verb}"]))
            # "‘consent’ of the data subject means": the term, "of", and the verb in the same unit
            ids.update(store.units_with_words(corpus, [f"{phrase} of", verb]))
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
    and asks no "what is". A term the question asks the sources to define (:func:`asked_to_define`) is also
    looked up in a glossary's layout (:func:`entries_of`) when no "‘term’ means" definition is found."""
    out = []
    to_define = asked_to_define(question)
    for t, at in question_terms(question):
        found = definitions_of(t, store, corpus)
        if not found and to_define is not None and norm(t) == norm(to_define):
            found = entries_of(t, store, corpus)
        if found:
            out.append((t, at, found))
    if to_define is not None and not any(norm(t) == norm(to_define) for t, *_ in out):
        at = question.rfind(to_define)
        found = definitions_of(to_define, store, corpus) or entries_of(to_define, store, corpus)
        if found and at >= 0:
            out.append((to_define, at, found))
    return out


GLOSSARY_UNITS = 40
"""At most this many units holding a term are read for its glossary entry: a term that more units write is a
common word, whose entry a search by layout would not single out."""


def _entry(term: str) -> re.Pattern[str]:
    """A glossary entry of ``term``: the term opening a line (in quotation marks or not, with an abbreviation in
    parentheses), its description after it on an indented next line (an RFC's terminology), after two spaces or a
    colon, or after "Means" (a rulebook's glossary table); not a line of a table of contents (". . . 32")."""
    body = r"[\s\-]+".join(re.escape(w) for w in re.findall(r"[^\W_]+", term)) + "s?"
    return re.compile(
        rf"^(?P<ind>[ \t]*)(?:[-*•][ \t]+)?['\"‘“`]*(?P<t>{body})['\"’”`]*(?:[ \t]*\([^()\n]{{1,30}}\))?"
        r"(?:[ \t]*\n(?P=ind)[ \t]+(?=[^\W\d_])|[ \t]{2,}(?=[^\W\d_])|[ \t]*:[ \t]+(?=\S)|[ \t]+Means\b)",
        re.M | re.I)


def entries_of(term: str, store: Store, corpus: str) -> list[Definition]:
    """The glossary entries of ``term`` in the corpus (:func:`_entry`): read only from the units the full-text
    index says hold the term, and only when at most :data:`GLOSSARY_UNITS` do.

    >>> _entry("Content Encryption Key").search("salt.\\n\\nContent Encryption Key (CEK)\\n   A key").group("t")
    'Content Encryption Key'
    >>> _entry("native app").search('   "native app"  An app or application that is installed').group("t")
    'native app'
    >>> _entry("content encryption key").search("A.1.2.  Content Encryption Key (CEK)\\n\\nGenerate") is None
    True
    """
    if len(term.split()) > _MAX_TERM_WORDS or not re.search(r"[^\W_]", term):
        return []
    ids = store.units_with_words(corpus, [" ".join(re.findall(r"[^\W_]+", term.lower()))])
    if not ids or len(ids) > GLOSSARY_UNITS:
        return []
    rx = _entry(term)
    return [Definition(m.group("t"), uid, m.start("t"), m.end())
            for uid, u in sorted(store.get_units(corpus, ids).items()) for m in rx.finditer(u.text)]


# --- questions that ask how the sources define a term ---------------------------------------------

# "How does the GDPR define 'consent'?", "How is a deep fake defined?", "the definition of profiling": the question asks
# for the sources' own definition, which a passage either gives or does not. ("What does a rowcount of -1 mean?" asks
# what something means, which a description may answer; "which modes does the spec define" asks what it specifies.)
_Q = "['‘’\"“”`]*"
_END = r"(?=\s*(?:[?,;:]|$)|\s+(?:and|or|under|in|for|as|according|when|within|there|here|that|which|so|to)\b)"
_TO_DEFINE = [re.compile(p, re.I) for p in (
    r"\bhow\s+(?:does|do|did|would|will)\s+(?!(?:we|i|you|they|our|my|your)\b)(?:[^?]{0,80}?\s)?defines?\s+"
    rf"(?:the\s+term\s+)?{_ARTICLE}{_Q}(?P<t>[^?,;:]+?){_Q}{_END}",
    rf"\bhow\s+(?:is|are)\s+{_ARTICLE}{_Q}(?P<t>[^?,;:]+?){_Q}\s+defined\b",
    rf"^\W*(?:what|how)\b[^?]*\bdefinitions?\s+of\s+(?:the\s+term\s+)?{_ARTICLE}{_Q}(?P<t>[^?,;:]+?){_Q}{_END}",
)]
# "How does the FSRA define that term?": what the pointer stands for is not read
_POINTS = re.compile(r"^(?:that|this|these|those|it|its|they|them|their|such)\b|^(?:the\s+)?terms?$", re.I)
_HEDGES = re.compile(r"\s+(?:actually|exactly|really|itself|precisely)$", re.I)


@lru_cache(maxsize=4096)
def asked_to_define(question: str) -> str | None:
    """The term ``question`` asks the sources to define (as it writes it), or ``None``.

    >>> asked_to_define("We host a chatbot. How does the AI Act define a 'deep fake'?")
    'deep fake'
    >>> asked_to_define("Our desk was accused of an 'abusive squeeze'. How does the FSRA define that term?") is None
    True
    >>> asked_to_define("Our lawyers mention 'binding corporate rules'. How does the GDPR define them?") is None
    True
    >>> asked_to_define("How is a personal data breach defined under the GDPR?")
    'personal data breach'
    >>> asked_to_define("How does the GDPR define who counts as the 'holder of parental responsibility'?")
    'holder of parental responsibility'
    >>> asked_to_define("What does a rowcount of -1 mean?") is None  # what something means, not its definition
    True
    >>> asked_to_define("Which key management modes does the JWE spec define?") is None  # define: specify
    True
    """
    from anchor_core.ask.question import asked_sentence  # the ask package imports this module

    asking = asked_sentence(question)
    for p in _TO_DEFINE:
        m = p.search(asking)
        if not m:
            continue
        # a term the question quotes from where the match found it on ("define who counts as the 'holder of
        # parental responsibility'"): the quotation marks bound it
        quoted = next((q for q in _QUOTED.finditer(asking) if q.start() >= m.start("t") - 1), None)
        term = _HEDGES.sub("", (quoted.group(1) if quoted else m.group("t")).strip(" '‘’\"“”`"))
        if _POINTS.search(term):
            return None  # "that term" may point at a quoted word or at a phrase the situation writes unquoted
        if term and len(term.split()) <= _MAX_TERM_WORDS:
            return term
    return None


_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# what follows a term its sentence defines: a defining verb, a copula with an article, or an abbreviation first
_DEFINING = re.compile(
    r"\s*(?:\([^()\n]{1,40}\)\s*)?,?\s*(?:(?:of\s+(?:the\s+|an?\s+)?[^\W\d_]+(?:\s+[^\W\d_]+){0,2},?\s+)?"
    r"(?:means|shall\s+mean|(?:is|are)\s+defined\s+as)|mean|has\s+the\s+meaning|(?:is|are)\s+defined|"
    r"refers?\s+to|denotes?|(?:is|are)\s+(?:to\s+be\s+)?understood|shall\s+be\s+understood|covers?|comprises?|"
    r"consists?\s+of|implies|(?:is|are)\s+(?:often\s+|also\s+|generally\s+)?(?:referred\s+to|known|called)\s+as|"
    r"(?:can|should|may)\s+be\s+(?:considered|regarded)\s+as|(?:is|are|shall\s+be)\s+deemed|"
    r"(?:is|are)\s+(?:an?|the|any|one|those)\b)", re.I)
# a notion the sources define by classifying things into it: "an AI system shall be considered to be high-risk where
# ...", "is classified as a general-purpose AI model with systemic risk if ...": the verb, then the term's first word
_CLASSIFIES = re.compile(r"\b(?:considered|classified|regarded|deemed|qualif(?:y|ies|ied))\s+(?:as|to\s+be)\s+"
                         r"(?:an?\s+|the\s+)?$", re.I)
# a glossary's layout: the term opens its sentence and its description follows after a colon, a dash, a line
# break or a run of spaces ('"native app"  An app or application ...', "Source of Wealth Means ...")
_LAYOUT = re.compile(r"\s*(?:\([^()\n]{1,40}\))?\s*(?::|–|—|-\s|\n|\s{2,}|Means\b)")
_MARKS = re.compile(r"['‘’\"“”`*]")


def _keys(text: str) -> list[tuple[int, int, str]]:
    """The content words of ``text`` with their offsets, stemmed (function words left out)."""
    return [(m.start(), m.end(), stem(m.group(0).lower())) for m in _TOKEN.finditer(text)
            if m.group(0).lower() not in STOP_WORDS]


def _at(toks: list[tuple[int, int, str]], want: list[tuple[int, int, str]]) -> list[int]:
    """Where the words ``want`` stand in ``toks``, in order and next to each other."""
    keys, n = [k for *_, k in want], len(want)
    return [i for i in range(len(toks) - n + 1) if [k for *_, k in toks[i:i + n]] == keys]


def mentions(text: str, term: str) -> bool:
    """``text`` writes ``term`` (its content words in order, inflections stemmed), whether or not it defines it.

    >>> mentions("Any affected persons may complain.", "affected person"), mentions("A person affected.", "affected")
    (True, True)
    >>> mentions("A person affected by it.", "affected person")
    False
    """
    want = _keys(term)
    return bool(want) and bool(_at(_keys(text), want))


def defines(sentence: str, term: str) -> bool:
    """``sentence`` defines ``term``: the term's words, in order and next to each other (function words and
    quotation marks aside, inflections stemmed), followed by a defining verb or a copula with an article (anywhere
    in the sentence), or opening the sentence in a glossary's layout.

    >>> defines("(11) ‘consent’ of the data subject means any freely given ... indication", "consent")
    True
    >>> defines('"native app"  An app or application that is installed by the user to their device.', "native app")
    True
    >>> defines("Any affected person subject to a decision taken by the deployer has the right to an explanation.",
    ...         "affected person")
    False
    >>> defines("The Commission shall specify the detailed elements of the real-world testing plan.",
    ...         "real-world testing plan")
    False
    >>> defines("1. An AI system shall be considered to be high-risk where both of the following conditions are met:",
    ...         "high-risk AI systems")
    True
    """
    want, toks = _keys(term), _keys(sentence)
    if not want:
        return False
    opening = len(_MARKS.sub("", sentence[:toks[0][0]]).strip(" \t\n(-–—•o0123456789.)[]")) == 0 if toks else False
    n = len(want)
    for i in _at(toks, want):
        after = _MARKS.sub("", sentence[toks[i + n - 1][1]:toks[i + n - 1][1] + 80])
        if _DEFINING.match(after):
            return True
        if i == 0 and opening and _LAYOUT.match(after):
            return True
    # the term's first word right after a verb that classifies ("shall be considered to be high-risk" for "high-risk
    # AI system"), the term's own sentence being its definition's
    return any(k == want[0][2] and _CLASSIFIES.search(_MARKS.sub("", sentence[max(0, a - 40):a])) for a, _, k in toks)
