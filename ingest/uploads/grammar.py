"""References written in a question over a corpus of uploaded documents ("Article 50", "Annex III", "clause 12 of
the Acme agreement"), read with the grammar their documents were read with (:mod:`ingest.uploads.refs`).

- An EU act read by its own grammar (:mod:`ingest.uploads.euact`) is asked about as the bundled acts are: "Article
  6(2)", "Annex III", "Chapter II" (its articles), when the corpus holds one such act; when it holds several, an
  article number names no single act and is not placed.
- Chapters, sections, parts and titles of the one other document that has them ("Chapter II", "Part 2") reach
  their units.
- Clause and section numbers of the other documents are read as those documents' own references are (their
  structural grammar; a defined term or a document's title in a question is the scope's business,
  :mod:`anchor_core.ask.scope`, not a named unit): "clause 12" is the only document's clause 12 when the corpus
  holds one document, and "clause 4 of the Data Processing Addendum" is that document's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from anchor_core.models import ParsedCorpus, Reference
from ingest.base import QUESTION_UNIT, capitalise_keywords, question_unit
from ingest.containers import members
from ingest.uploads.refs import Catalogue, act_references, chapter_references, structural_references

_ACT_KEYWORDS = r"articles?|annex(?:es)?|chapters?|sections?|recitals?"


class UploadsGrammar:
    """The question-side grammar of corpora that ``anchor ingest`` (no adapter) or the dashboard's upload built."""

    name = "uploads"

    def __init__(self) -> None:
        self._read: tuple[ParsedCorpus, _Reading] | None = None

    def references_in(self, text: str, corpus: ParsedCorpus) -> list[Reference]:
        r = self._reading(corpus)
        found: list[Reference] = []
        if r.act:  # the one act of the corpus, read with the EUR-Lex grammar
            probe = capitalise_keywords(text, _ACT_KEYWORDS)
            q = question_unit(probe).model_copy(update={"doc_id": r.act})
            found += act_references(q, r.members)
        taken = [(x.start, x.end) for x in found]
        if r.others is not None:
            q = question_unit(text).model_copy(update={"doc_id": r.only})
            found += [x for x in structural_references(q, r.others) if not any(a <= x.start < b for a, b in taken)]
            if r.chaptered:  # "What does Chapter II cover?" over the one document with chapters
                probe = capitalise_keywords(text, r"chapters?|sections?|parts?|titles?")
                found += chapter_references(probe, r.chaptered, QUESTION_UNIT, [], r.members)
        return [x.model_copy(update={"raw": text[x.start:x.end]}) for x in found]

    def _reading(self, corpus: ParsedCorpus) -> _Reading:
        """What every question over ``corpus`` is read against, made once per stored version of it (the caller,
        :mod:`anchor_core.named`, keeps one :class:`ParsedCorpus` per version): not once per question."""
        if self._read is not None and self._read[0] is corpus:
            return self._read[1]
        acts = {u.doc_id for u in corpus.units if u.meta.get("grammar") == "eurlex"}
        others = [d for d in corpus.documents if d.doc_id not in acts]
        chaptered = {u.doc_id for u in corpus.units if u.containers and u.doc_id not in acts}
        held: dict[str, dict[str, list[str]]] = {}
        for doc_id in acts | chaptered:
            held[doc_id] = members(u for u in corpus.units if u.doc_id == doc_id)
        reading = _Reading(
            act=next(iter(acts)) if len(acts) == 1 else "",
            others=Catalogue(others, [u for u in corpus.units if u.doc_id not in acts]) if others else None,
            only=others[0].doc_id if others and len(corpus.documents) == 1 else "",
            chaptered=next(iter(chaptered)) if len(chaptered) == 1 else "",
            members=lambda doc_id: held.get(doc_id, {}))
        self._read = (corpus, reading)
        return reading


@dataclass
class _Reading:
    """A corpus as its questions are read: ``act``, its one EU act (``""``: none, or several); ``others``, where
    the other documents' clauses are looked up (``None``: there are none); ``only``, the single document of a
    one-document corpus; ``chaptered``, the one other document with chapters; ``members``, per document, its
    containers' units."""

    act: str
    others: Catalogue | None
    only: str
    chaptered: str
    members: Callable[[str], dict[str, list[str]]]
