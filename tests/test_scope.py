"""A question that names one document of several is answered from that document (and those linked to it), never
from a look-alike clause of another document."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchor_core import workspace
from anchor_core.ask import AskSettings, ask
from anchor_core.ask.scope import asked_document, linked_documents, passage_share
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document
from anchor_core.named import use_adapters
from anchor_core.stores.sqlite import SQLiteStore
from ingest import get_adapter
from ingest.rfc import RfcAdapter

DATA = Path(__file__).resolve().parent / "data"

ACME = b"""# Acme Services Agreement

## 1. Services

Acme Ltd shall provide the hosting services described in Schedule 1 to the Customer.

## 2. Fees

The Customer shall pay the fees set out in Schedule 2 within 30 days of the date of each invoice.

## 3. Termination

Either party may terminate this Agreement for material breach if the breach is not remedied after written notice.
"""

BETA = b"""# Beta Supply Agreement

## 1. Supply

Beta GmbH shall supply the products listed in the Order Form to the Buyer.

## 2. Price and payment

The Buyer shall pay each invoice within 45 days of receipt.

## 3. Termination

Either party may terminate this Agreement for convenience by giving the other party 90 days' written notice.
"""


def doc(doc_id: str, title: str, label: str = "") -> Document:
    return Document(doc_id=doc_id, title=title, meta={"front": {"label": label}} if label else {})


RFCS = [doc("rfc-7515", "JSON Web Signature (JWS)", "RFC 7515"),
        doc("rfc-7516", "JSON Web Encryption (JWE)", "RFC 7516"),
        doc("rfc-7519", "JSON Web Token (JWT)", "RFC 7519"),
        doc("rfc-6749", "The OAuth 2.0 Authorization Framework", "RFC 6749")]
PEPS = [doc("pep-101", "Doing Python Releases 101"), doc("pep-494", "Python 3.6 Release Schedule"),
        doc("pep-8", "Style Guide for Python Code")]


# the share of the corpus's passages writing a word that are the titled document's: most, except for words
# every document of these corpora writes (the regulator, "releases", "schedule")
SHARES = {"fsra": 0.02, "policy": 0.05, "releases": 0.05, "release": 0.1, "schedule": 0.1, "code": 0.05,
          "style": 0.3}


def share(word: str, doc_id: str) -> float:
    return SHARES.get(word, 0.9)


@pytest.mark.parametrize("question, expected", [
    ("Which claims does RFC 7519 register?", "rfc-7519"),                        # its designation
    ("Our gateway validates tokens per the JWT spec. Which claims are registered?", "rfc-7519"),  # an acronym
    ("What does the Style Guide for Python Code say about imports?", "pep-8"),    # "guide": only its title's
    ("what does the style guide for python code say about imports?", "pep-8"),    # lower case alike
    # every release schedule writes "schedule", and a version is no title word
    ("What did the Python 3.6 release schedule plan for the first beta?", None),
])
def test_a_document_is_named_by_designation_acronym_or_a_word_only_its_title_writes(question, expected):
    docs = RFCS if "RFC" in question or "JWT" in question else PEPS
    got, why = asked_document(question, docs, share)
    assert (got.doc_id if got else None) == expected, why


@pytest.mark.parametrize("question", [
    # words only one title writes, that most documents use
    "Who managed the releases of Python 3.6?",
    "What style should code follow for imports?",
    # two documents named
    "Does RFC 7515 or RFC 7516 define the alg header?",
])
def test_no_document_is_named(question):
    got, why = asked_document(question, RFCS if "RFC" in question else PEPS, share)
    assert got is None and why


def test_a_title_word_the_corpus_writes_everywhere_names_no_document():
    docs = [doc("adgm-23", "FSRA Confidentiality Policy"), doc("adgm-13", "Prudential Rules (PRU)"),
            doc("adgm-11", "Market Rules (MKT)")]
    q = "What minimum provisions does the FSRA require for each category of problem credit under its policy?"
    # the regulator's name is written in every rulebook: most of its passages are other documents'
    got, why = asked_document(q, docs, share)
    assert got is None and "written across the corpus" in why
    got, _ = asked_document(q, docs, lambda word, doc_id: 0.9)
    assert got is not None and got.doc_id == "adgm-23"


def test_a_corpus_of_one_document_is_never_narrowed():
    assert asked_document("What does the JWT spec say?", RFCS[2:3], share) == (None, "")


@pytest.fixture()
def contracts(tmp_path):
    store = SQLiteStore(tmp_path / "a.db")
    emb = HashEmbedder()
    workspace.upload_files(store, emb, [("acme-services-agreement.md", ACME), ("beta-supply-agreement.md", BETA)],
                           corpus="contracts")
    return store, emb


def test_a_clause_of_another_contract_does_not_answer(contracts):
    store, emb = contracts
    rep = ask("How much notice must we give to terminate the Acme agreement for convenience?", store=store,
              embedder=emb, corpus="contracts", settings=AskSettings())
    assert rep.refused
    assert "searched only Acme Services Agreement" in rep.reason
    assert all(s.unit_id.startswith("acme") for s in rep.sources)
    assert any(e.stage == "retrieve" and "names Acme Services Agreement" in e.message for e in rep.trace)
    assert any("writes 'acme'" in n for n in rep.notes)


def test_the_named_contract_answers_and_an_unnamed_question_searches_both(contracts):
    store, emb = contracts
    rep = ask("Within how many days must invoices be paid under the Beta agreement?", store=store, embedder=emb,
              corpus="contracts", settings=AskSettings())
    assert not rep.refused
    assert {c.anchor.unit_id.split("-")[0] for c in rep.claims if c.anchor} == {"beta"}
    assert "45 days" in rep.answer and "30 days" not in rep.answer
    rep = ask("Within how many days must invoices be paid?", store=store, embedder=emb, corpus="contracts",
              settings=AskSettings())
    assert {s.unit_id.split("-")[0] for s in rep.sources} == {"acme", "beta"}
    assert not any("searched only" in n for n in rep.notes)
    # sources from two documents: a bare clause number says which document it is, in the sources and the answer
    assert all(s.label.startswith(("acme-services-agreement.md §", "beta-supply-agreement.md §")) for s in rep.sources)
    assert any(line.startswith(("acme-services-agreement.md §", "beta-supply-agreement.md §"))
               for line in rep.answer.splitlines())


def test_a_document_the_viewer_may_not_read_is_never_named(tmp_path):
    store = SQLiteStore(tmp_path / "g.db")
    emb = HashEmbedder()
    workspace.upload_files(store, emb, [("acme-services-agreement.md", ACME)], corpus="contracts", groups=["legal"])
    workspace.upload_files(store, emb, [("beta-supply-agreement.md", BETA)], corpus="contracts")
    q = "How much notice must we give to terminate the Acme agreement for convenience?"
    public = ask(q, store=store, embedder=emb, corpus="contracts", settings=AskSettings(groups=[]))
    shown = " ".join([public.reason, public.answer, *public.notes, *(e.message for e in public.trace)])
    assert "Acme Services Agreement" not in shown and "searched only" not in shown
    assert all(src.unit_id.startswith("beta") for src in public.sources)
    legal = ask(q, store=store, embedder=emb, corpus="contracts", settings=AskSettings(groups=["legal"]))
    assert any("searched only Acme Services Agreement" in n for n in legal.notes)


def test_passage_share_is_the_named_document_s_part_of_the_passages_that_write_a_word(contracts):
    store, _ = contracts
    acme = next(d.doc_id for d in store.documents("contracts") if d.title == "Acme Services Agreement")
    assert passage_share(store, "contracts", "acme", acme) == 1.0
    assert 0.0 < passage_share(store, "contracts", "terminate", acme) < 1.0  # both contracts' §3
    assert passage_share(store, "contracts", "zzzz", acme) == 0.0


def test_linked_documents_follow_resolved_references_both_ways(contracts, tmp_path):
    store, _ = contracts
    docs = [d.doc_id for d in store.documents("contracts")]
    assert all(linked_documents(store, "contracts", d) == [] for d in docs)  # the two contracts cite nothing
    # RFC 6750 cites RFC 6749 (forward from 6750, backward from 6749)
    use_adapters(get_adapter)
    try:
        rfc = SQLiteStore(tmp_path / "rfc.db")
        ingest(rfc, HashEmbedder(), RfcAdapter().load(DATA / "rfc"), corpus="rfc", adapter="rfc")
    finally:
        use_adapters(None)
    assert linked_documents(rfc, "rfc", "rfc-6750") == ["rfc-6749"]
    assert linked_documents(rfc, "rfc", "rfc-6749") == ["rfc-6750"]
    assert linked_documents(rfc, "rfc", "rfc-0000") == []
