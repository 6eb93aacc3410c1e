"""A question about when a document of the corpus was published, or who wrote it, is answered from its header."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchor_core.ask import AskSettings, ask
from anchor_core.ask.dated import asks_publication, find
from anchor_core.ask.question import analyse
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document
from anchor_core.named import use_adapters
from anchor_core.stores.sqlite import SQLiteStore
from ingest import get_adapter
from ingest.rfc import RfcAdapter

DATA = Path(__file__).resolve().parent / "data" / "rfc"


def doc(number: int, title: str, date: str, authors: tuple[str, ...] = ("A. Author",)) -> Document:
    return Document(doc_id=f"rfc-{number}", title=title, meta={
        "date": date, "front": {"unit": f"rfc-{number}", "label": f"RFC {number}", "date": [10, 10 + len(date)],
                                "authors": [[30 + 20 * i, 30 + 20 * i + len(a)] for i, a in enumerate(authors)],
                                "author_names": list(authors)}})


DOCS = [doc(6749, "The OAuth 2.0 Authorization Framework", "October 2012"),
        doc(6750, "The OAuth 2.0 Authorization Framework: Bearer Token Usage", "October 2012"),
        doc(7009, "OAuth 2.0 Token Revocation", "August 2013", ("T. Lodderstedt, Ed.", "S. Dronia", "M. Scurtescu")),
        doc(7636, "Proof Key for Code Exchange by OAuth Public Clients", "September 2015")]


def found(question: str, named: frozenset[str] = frozenset()):
    return find(question, analyse(question), DOCS, set(named))


@pytest.mark.parametrize("question, expected", [
    # a document named by its number, with a situation and a purpose told before the question
    ("Our guide cites RFC 7009. For the bibliography, in what month and year was that RFC published?", "rfc-7009"),
    # a title written in the question's words, and an acronym standing for title words
    ("When was the OAuth 2.0 token revocation spec published?", "rfc-7009"),
    ("Our app uses PKCE. In what month and year was the PKCE RFC published?", "rfc-7636"),
    ("In which year was the OAuth 2.0 Authorization Framework published?", "rfc-6749"),
])
def test_the_asked_document_is_found(question, expected):
    named = frozenset({"rfc-7009"}) if "RFC 7009" in question else frozenset()
    got, why = found(question, named)
    assert got is not None, why
    assert got.doc_id == expected and got.asks == "date"
    assert got.value == dict((d.doc_id, d.meta["date"]) for d in DOCS)[expected] and len(got.quotes) == 1


def test_of_several_documents_named_the_asking_clause_s_is_asked_about():
    q = "Our guide cites RFC 7009, which builds on RFC 6749. In what month and year was RFC 7009 published?"
    got, _ = find(q, analyse(q), DOCS, {"rfc-7009": "RFC 7009", "rfc-6749": "RFC 6749"})
    assert got is not None and got.doc_id == "rfc-7009"
    # without the references as written, two named documents are two candidates
    got, why = find(q, analyse(q), DOCS, {"rfc-7009", "rfc-6749"})
    assert got is None and "several" in why


@pytest.mark.parametrize("question, why", [
    # another version of the document: the header dates the RFC, not its first draft
    ("When was the very first version (draft 00) of RFC 7009 published?", "first version draft"),
    ("When was the errata for RFC 7009 released?", "errata"),
    # a document the corpus does not hold, though it is cited there
    ("The threat model cites X-Frame-Options. In what month and year was X-Frame-Options published as an RFC?",
     "title"),
    # a question between two titles: the closer one leaves a word of the other unexplained
    ("When was the OAuth 2.0 Authorization Framework bearer spec published?", "bearer"),
    ("When was the OAuth 2.0 spec published?", "title"),
    # the named document gives the date of another one, which the question points back at: its header dates
    # only itself
    ("Our client follows the token type registry that RFC 7009 cites as a separate spec. What publication date "
     "does RFC 7009 give for that spec?", "points back at another document"),
    # the asking clause names, by its designation, a work the document cites: the header dates the citing
    # document, not the cited one (round 26 answered May 2015, RFC 7519's date, for RFC 3339's July 2002)
    ("Our client follows the token revocation spec, which points to RFC 6819 for its threat model. What "
     "publication date does the OAuth 2.0 token revocation spec give for RFC 6819?", "asks about RFC 6819"),
    ("What publication date does RFC 7009 give for RFC 2119?", "asks about RFC 2119"),
    ("Who wrote RFC 6819, which the OAuth 2.0 Token Revocation RFC cites?", "asks about RFC 6819"),
])
def test_no_header_answers_a_question_about_something_else(question, why):
    got, reason = found(question, frozenset({"rfc-7009"}) if "RFC 7009" in question else frozenset())
    assert got is None and why in reason


@pytest.mark.parametrize("question", [
    "Who wrote RFC 7009?",
    "We cite the OAuth 2.0 token revocation spec. Who are its authors?",
    "Who are the authors of the OAuth 2.0 Token Revocation RFC?",
])
def test_who_wrote_a_document_is_answered_by_its_author_cells(question):
    got, why = found(question, frozenset({"rfc-7009"}) if "RFC 7009" in question else frozenset())
    assert got is not None, why
    assert got.asks == "authors" and got.value == "T. Lodderstedt, Ed.; S. Dronia; M. Scurtescu"
    assert len(got.quotes) == 3


@pytest.mark.parametrize("question, why", [
    ("Who drafted the security considerations of RFC 7009?", ""),           # not a question for the authors
    ("Who wrote the first draft of RFC 7009?", "first draft"),
    ("Who must write the revocation report for RFC 7009?", ""),               # a duty, not authorship
])
def test_authorship_of_something_else_is_left_to_the_gate(question, why):
    got, reason = found(question, frozenset({"rfc-7009"}))
    assert got is None and why in reason


def test_a_duty_to_publish_is_no_question_about_a_publication():
    for q in ("By when must the authorization server publish its metadata?",
              "How long must the token revocation spec be published?",
              "Who published the OAuth 2.0 token revocation spec?"):
        assert not asks_publication(q, analyse(q))
        assert find(q, analyse(q), DOCS, set()) == (None, "")


@pytest.fixture(scope="module")
def rfc_store(tmp_path_factory):
    use_adapters(get_adapter)
    store = SQLiteStore(tmp_path_factory.mktemp("rfc") / "a.db")
    ingest(store, HashEmbedder(), RfcAdapter().load(DATA), corpus="rfc", adapter="rfc")
    yield store
    use_adapters(None)


def test_ask_quotes_the_header_date_with_exact_offsets(rfc_store):
    rep = ask("Our API cites RFC 6750. For our standards register, in what month and year was that RFC published?",
              store=rfc_store, embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert not rep.refused and len(rep.claims) == 1
    c = rep.claims[0]
    assert c.supported and c.verdict == "supported" and c.anchor is not None
    assert (c.anchor.unit_id, c.anchor.quote) == ("rfc-6750", "October 2012")
    text = rfc_store.get_units("rfc", ["rfc-6750"])["rfc-6750"].text
    assert text[c.anchor.start:c.anchor.end] == "October 2012"
    # the quote is the header's date cell, before the abstract
    assert c.anchor.end < text.index("\nAbstract\n")
    assert rep.sources[c.anchor.source - 1].unit_id == "rfc-6750"
    assert rep.gate is not None and rep.gate.signals == {"header": "RFC 6750", "asks": "date"}
    assert "header gives the date" in rep.gate.reason
    assert rep.relevance is not None and rep.relevance.addressed and rep.relevance.claims == [True]
    assert rep.assessment().state == "verified"
    assert "RFC 6750" in rep.answer and "“October 2012” [1]" in rep.answer
    assert any(e.stage == "write" and "header of RFC 6750" in e.message for e in rep.trace)


def test_ask_quotes_the_author_cells(rfc_store):
    rep = ask("Who wrote RFC 6750?", store=rfc_store, embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert not rep.refused and [c.anchor.quote for c in rep.claims if c.anchor] == ["M. Jones", "D. Hardt"]
    text = rfc_store.get_units("rfc", ["rfc-6750"])["rfc-6750"].text
    assert all(c.supported and text[c.anchor.start:c.anchor.end] == c.text for c in rep.claims if c.anchor)
    assert rep.gate is not None and rep.gate.signals == {"header": "RFC 6750", "asks": "authors"}
    assert rep.relevance is not None and rep.relevance.addressed and rep.relevance.kind == "person_or_body"
    assert rep.assessment().state == "verified"


def test_ask_says_why_a_header_did_not_answer(rfc_store):
    rep = ask("When was the very first version (draft 00) of the OAuth bearer token usage spec published?",
              store=rfc_store, embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert any(e.stage == "gate" and e.message.startswith("not answered from a document header") and "draft" in
               e.message for e in rep.trace)
    assert not (rep.gate and rep.gate.signals.get("header"))
