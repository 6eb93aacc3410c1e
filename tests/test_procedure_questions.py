"""A question for the procedure of an act ("What is the procedure for applying to be appointed?") is refused when no
retrieved sentence about its topic writes the act: a passage that says who is appointed says nothing of how to
apply (``anchor_core.ask.answerable.asked_action``)."""

import pytest

from anchor_core.ask import AskSettings, ask
from anchor_core.ask.answerable import asked_action
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, ParsedCorpus
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import unit


@pytest.mark.parametrize("question, act", [
    ("A lawyer would like to sit on the Panel. What is the procedure for applying to be appointed?", "applying"),
    ("What procedure does the release process prescribe for revoking it and re-signing the releases?", "revoking"),
    ("What steps must we take to register the system?", "register"),
    ("What's the process to appeal a refusal?", "appeal"),
    # after a verb that names no act of its own, the verb after "to" or the participle that ends the object (not
    # one that qualifies a noun, "a recommended name")
    ("What's the procedure for getting a recommended name added to the table?", "added"),
    ("What procedure do we follow to ask for it not to be applied?", "applied"),
    ("What is the procedure for asking the FSRA to add it to that list?", "add"),
    ("What is the step-by-step procedure for getting authorised to do that?", "authorised"),
    ("What's the procedure for getting a mode number assigned to it?", "assigned"),
    # "for" someone "to" act, ten words from the noun at most; a modal "have to" is no act
    ("What procedure does OAuth 2.0 define for an authorization server to accept such clients?", "accept"),
    ("What procedure does the report have to go through before it is published?", ""),
    # the asked procedure named by a noun of action, not an adjective, nor a procedure only mentioned
    ("What selection procedure does the Commission follow when it designates a structure?", "selection"),
    ("What certification process must it pass before we can call it compliant?", "certification"),
    ("What formal procedure does the AI Act lay down for making that request?", ""),
    ("Under the examination procedure, what majority of the committee is needed?", ""),
    # a verb that names no act of its own, and no act at all
    ("What procedure do we follow to get log-in access to the secure section?", ""),
    ("What process applies to the notification?", ""),
    ("How must the server treat that app and its secret?", ""),
    # a name or an adverb after "to" is no act
    ("On which day did CPython's development process switch over to GitHub?", ""),
    ("How should the process be structured to effectively mitigate risks?", ""),
    ("What is the procedure for becoming a notified body?", ""),
])
def test_the_act_a_procedure_question_asks_about(question, act):
    assert asked_action(question) == act


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "p.db")
    units = [unit("art-5", "1. The members of the Appeals Panel shall be appointed by the Board.\n2. Each member of "
                           "the Appeals Panel shall have relevant qualifications and experience.",
                  heading="Article 5", title="Appeals Panel"),
             unit("art-9", "1. A person may appeal a decision of the Regulator to the Appeals Panel.\n2. An appeal "
                           "shall be lodged in writing within 30 days of the decision, with the grounds of appeal.",
                  heading="Article 9", title="Appeals")]
    ingest(s, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc", title="Panel Rules")], units=units),
           corpus="p", adapter="test")
    return s


def run(store, q):
    return ask(q, store=store, embedder=HashEmbedder(), corpus="p", settings=AskSettings(k=3, hops=0))


def test_a_procedure_for_an_act_the_passages_never_write_is_refused_with_the_reason(store):
    rep = run(store, "A lawyer at our firm would like to sit on the Appeals Panel. What is the procedure for applying "
                     "to be appointed as a member of the Appeals Panel?")
    assert rep.refused and rep.reason_code == "not_answered"
    assert "give no procedure for applying to be appointed as a member of the Appeals Panel" in rep.reason
    assert "writes “applying” or a word of its family" in rep.reason
    assert rep.gate is not None and rep.gate.signals.get("action_found") is False


def test_a_procedure_for_an_act_the_passages_write_is_left_to_the_usual_test(store):
    rep = run(store, "We disagree with a decision of the Regulator. What is the procedure for appealing the decision "
                     "to the Appeals Panel?")
    assert rep.gate is not None and rep.gate.signals.get("action_found") is True
    assert "give no procedure" not in rep.reason


def test_the_reason_names_the_act_as_the_question_asks_for_it(store):
    rep = run(store, "A lawyer at our firm would like to sit on the Appeals Panel. What is the procedure for getting "
                     "our partner added to the Appeals Panel as a member?")
    assert rep.refused and rep.gate is not None and rep.gate.signals.get("action") == "added"
    assert "give no procedure for getting our partner added to the Appeals Panel as a member:" in rep.reason
