"""Which document a question asks within, when the corpus holds several and the question names one.

"How much notice must we give to terminate the Acme agreement?" asks about the Acme agreement; in a corpus that
also holds a Beta agreement with a 90-day notice clause, that clause is not an answer, however close its words are.
A question names a document when it writes

- the document's designation (``RFC 7519``, ``PEP 8``: :func:`~anchor_core.ask.dated.writes_designation` of the
  label the adapter records), of exactly one document; or
- at least :data:`~anchor_core.ask.dated.MIN_TITLE` of its title (each word weighed by how few titles write it,
  an acronym for the words it abbreviates), clearly more of it than of any other title, **and** a word of that
  title that no other title writes, written as a name: capitalised inside a sentence ("the Acme agreement"), an
  acronym ("the JWT spec", expanded to JSON Web Token) or holding a digit ("Python 3.6"). A title word the
  question uses as an ordinary word ("who managed the releases of ...") names nothing.

and most of the corpus's passages that write that word are the document's (:data:`MIN_SHARE`): "FSRA" is the
only word of the title "FSRA Confidentiality Policy" that no other title writes, but every rulebook of its corpus
names the regulator.

The evidence is then kept to that document and the documents it is linked to by a resolved reference, in either
direction (the JWE spec cites the JWA spec for its algorithms, so a question about JWE that JWA answers keeps its
answer): the retrieved passages of other documents leave, the others keep their ranks, and only when none is left
is the search run again inside those documents. Measured over the 342 questions of the dev sets and rounds 1-26
(RFCs, PEPs, ADGM) that the rule without the share test names a document for (the single-document corpora are
never narrowed), with and without it (``eval/README.md``, session 48): 4 change, all ADGM.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from anchor_core.ask.dated import (
    MIN_TITLE,
    TITLE_MARGIN,
    _acronyms,
    _expanded,
    _title_words,
    title_covers,
    writes_designation,
)
from anchor_core.ask.gate import content_terms
from anchor_core.models import Document, Filters
from anchor_core.stores.base import Store

MIN_SHARE = 0.5
"""A title word names its document when at least this share (most) of the passages that write it are that
document's: a majority, not a fitted value."""
_TOKEN = re.compile(r"[\w.-]+")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|[(\"“‘'])")


@dataclass(frozen=True)
class Scope:
    doc_id: str
    title: str
    why: str
    """How the question names it: ``names RFC 7519`` or ``writes 'Acme' of its title``."""


def written_names(question: str) -> set[str]:
    """The question's words written as names, lower-cased: capitalised inside a sentence, all capitals (an
    acronym) or holding a digit.

    >>> sorted(written_names("How much notice must we give under the Acme agreement? Which JWT claims apply?"))
    ['acme', 'jwt']
    >>> sorted(written_names("Who managed the releases of Python 3.6?"))
    ['3.6', 'python']
    """
    starts = {m.end() for m in _SENTENCE_START.finditer(question)}
    out = set()
    for m in _TOKEN.finditer(question):
        t = m.group(0).strip(".-")
        if not t:
            continue
        acronym = len(t) > 1 and t.isupper()
        if any(c.isdigit() for c in t) or (t[0].isupper() and (m.start() not in starts or acronym)):
            out.add(t.lower())
    return out


def asked_document(question: str, documents: Sequence[Document],
                   share: Callable[[str, str], float] | None = None) -> tuple[Scope | None, str]:
    """The one document of several that ``question`` names, or ``None`` with why not (``""`` when the corpus
    holds one document). ``share(word, doc_id)``: the share of the corpus's passages that write ``word`` that
    are ``doc_id``'s (:func:`passage_share`); a title word is a name of the document only when most of them are
    ("FSRA" in the title "FSRA Confidentiality Policy" is the regulator every rulebook of its corpus names)."""
    if len(documents) < 2:
        return None, ""
    labelled = [d for d in documents if writes_designation(question, str(d.meta.get("front", {}).get("label", "")))]
    if len(labelled) == 1:
        d = labelled[0]
        return Scope(d.doc_id, d.title, f"names {d.meta['front']['label']}"), ""
    if len(labelled) > 1:
        return None, "the question names several documents"
    titles = [_title_words(d) for d in documents]
    said = set(content_terms(question))
    covers = title_covers(titles, [_expanded(said, d.title) for d in documents])
    ranked = sorted(range(len(documents)), key=lambda i: -covers[i])
    best = ranked[0]
    second = covers[ranked[1]]
    if covers[best] < MIN_TITLE or covers[best] - second < TITLE_MARGIN:
        return None, "the question names no one document"
    doc = documents[best]
    df = Counter(w for t in titles for w in t)
    names = written_names(question)
    named = names | {w for a, ws in _acronyms(doc.title).items() if a in names for w in ws}
    own = sorted(w for w in titles[best] if df[w] == 1 and w in named)
    if not own:
        return None, "the question writes title words of a document but no name that only its title writes"
    if share is not None:
        own = [w for w in own if share(w, doc.doc_id) >= MIN_SHARE]
        if not own:
            return None, f"the name the question writes of {doc.title} is written across the corpus"
    return Scope(doc.doc_id, doc.title, f"writes {', '.join(repr(w) for w in own)} of its title"), ""


def linked_documents(store: Store, corpus: str, doc_id: str) -> list[str]:
    """The documents that ``doc_id``'s units cite, or whose units cite them, by a resolved reference (sorted)."""
    own = store.unit_ids(corpus, [doc_id])
    if not own:
        return []
    ends = {r.dst_unit for r in store.references_from(corpus, own) if r.resolved and r.dst_unit}
    ends |= {r.src_unit for r in store.references_to(corpus, own)}
    ends -= set(own)
    return sorted({u.doc_id for u in store.get_units(corpus, sorted(ends)).values()} - {doc_id})


def passage_share(store: Store, corpus: str, word: str, doc_id: str, filters: Filters | None = None) -> float:
    """The share of the passages (chunks) of ``corpus`` that write ``word`` (the full-text index's matches, at
    most 1,000) that belong to ``doc_id``."""
    found = store.search_bm25(corpus, [word], 1000, filters or Filters())
    if not found:
        return 0.0
    chunks = store.get_chunks(corpus, [c for c, _ in found])
    return sum(ch.doc_id == doc_id for ch in chunks.values()) / max(len(chunks), 1)
