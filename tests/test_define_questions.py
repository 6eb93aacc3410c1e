"""A question that asks how the sources define a term is answered by the sentence that defines it, or refused
with the reason when no retrieved passage does (the sources only use the term)."""

import pytest

from anchor_core import definitions
from anchor_core.ask import AskSettings, ask
from anchor_core.ask.question import predict_kind
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, ParsedCorpus
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import unit


@pytest.mark.parametrize("question, term", [
    ("We host a chatbot. How does the AI Act define a 'deep fake'?", "deep fake"),
    ("How does the GDPR itself define the 'consent' of the data subject?", "consent"),
    ("How do the FSRA's Islamic finance rules define tawarruq?", "tawarruq"),
    ("How is a personal data breach defined under the GDPR?", "personal data breach"),
    ("What is the definition of a large language model in the Act?", "large language model"),
    ("How does the GDPR define who counts as the 'holder of parental responsibility'?",
     "holder of parental responsibility"),
    # the asking sentence decides: a situation told before it is no definition question
    ("Our policy defines 'staff' broadly. How long must we keep staff records?", None),
    # "define" meaning "specify", and a question about what something means rather than its definition
    ("Which key management modes does the JWE spec define for the CEK?", None),
    ("How many serialization formats does the JWS spec define in total?", None),
    ("What does a rowcount of -1 mean?", None),
    # what "that term" points at is not read: no rule applies
    ("Our desk was accused of an 'abusive squeeze'. How does the FSRA define that term?", None),
    # nor a pronoun: "them" is no term the sources could define
    ("Our lawyers keep mentioning 'binding corporate rules'. How does the GDPR define them?", None),
    ("We sell 'smart contracts'. How do the rules define those terms?", None),
    # the asker defines something: a procedure, not the sources' definition
    ("How do we define our scopes when registering a client?", None),
])
def test_the_term_a_question_asks_the_sources_to_define(question, term):
    assert definitions.asked_to_define(question) == term


def test_a_definition_question_is_of_the_definition_kind():
    assert predict_kind("How does the AI Act define a 'deep fake'?") == "definition"
    assert predict_kind("How is a deep fake defined?") == "definition"
    assert predict_kind("For our capital model, how does the FSRA define a 'property catastrophe'?") == "definition"
    assert predict_kind("How do we define our scopes?") == "procedure"


@pytest.mark.parametrize("sentence, term", [
    ("(60) ‘deep fake’ means AI-generated or manipulated image, audio or video content;", "deep fake"),
    ("(11) ‘consent’ of the data subject means any freely given indication of the data subject's wishes;", "consent"),
    ("Source of Wealth Means how the customer's global wealth was acquired.", "source of wealth"),
    ('"native app"  An app or application that is installed by the user to their device.', "native app"),
    ("Content Encryption Key (CEK)\n   A symmetric key for the AEAD algorithm.", "Content Encryption Key"),
    ("A handle token is a reference to some internal data structure within the authorization server.",
     "handle token"),
    ("In the Regulator's view, an \"attempt to deal\" covers circumstances where an Insider takes steps.",
     "attempt to deal"),
])
def test_sentences_that_define_the_term(sentence, term):
    assert definitions.defines(sentence, term)


@pytest.mark.parametrize("sentence, term", [
    # the term used, not defined
    ("Any affected person subject to a decision taken by the deployer has the right to an explanation.",
     "affected person"),
    ("Taking into account the state of the art, the costs of implementation and the risk, the controller shall act.",
     "state of the art"),
    ("The Commission shall specify the detailed elements of the real-world testing plan.", "real-world testing plan"),
    # another term that shares a word
    ("(4) ‘deployer’ means a natural or legal person using an AI system.", "prospective deployer"),
    # a wrapped line of running text that happens to end after the term is no glossary entry
    ("The client then sends the native app\n   redirect request to the server.", "native app"),
])
def test_sentences_that_only_use_the_term(sentence, term):
    assert not definitions.defines(sentence, term)


TOC = "Table of Contents\n   A.1.2.  Content Encryption Key (CEK)  . . . . . . . . . 32\n"
TERMS = ("2.  Terminology\n\nJWE Ciphertext\n   Ciphertext value resulting from authenticated encryption.\n\n"
         "Content Encryption Key (CEK)\n   A symmetric key for the AEAD algorithm used to encrypt the\n   plaintext.\n")
USES = ("5.1.  Message Encryption\n\nGenerate a random Content Encryption Key (CEK) and encrypt it with the\n"
        "   recipient's key.  The key wrapping mode protects the CEK in transit.")


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "d.db")
    units = [unit("spec-toc", TOC, heading="Contents"), unit("spec-2", TERMS, heading="Terminology"),
             unit("spec-5", USES, heading="Message Encryption"),
             unit("art-3", "(1) ‘widget’ means a device that turns.\n(2) ‘operator’ means a person who runs a widget.",
                  heading="Article 3", title="Definitions"),
             unit("art-26", "1. Operators shall keep logs for six months.\n2. The logs shall be tamper-proof and "
                            "operators shall review the logs every month.", heading="Article 26", title="Logs")]
    ingest(s, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc", title="Widget Spec")], units=units),
           corpus="w", adapter="test")
    return s


def test_a_glossary_entry_is_found_by_its_layout_not_a_table_of_contents_line(store):
    found = definitions.entries_of("content encryption key", store, "w")
    assert [(d.unit_id, d.term) for d in found] == [("spec-2", "Content Encryption Key")]
    text = store.get_units("w", ["spec-2"])["spec-2"].text
    assert text[found[0].start:].startswith("Content Encryption Key (CEK)\n   A symmetric key")


def test_a_define_question_fetches_the_glossary_entry(store):
    q = "New developers mix up the keys. How does the spec define the Content Encryption Key?"
    assert [(t, [d.unit_id for d in ds]) for t, _, ds in definitions.asked(q, store=store, corpus="w")] == [
        ("Content Encryption Key", ["spec-2"])]
    r = retrieve(q, store=store, embedder=HashEmbedder(), corpus="w", settings=RetrievalSettings(k=2, hops=0))
    assert any(h.unit_id == "spec-2" and h.named == "definition of ‘Content Encryption Key’" for h in r.hits)
    # a question that only quotes the term does not search glossary layouts (only "‘term’ means" definitions)
    assert definitions.asked("Where is the 'Content Encryption Key' generated?", store=store, corpus="w") == []


def run(store, q):
    return ask(q, store=store, embedder=HashEmbedder(), corpus="w", settings=AskSettings(k=3, hops=0))


def test_a_defined_term_is_answered_with_its_definition(store):
    rep = run(store, "Our team runs widgets for clients. How do the rules define an 'operator'?")
    assert not rep.refused
    first = next(c for c in rep.claims if c.anchor is not None)
    assert "‘operator’ means a person who runs a widget" in first.anchor.quote
    assert rep.gate is not None and rep.gate.signals.get("defined") is True


def test_a_term_the_sources_only_use_is_refused_with_the_reason(store):
    rep = run(store, "Our auditors ask about our record keeping. How do the rules define 'logs'?")
    assert rep.refused
    assert "use “logs” but none defines it" in rep.reason
    assert rep.gate is not None and rep.gate.signals.get("defined") is False and rep.gate.signals["term"] == "logs"
    # a term no retrieved passage writes at all is said so
    rep = run(store, "How do the rules define a 'gadget'?")
    assert rep.refused and "no retrieved passage defines “gadget” or uses the term" in rep.reason
    # the same question asked as what the term means is left to the usual test
    assert run(store, "What must operators do with the logs?").gate.signals.get("defined") is None
