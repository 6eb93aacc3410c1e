"""Defined terms: a question about a term the corpus defines fetches the defining sentence."""

import pytest

from anchor_core import definitions
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, Filters, ParsedCorpus
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import unit

FILLER = " ".join(f"Sentence {i} on widget makers and their duties under this Regulation." for i in range(40))


@pytest.fixture
def store(tmp_path):
    defs = unit("article-3", "For the purposes of this Regulation, the following definitions apply:\n"
                             f"(1) ‘widget’ means a device that turns. {FILLER}\n"
                             "(2) ‘operator’ means a natural or legal person who runs a widget in the course of a "
                             "professional activity, except where it is run for a personal non-professional activity;\n"
                             "(3) \"maker\" shall mean the person who builds widgets.",
                heading="Article 3", title="Definitions")
    duty = unit("article-26", "1. Operators of widgets shall keep logs for six months.\n"
                              "2. Operators shall inform persons affected by a widget.",
                heading="Article 26", title="Obligations of operators")
    other = unit("article-9", "1. Makers shall test widgets used by companies for their own tools.",
                 heading="Article 9", title="Testing")
    s = SQLiteStore(tmp_path / "d.db")
    ingest(s, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc", title="Widget Act")],
                                           units=[defs, duty, other]), corpus="w", adapter="test")
    return s


def ask(store, q, **kw):
    return retrieve(q, store=store, embedder=HashEmbedder(), corpus="w", settings=RetrievalSettings(**kw))


def test_definitions_are_found_in_straight_and_curly_quotes_with_their_verbs():
    text = "(1) ‘AI system’ means a system; (2) \"maker\" shall mean a person; (3) “Client” has the meaning in Rule 2."
    assert [t for t, _, _ in definitions.find(text)] == ["AI system", "maker", "Client"]
    t, start, end = definitions.find(text)[0]
    assert text[start:end] == "‘AI system’ means"
    # a quoted phrase that is not followed by a defining verb, and an apostrophe, are not definitions
    assert definitions.find("the so-called ‘sandbox’ is new; the makers' duties mean work") == []


@pytest.mark.parametrize("question, terms", [
    ("Does a firm that runs a widget internally count as an 'operator', and what about a hobbyist?", ["operator"]),
    ("What counts as personal data?", ["personal data"]),
    ('What does "processing" mean under this law?', ["processing"]),
    ("Who is a data subject?", ["data subject"]),
    ("What is a provider?", ["provider"]),
    ("How is profiling defined?", ["profiling"]),
])
def test_the_terms_a_question_asks_about(question, terms):
    found = [definitions.norm(t) for t, _ in definitions.question_terms(question)]
    assert all(definitions.norm(t) in found for t in terms)


def test_apostrophes_and_ordinary_questions_name_no_term():
    assert definitions.question_terms("If a shop uses cameras that read customers' moods, must it tell them?") == []
    assert definitions.question_terms("How long must operators keep logs?") == []


def test_a_quoted_defined_term_fetches_its_definition_and_says_so(store):
    q = "Does a company that runs a widget for its own tools count as an 'operator'?"
    r = ask(store, q, k=2, hops=0)
    first = r.hits[0]
    assert first.unit_id == "article-3" and first.named == "definition of ‘operator’"
    # the chunk shown is the one that holds the definition, not the unit's opening
    assert len(store.units_chunks("w", ["article-3"], Filters())["article-3"]) > 1
    assert "‘operator’ means" in first.text
    off = ask(store, q, k=2, hops=0, named=False)
    assert all(not h.named for h in off.hits)


def test_plural_and_case_are_matched_but_a_term_the_corpus_only_uses_is_not(store):
    assert [d[2][0].term for d in definitions.asked("What are Makers?", store=store, corpus="w")] == ["maker"]
    # 'logs' is used, never defined: nothing is fetched, the search decides
    assert definitions.asked("What counts as logs?", store=store, corpus="w") == []
    r = ask(store, "What counts as logs?", k=2, hops=0)
    assert all(not h.named for h in r.hits)


def test_a_question_without_a_term_reads_nothing_from_the_store(store, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the store was read")

    monkeypatch.setattr(definitions, "definitions_of", boom)
    assert definitions.asked("How long must operators keep logs?", store=store, corpus="w") == []


def test_a_term_is_looked_up_through_the_index_not_by_reading_every_unit(store, monkeypatch):
    read: list[str] = []
    get_units = store.get_units

    def spy(corpus, ids):
        read.extend(ids)
        return get_units(corpus, ids)

    monkeypatch.setattr(store, "get_units", spy)
    found = definitions.definitions_of("operator", store, "w")
    assert [(d.term, d.unit_id) for d in found] == [("operator", "article-3")]
    # article-9 holds neither 'operator' nor a defining verb: it is never read
    assert "article-9" not in read


def test_the_index_follows_a_new_version_of_the_corpus(store):
    assert definitions.definitions_of("widget", store, "w")
    ingest(store, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc", title="Widget Act")], units=[
        unit("article-3", "(1) ‘gadget’ means a small device.", heading="Article 3")]), corpus="w", adapter="test")
    assert definitions.definitions_of("gadget", store, "w") and not definitions.definitions_of("widget", store, "w")
    assert set(definitions.defined_terms(store, "w")) == {"gadget"}
