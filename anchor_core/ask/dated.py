"""When a question asks when a document of the corpus was published, or who wrote it, the document's own header
answers.

An RFC's header block ends its right column with the publication date (``October 2012``); the RFC adapter keeps
the header as the opening lines of the unit text and records in ``Document.meta["front"]`` the unit, the
document's designation (``RFC 6749``) and the spans of the date cell and the author cells. No sentence of the body
says "published in October 2012", so the answerability test, which looks for the asked date beside the
question's words, refuses such a question; this module answers it from the header instead, and only when

- the question asks for a date (:func:`~anchor_core.ask.question.analyse`) and its asking sentence asks when
  something *was* published, issued or released, or for a publication date (not "by when must the server
  publish its metadata", a duty);
- exactly one dated document is the one asked about: the question names it (``RFC 7009``, resolved by the
  adapter's reference grammar) or writes most of its title (``the OAuth 2.0 token revocation spec``), clearly more
  of it than of any other title;
- the asking sentence asks about nothing else: every content word of it is the document's title or designation,
  a word for a document, or a word of the question's form. "When was the very first version (draft 00) of the
  bearer token spec published?" keeps "first", "version" and "draft", so the header (which dates the RFC, not
  its first draft) does not answer, and the usual test decides.

"Who wrote RFC 8174?" ("who are the authors of", "who edited") is answered the same way from the header's author
cells (``B. Leiba``), which the adapter also records; "who drafted its Security Considerations section" keeps
"security considerations section" and is left to the usual test.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from anchor_core.ask.gate import content_terms
from anchor_core.ask.question import QuestionAnalysis, asked_sentence
from anchor_core.models import Document

# the document's own publication, done: "when was it published", "what is its publication date" (not "by when
# must the server publish its metadata", a duty)
_PUBLISHED = re.compile(r"\b(?:was|were|did|has been|have been)\b[^?]*"
                        r"\b(?:publish(?:ed)?|issued|released|issue|release)\b|"
                        r"\bpublication date\b|\bdate of (?:its |their )?publication\b", re.I)
# who wrote the document: "who wrote RFC 8174", "who are the authors of the JWT spec", "who edited it"
_AUTHORED = re.compile(r"\bwho\b[^?]*\b(?:wrote|authored|edited|co-?authored)\b|"
                       r"\bwho\s+(?:is|are|was|were)\s+(?:(?:the|its|their)\s+)?(?:co-?)?(?:authors?|editors?)\b|"
                       r"\b(?:name|names)\s+of\s+(?:the\s+)?(?:authors?|editors?)\b", re.I)
_DUTY = re.compile(r"\b(?:must|shall|should|will|would|may|might|can|could|need|needs|has to|have to)\b", re.I)
# words of the question's form and words for a document: they ask, or point at the document, and add no topic
_FORM = frozenset("""
publish published publishes publishing publication issued released month year date day when what which did was
were does has have our the that this its their document documents spec specs specification specifications
standard standards rfc rfcs memo memos paper text who whom wrote write written authored author authors coauthored
co-authored edited editor editors name names
""".split())
# a designation of a work: "RFC 3218", "BCP 14", "FIPS PUB 180-4", "NIST SP 800-38D", "Special
# Publication 800-56A", "ISO/IEC 9075", "draft-ietf-oauth-v2-bearer-00"
_DESIGNATION = re.compile(r"\b(?:RFC|BCP|STD|FIPS(?:\s+PUB)?|(?:NIST\s+)?SP|Special\s+Publication|ISO(?:/IEC)?|"
                          r"ITU-T\s+[A-Z]\.?|ANSI\s+X)\s?\d[\d.-]*\d|\b\d[\d.-]*\d\b(?=\s*\((?:RFC|BCP)\))|"
                          r"\bdraft-[\w.-]+[\w]", re.I)
MIN_TITLE = 0.5
"""Share of a title's weight (each word weighed by how few titles write it) the question must write to ask
about that document without naming it."""
TITLE_MARGIN = 0.2
"""...and by how much more than of any other title."""


@dataclass(frozen=True)
class HeaderAnswer:
    doc_id: str
    unit_id: str
    title: str
    label: str
    """How the corpus designates it: ``RFC 7009``."""
    asks: str
    """``date`` (when it was published) or ``authors`` (who wrote it)."""
    value: str
    """The answer as the header writes it: ``August 2013``, ``T. Lodderstedt, Ed.; S. Dronia; M. Scurtescu``."""
    quotes: tuple[tuple[int, int], ...]
    """``unit.text[start:end]`` of each header cell that answers: the date, or each author."""
    why: str
    """How the question points at it: ``names RFC 7009`` or ``writes its title``."""


def _asks(question: str, analysis: QuestionAnalysis, kind: str, pattern: re.Pattern[str]) -> bool:
    """A question of ``kind`` whose asking sentence matches ``pattern`` and states no duty."""
    asking = asked_sentence(question)
    return analysis.kind == kind and bool(pattern.search(asking)) and not _DUTY.search(asking)


def asks_publication(question: str, analysis: QuestionAnalysis) -> bool:
    """A date question whose asking sentence is about a publication.

    >>> from anchor_core.ask.question import analyse
    >>> q = "Our register lists RFC 7009. In what month and year was it published?"
    >>> asks_publication(q, analyse(q))
    True
    >>> q = "By when must the Commission publish its guidelines?"
    >>> asks_publication(q, analyse(q))
    False
    """
    return _asks(question, analysis, "date", _PUBLISHED)


def asks_authors(question: str, analysis: QuestionAnalysis) -> bool:
    """A question for who wrote something.

    >>> from anchor_core.ask.question import analyse
    >>> q = "Who wrote RFC 8174?"
    >>> asks_authors(q, analyse(q))
    True
    >>> q = "Who must write the report?"
    >>> asks_authors(q, analyse(q))
    False
    """
    return _asks(question, analysis, "person_or_body", _AUTHORED)


def asks_header(question: str, analysis: QuestionAnalysis) -> str:
    """``date``, ``authors`` or ``""``: what of a document's header the question asks for."""
    return "date" if asks_publication(question, analysis) else "authors" if asks_authors(question, analysis) else ""


def _with(documents: list[Document], asks: str) -> list[Document]:
    """The documents whose header records what is asked (a date cell, author cells)."""
    return [d for d in documents if isinstance(d.meta.get("front"), dict) and d.meta["front"].get(asks)
            and (asks != "date" or d.meta.get("date"))]


def _title_words(doc: Document) -> set[str]:
    return set(content_terms(doc.title))


def choose(question: str, documents: list[Document], named: set[str] | dict[str, str],
           asks: str = "date") -> tuple[Document | None, str]:
    """The one dated document the question asks about, with how it points at it (``None`` and the reason when
    none or several do). ``named``: the units the question names by reference, or a mapping of them to the
    reference as written (``RFC 8174``): of several named, the one the asking clause names is asked about ("... cites
    RFC 8174, the update to RFC 2119. In what month and year was RFC 8174 published?")."""
    dated = _with(documents, asks)
    if not dated:
        return None, f"no document of the corpus has a header that records its {asks}"
    hit = [d for d in dated if d.meta["front"].get("unit") in named]
    if len(hit) > 1 and isinstance(named, dict):
        asking = asking_clause(question)
        hit = [d for d in hit if named[d.meta["front"]["unit"]] in asking] or hit
    if len(hit) == 1:
        return hit[0], f"names {hit[0].meta['front'].get('label') or hit[0].doc_id}"
    if len(hit) > 1:
        return None, "the question names several documents"
    q = set(content_terms(question))
    # an acronym of the question stands for the title words it abbreviates ("the PKCE RFC")
    covers = title_covers([_title_words(d) for d in dated], [_expanded(q, d.title) for d in dated])
    ranked = sorted(zip(covers, dated), key=lambda x: -x[0])
    best, doc = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    if best < MIN_TITLE:
        return None, f"the question writes at most {best:.0%} of a document's title"
    if best - second < TITLE_MARGIN:
        return None, f"the question writes as much of two titles ({best:.0%}, {second:.0%})"
    return doc, f"writes {best:.0%} of its title"


def title_covers(titles: Sequence[set[str]], written: Sequence[set[str]]) -> list[float]:
    """The share of each title that the matching set of ``written`` holds, each word weighed by how few of the
    titles write it (a word every title writes, "OAuth", says little about which one is meant)."""
    df: dict[str, int] = {}
    for ws in titles:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    n = len(titles)
    out = []
    for ws, said in zip(titles, written):
        total = sum(math.log(1 + n / df[w]) for w in ws)
        out.append(sum(math.log(1 + n / df[w]) for w in ws if w in said) / total if total else 0.0)
    return out


_ASKING = re.compile(r"\b(?:(?:in|on|by|from|since|at)\s+)?(?:when|what|which|who|whom)\b", re.I)


def asking_clause(question: str) -> str:
    """The asking sentence from its question word on: a purpose told before it ("For our standards register, in
    what month ...") is the situation, not what is asked.

    >>> asking_clause("We cite it. For the guide's bibliography, in what month and year was RFC 2119 published?")
    'in what month and year was RFC 2119 published?'
    """
    asking = asked_sentence(question)
    m = _ASKING.search(asking)
    return asking[m.start():] if m else asking


def _acronyms(title: str) -> dict[str, set[str]]:
    """Acronyms a title's words make (``pkce``: proof, key, code, exchange; function words skipped), with the
    words each stands for.

    >>> sorted(_acronyms("Proof Key for Code Exchange by OAuth Public Clients")["pkce"])
    ['code', 'exchange', 'key', 'proof']
    """
    ws = content_terms(title)
    out: dict[str, set[str]] = {}
    for i in range(len(ws)):
        for j in range(i + 2, min(len(ws), i + 6) + 1):
            out.setdefault("".join(w[0] for w in ws[i:j]), set()).update(ws[i:j])
    return out


def _expanded(said: set[str], title: str) -> set[str]:
    """``said`` with the title words that an acronym in it abbreviates ("pkce": proof, key, code, exchange)."""
    return said | {w for a, ws in _acronyms(title).items() if a in said for w in ws}


def leftover(question: str, doc: Document) -> list[str]:
    """Content words of the asking sentence that are neither the document's title or designation nor the
    question's form: what the question asks about besides the document's publication.

    >>> d = Document(doc_id="rfc-6750", title="The OAuth 2.0 Authorization Framework: Bearer Token Usage",
    ...              source="", sha256="", meta={"front": {"label": "RFC 6750"}, "date": "October 2012"})
    >>> leftover("When was the OAuth bearer token usage spec published?", d)
    []
    >>> leftover("When was the very first version (draft 00) of the OAuth bearer token usage spec published?", d)
    ['first', 'version', 'draft']
    """
    own = _title_words(doc) | set(content_terms(str(doc.meta.get("front", {}).get("label", ""))))
    own |= set(_acronyms(doc.title))
    return [w for w in content_terms(asking_clause(question))
            if w not in own and w not in _FORM and not w.isdigit()]


# a noun for a document, and the words that end the noun phrase before it ("... are based on | an earlier
# authenticated-encryption specification", "... cites | the OAuth token introspection RFC")
_DOC_NOUN = re.compile(r"\b(?:rfcs?|specs?|specifications?|memos?|drafts?|documents?|bcps?|peps?)\b", re.I)
_PHRASE_STOP = frozenset("""
on in of by to from with for at as per under about against into based cites cite cited uses use used follows follow
followed implements implement implemented lists list listed is are was were be been that which who and or but than
""".split())


def _noun_phrase(text: str, m: re.Match[str]) -> str:
    """The noun phrase that ends with the document noun ``m`` (its words back to a preposition, a verb or a
    stop), with its number and a parenthesis right after it ("RFC 8174", "the JSON Web Token spec (RFC 7519)")."""
    before = re.split(r"[.;:!?]\s", text[:m.start()])[-1].split()
    kept: list[str] = []
    for w in reversed(before[-8:]):
        if w.lower().strip("(),\"'") in _PHRASE_STOP:
            break
        kept.insert(0, w)
    after = re.match(r"(?:\s*\d+)?(?:\s*\([^()]*\))?", text[m.end():])  # its number, its parenthesis
    return " ".join([*kept, m.group(0)]) + (after.group(0) if after else "")


# a demonstrative before a document noun points back at a document named before it ("that spec", "this RFC")
_POINTER = re.compile(r"\b(?:that|this|the said|the latter)\s+(?:rfc|spec|specification|memo|draft|document|pep)\b",
                      re.I)


def _pointed(asking: str, m: re.Match[str]) -> str:
    """The pointer ``m`` with what stands in apposition right after it ("that spec, RFC 7518,")."""
    rest = re.match(r"[\s,(]*(?:RFC|PEP|BCP)\s?\d+", asking[m.end():], re.I)
    return m.group(0) + (rest.group(0) if rest else "")


def writes_designation(text: str, designation: str) -> bool:
    """``text`` writes ``designation`` ("RFC 7519" as "RFC 7519" or "RFC7519", not "RFC 75190" nor "XRFC 7519").

    >>> writes_designation("What does RFC7519 cite?", "RFC 7519"), writes_designation("RFC 75190", "RFC 7519")
    (True, False)
    """
    parts = designation.split()
    return bool(parts) and re.search(r"(?<![\w])" + r"\s?".join(map(re.escape, parts)) + r"(?![\w])", text,
                                     re.I) is not None


def _writes(text: str, doc: Document) -> bool:
    """``text`` names ``doc``: its designation ("RFC 7519") or at least half of its title's words (an acronym for
    the words it abbreviates)."""
    if writes_designation(text, str(doc.meta.get("front", {}).get("label", ""))):
        return True
    title = _title_words(doc)
    said = _expanded(set(content_terms(text)), doc.title)
    return bool(title) and len(title & said) / len(title) >= MIN_TITLE


def other_designations(text: str, doc: Document) -> list[str]:
    """The designations ``text`` writes that are not ``doc``'s own: "RFC 3339" in "what publication date does the JWT
    spec give for RFC 3339?" asks about RFC 3339, which RFC 7519's header does not date. A designation is one of
    the series :data:`_DESIGNATION` knows, or the series of ``doc``'s own label ("PEP 8" beside "PEP 387").

    >>> d = Document(doc_id="rfc-7519", title="JSON Web Token (JWT)", meta={"front": {"label": "RFC 7519"}})
    >>> other_designations("what publication date does the JWT spec give for RFC 3339?", d)
    ['RFC 3339']
    >>> other_designations("when was RFC7519 published?", d), other_designations("when was the JWT spec published?", d)
    ([], [])
    >>> p = Document(doc_id="pep-387", title="Backwards Compatibility Policy", meta={"front": {"label": "PEP 387"}})
    >>> other_designations("when was the policy PEP 8 cites published?", p)
    ['PEP 8']
    """
    label = str(doc.meta.get("front", {}).get("label", ""))
    found = [m.group(0) for m in _DESIGNATION.finditer(text)]
    series = re.match(r"([A-Za-z][A-Za-z/ -]*?)\s?\d", label)
    if series:
        found += [m.group(0) for m in re.finditer(rf"\b{re.escape(series.group(1))}\s?\d+\b", text, re.I)]
    return [d for d in dict.fromkeys(found) if not (label and writes_designation(d, label))]


def points_elsewhere(question: str, doc: Document) -> bool:
    """The asking clause points back ("who wrote that specification?") at the last document the situation
    mentions, and that one is not ``doc``: "JWA's algorithms are based on an earlier authenticated-encryption
    specification. Who wrote that specification?" asks about the earlier one, not JWA.

    >>> d = Document(doc_id="rfc-7518", title="JSON Web Algorithms (JWA)", meta={"front": {"label": "RFC 7518"}})
    >>> points_elsewhere("JWA's AES-CBC algorithms are based on an earlier authenticated-encryption specification. "
    ...                  "Who wrote that specification?", d)
    True
    >>> points_elsewhere("Our gateway follows the JSON Web Algorithms spec. Who wrote that spec?", d)
    False

    An asking clause that names ``doc`` as what gives the answer and points back at another document ("what
    publication date does RFC 7518 give for that spec?") asks about the other one: the header dates ``doc``.

    >>> points_elsewhere("JWA builds on an earlier authenticated-encryption specification. What publication date "
    ...                  "does RFC 7518 give for that specification?", d)
    True
    >>> points_elsewhere("Our gateway follows RFC 7518. When was that spec, RFC 7518, published?", d)
    False
    """
    asking = asking_clause(question)
    pointer = _POINTER.search(asking)
    if _writes(asking, doc) and (pointer is None or _writes(_pointed(asking, pointer), doc)):
        return False
    situation = question[:question.rfind(asking)]
    nouns = list(_DOC_NOUN.finditer(situation))
    return bool(nouns) and not _writes(_noun_phrase(situation, nouns[-1]), doc)


def find(question: str, analysis: QuestionAnalysis, documents: list[Document],
         named: set[str] | dict[str, str]) -> tuple[HeaderAnswer | None, str]:
    """The header that answers ``question``, or ``None`` with why not (``""`` when the question asks neither when
    something was published nor who wrote it)."""
    asks = asks_header(question, analysis)
    if not asks:
        return None, ""
    doc, why = choose(question, documents, named, asks)
    if doc is None:
        return None, why
    if points_elsewhere(question, doc):
        return None, f"the question points back at another document than {doc.meta['front'].get('label', doc.doc_id)}"
    others = other_designations(asking_clause(question), doc)
    if others:
        label = doc.meta["front"].get("label") or doc.doc_id
        return None, (f"the question asks about {others[0]}, which the header of {label} does not "
                      + ("date" if asks == "date" else "name"))
    rest = leftover(question, doc)
    if rest:
        return None, f"the question asks about {' '.join(rest)}, which the header does not " + (
            "date" if asks == "date" else "name")
    front = doc.meta["front"]
    spans = [front["date"]] if asks == "date" else list(front["authors"])
    quotes = tuple((int(a), int(b)) for a, b in spans)
    value = str(doc.meta["date"]) if asks == "date" else "; ".join(str(n) for n in front.get("author_names", []))
    return HeaderAnswer(doc_id=doc.doc_id, unit_id=front["unit"], title=doc.title, asks=asks, value=value,
                        label=str(front.get("label") or doc.doc_id), quotes=quotes, why=why), ""
