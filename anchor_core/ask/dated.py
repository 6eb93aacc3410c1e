"""When a question asks when a document of the corpus was published, the document's own header answers.

An RFC's header block ends its right column with the publication date (``October 2012``); the RFC adapter keeps
the header as the opening lines of the unit text and records where it ends (``Document.meta["front"]``: the unit
and the offsets of the header and title, whose last date cell is the publication date). No sentence of the body
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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from anchor_core.ask.gate import content_terms
from anchor_core.ask.question import QuestionAnalysis, asked_sentence
from anchor_core.models import Document

# the document's own publication, done: "when was it published", "what is its publication date" (not "by when
# must the server publish its metadata", a duty)
_PUBLISHED = re.compile(r"\b(?:was|were|did|has been|have been)\b[^?]*"
                        r"\b(?:publish(?:ed)?|issued|released|issue|release)\b|"
                        r"\bpublication date\b|\bdate of (?:its |their )?publication\b", re.I)
_DUTY = re.compile(r"\b(?:must|shall|should|will|would|may|might|can|could|need|needs|has to|have to)\b", re.I)
# words of the question's form and words for a document: they ask, or point at the document, and add no topic
_FORM = frozenset("""
publish published publishes publishing publication issued released month year date day when what which did was
were does has have our the that this its their document documents spec specs specification specifications
standard standards rfc rfcs memo memos paper text
""".split())
MIN_TITLE = 0.5
"""Share of a title's weight (each word weighed by how few titles write it) the question must write to ask
about that document without naming it."""
TITLE_MARGIN = 0.2
"""...and by how much more than of any other title."""


@dataclass(frozen=True)
class DatedDocument:
    doc_id: str
    unit_id: str
    title: str
    date: str
    label: str
    """How the corpus designates it: ``RFC 7009``."""
    start: int
    end: int
    """``unit.text[start:end]``: the header's date cell, the quote that answers."""
    why: str
    """How the question points at it: ``names RFC 7009`` or ``writes its title``."""


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
    asking = asked_sentence(question)
    return analysis.kind == "date" and bool(_PUBLISHED.search(asking)) and not _DUTY.search(asking)


def _dated(documents: list[Document]) -> list[Document]:
    return [d for d in documents if isinstance(d.meta.get("front"), dict) and d.meta["front"].get("date")
            and d.meta.get("date")]


def _title_words(doc: Document) -> set[str]:
    return set(content_terms(doc.title))


def choose(question: str, documents: list[Document], named: set[str] | dict[str, str]) -> tuple[Document | None, str]:
    """The one dated document the question asks about, with how it points at it (``None`` and the reason when
    none or several do). ``named``: the units the question names by reference, or a mapping of them to the
    reference as written (``RFC 8174``): of several named, the one the asking clause names is asked about ("... cites
    RFC 8174, the update to RFC 2119. In what month and year was RFC 8174 published?")."""
    dated = _dated(documents)
    if not dated:
        return None, "no document of the corpus has a dated header"
    hit = [d for d in dated if d.meta["front"].get("unit") in named]
    if len(hit) > 1 and isinstance(named, dict):
        asking = asking_clause(question)
        hit = [d for d in hit if named[d.meta["front"]["unit"]] in asking] or hit
    if len(hit) == 1:
        return hit[0], f"names {hit[0].meta['front'].get('label') or hit[0].doc_id}"
    if len(hit) > 1:
        return None, "the question names several documents"
    q = set(content_terms(question))
    titles = {d.doc_id: _title_words(d) for d in dated}
    # an acronym of the question stands for the title words it abbreviates ("the PKCE RFC")
    written = {d.doc_id: q | {w for a, ws in _acronyms(d.title).items() if a in q for w in ws} for d in dated}
    df: dict[str, int] = {}
    for ws in titles.values():
        for w in ws:
            df[w] = df.get(w, 0) + 1
    n = len(dated)

    def cover(d: Document) -> float:
        ws = titles[d.doc_id]
        total = sum(math.log(1 + n / df[w]) for w in ws)
        return sum(math.log(1 + n / df[w]) for w in ws if w in written[d.doc_id]) / total if total else 0.0

    ranked = sorted(((cover(d), d) for d in dated), key=lambda x: -x[0])
    best, doc = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    if best < MIN_TITLE:
        return None, f"the question writes at most {best:.0%} of a dated document's title"
    if best - second < TITLE_MARGIN:
        return None, f"the question writes as much of two titles ({best:.0%}, {second:.0%})"
    return doc, f"writes {best:.0%} of its title"


_ASKING = re.compile(r"\b(?:(?:in|on|by|from|since|at)\s+)?(?:when|what|which)\b", re.I)


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


def find(question: str, analysis: QuestionAnalysis, documents: list[Document],
         named: set[str] | dict[str, str]) -> tuple[DatedDocument | None, str]:
    """The dated header that answers ``question``, or ``None`` with why not (``""`` when the question does not
    ask when something was published)."""
    if not asks_publication(question, analysis):
        return None, ""
    doc, why = choose(question, documents, named)
    if doc is None:
        return None, why
    rest = leftover(question, doc)
    if rest:
        return None, f"the question asks about {' '.join(rest)}, which the header does not date"
    front = doc.meta["front"]
    start, end = front["date"]
    return DatedDocument(doc_id=doc.doc_id, unit_id=front["unit"], title=doc.title, date=str(doc.meta["date"]),
                         label=str(front.get("label") or doc.doc_id), start=int(start), end=int(end), why=why), ""
