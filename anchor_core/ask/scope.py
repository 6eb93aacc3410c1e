"""Which document a question asks within, when the corpus holds several and the question names one.

"How much notice must we give to terminate the Acme agreement?" asks about the Acme agreement; in a corpus that
also holds a Beta agreement with a 90-day notice clause, that clause is not an answer, however close its words are.
A question names a document when it writes

- the document's designation (``RFC 7519``, ``PEP 8``: :func:`~anchor_core.ask.dated.writes_designation` of the
  label the adapter records), of exactly one document; or
- at least :data:`~anchor_core.ask.dated.MIN_TITLE` of its title (each word weighed by how few titles write it,
  an acronym for the words it abbreviates: "the JWT spec" writes JSON Web Token), clearly more of it than of any
  other title, **and** a word of that title that no other title writes ("Acme", "pypdf", "JWT"), of which most of
  the corpus's passages that write it are that document's (:data:`MIN_SHARE`). A title word that other documents
  use names nothing: "FSRA" is the only word of the title "FSRA Confidentiality Policy" that no other title writes,
  but every rulebook of its corpus names the regulator; "releases" in "Doing Python Releases 101" is every release
  schedule's word.

The evidence is then kept to that document and the documents it is linked to by a resolved reference, in either
direction (the JWE spec cites the JWA spec for its algorithms, so a question about JWE that JWA answers keeps its
answer): the retrieved passages of other documents leave, the others keep their ranks, and only when none is left
is the search run again inside those documents (``anchor_core.ask.pipeline``). The single-document corpora (the AI
Act, the GDPR) are never narrowed; what it changes on the others is in ``eval/README.md`` (session 48).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from anchor_core.ask.dated import MIN_TITLE, TITLE_MARGIN, _expanded, _title_words, title_covers, writes_designation
from anchor_core.ask.gate import content_terms
from anchor_core.models import Document, Filters
from anchor_core.stores.base import Store

MIN_SHARE = 0.5
"""A title word names its document when at least this share (most) of the corpus's passages that write it are that
document's: a majority, not a fitted value."""


@dataclass(frozen=True)
class Scope:
    doc_id: str
    title: str
    why: str
    """How the question names it: ``names RFC 7519`` or ``writes 'Acme' of its title``."""


def asked_document(question: str, documents: Sequence[Document],
                   share: Callable[[str, str], float]) -> tuple[Scope | None, str]:
    """The one document of several that ``question`` names, or ``None`` with why not (``""`` when the corpus
    holds one document). ``share(word, doc_id)``: the share of the corpus's passages that write ``word`` that
    are ``doc_id``'s (:func:`passage_share`)."""
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
    said = _expanded(said, doc.title)
    own = [w for w in sorted(titles[best]) if df[w] == 1 and w in said]
    if not own:
        return None, f"the question writes no word of {doc.title} that only its title writes"
    own = [w for w in own if share(w, doc.doc_id) >= MIN_SHARE]
    if not own:
        return None, f"the words the question writes of {doc.title} are written across the corpus"
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
