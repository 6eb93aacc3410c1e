"""References written in a question over a corpus of uploaded documents ("Article 50", "Annex III", "clause 12 of
the Acme agreement"), read with the grammar their documents were read with (:mod:`ingest.uploads.refs`).

- An EU act read by its own grammar (:mod:`ingest.uploads.euact`) is asked about as the bundled acts are: "Article
  6(2)", "Annex III", "Chapter II" (its articles), when the corpus holds one such act; when it holds several, an
  article number names no single act and is not placed.
- Chapters and sections of the one other document that has them ("Chapter II") reach their units.
- Clause and section numbers of the other documents are read as those documents' own references are (their
  structural grammar; a defined term or a document's title in a question is the scope's business,
  :mod:`anchor_core.ask.scope`, not a named unit): "clause 12" is the only document's clause 12 when the corpus
  holds one document, and "clause 4 of the Data Processing Addendum" is that document's.
"""

from __future__ import annotations

from anchor_core.models import ParsedCorpus, Reference, Unit
from ingest.base import QUESTION_UNIT, capitalise_keywords, question_unit
from ingest.containers import expand, members
from ingest.eurlex_refs import extract_references
from ingest.uploads.refs import Catalogue, chapter_references, structural_references

_ACT_KEYWORDS = r"articles?|annex(?:es)?|chapters?|sections?|recitals?"


class UploadsGrammar:
    """The question-side grammar of corpora that ``anchor ingest`` (no adapter) or the dashboard's upload built."""

    name = "uploads"

    def references_in(self, text: str, corpus: ParsedCorpus) -> list[Reference]:
        acts: dict[str, list[Unit]] = {}
        for u in corpus.units:
            if u.meta.get("grammar") == "eurlex":
                acts.setdefault(u.doc_id, []).append(u)
        found: list[Reference] = []
        if len(acts) == 1:
            (doc_id, units), = acts.items()
            found += self._act(text, doc_id, units)
        taken = [(r.start, r.end) for r in found]
        others = [d for d in corpus.documents if d.doc_id not in acts]
        if others:
            doc_id = others[0].doc_id if len(corpus.documents) == 1 else ""
            q = question_unit(text).model_copy(update={"doc_id": doc_id})
            cat = Catalogue(others, [u for u in corpus.units if u.doc_id not in acts])
            found += [r for r in structural_references(q, cat) if not any(a <= r.start < b for a, b in taken)]
            chaptered = {u.doc_id for u in corpus.units if u.containers and u.doc_id not in acts}
            if len(chaptered) == 1:  # "What does Chapter II cover?" over the one document with chapters
                probe = capitalise_keywords(text, r"chapters?|sections?")
                found += chapter_references(probe, chaptered.pop(), QUESTION_UNIT, [], cat)
                found = [r.model_copy(update={"raw": text[r.start:r.end]}) for r in found]
        return found

    @staticmethod
    def _act(text: str, doc_id: str, units: list[Unit]) -> list[Reference]:
        """References to the one act of the corpus, read with the EUR-Lex grammar and given its ids."""
        prefix = f"{doc_id}/"
        probe = capitalise_keywords(text, _ACT_KEYWORDS)
        refs = [r.model_copy(update={"raw": text[r.start:r.end], "src_unit": QUESTION_UNIT,
                                     "dst_unit": prefix + r.dst_unit if r.dst_unit else None,
                                     "container": prefix + r.container if r.container else None})
                for r in extract_references(question_unit(probe))]
        return expand(refs, members(units)) if any(r.container for r in refs) else refs
