"""A question that gives names as examples of what it asks for ("Which stablecoins, such as USDT or USDC, has the
regulator accepted?") is refused when the corpus writes none of them: sources that list such things would name some
of them (``anchor_core.ask.question.example_names``; ``anchor_core.ask.gate.signals``)."""

import pytest

from anchor_core.ask import AskSettings, ask
from anchor_core.ask.question import asked_examples, example_names
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, ParsedCorpus
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import unit


@pytest.mark.parametrize("question, examples", [
    ("Which named stablecoins, such as USDT or USDC, has the FSRA accepted for trading?", ["USDT", "USDC"]),
    ("Which specific file formats, such as CSV, JSON or XML, does the GDPR name as acceptable?",
     ["CSV", "JSON", "XML"]),
    ("Which recognised ethical standards does the GDPR name, for example the Declaration of Helsinki?",
     ["Declaration of Helsinki"]),
    ("Which security measures does the GDPR mention by name, for example encryption?", ["encryption"]),
    ("Which body, such as a research ethics committee, must approve the study?", ["research ethics committee"]),
    # an example of the asker's situation, not of what is asked
    ("When is an impact assessment mandatory, for example for CCTV covering a public square?", []),
    ("Under what conditions may a provider process sensitive data such as ethnic origin to correct bias?", []),
    ("Can the authority still step in later, for example by prohibiting the processing?", []),
    # a clause is no example of a thing
    ("What share of the group, for example to appoint a single group DPO, must agree?", []),
    # only the asking sentence gives the examples that count
    ("We looked at formats such as CSV. Which formats does the Regulation name?", []),
])
def test_the_examples_a_question_gives_of_what_it_asks_for(question, examples):
    assert asked_examples(question) == examples


@pytest.mark.parametrize("question, names", [
    ("Which opt-out methods, such as robots.txt or the TDM Reservation Protocol, are valid?",
     ["robots.txt", "TDM Reservation Protocol"]),
    ("Which standards, such as ISO/IEC 42001, does the Act name?", ["ISO/IEC 42001"]),
    ("Which monitoring technologies, such as keystroke logging or webcam checks, does it prohibit?", []),
    # a name inside a lay example, or a lay example beside names: the list is not checked
    ("Which technologies, such as keystroke logging or GPS tracking, does it prohibit?", []),
    ("Which marking standards, such as C2PA or a watermarking standard, must providers use?", []),
])
def test_only_names_among_the_examples_count(question, names):
    assert example_names(question) == names


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "e.db")
    units = [unit("r-1", "1. An Authorised Person may admit a virtual asset to trading only where the Regulator has "
                         "accepted it as an Accepted Virtual Asset.\n2. The Regulator shall publish the list of "
                         "accepted stablecoins, which includes EURC and PYUSD.", heading="Rule 1",
                  title="Accepted Virtual Assets")]
    ingest(s, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc", title="Virtual Asset Rules")],
                                           units=units), corpus="e", adapter="test")
    return s


def run(store, q):
    return ask(q, store=store, embedder=HashEmbedder(), corpus="e", settings=AskSettings(k=3, hops=0))


def test_named_examples_the_corpus_never_writes_refuse_with_the_reason(store):
    rep = run(store, "Which stablecoins, such as USDT or USDC, has the Regulator accepted for trading?")
    assert rep.refused and rep.reason_code == "term_missing"
    assert rep.reason == ("the corpus never mentions 'USDT' or 'USDC', the examples the question gives of what it "
                          "asks for")
    assert rep.gate is not None and rep.gate.signals.get("missing_examples") == ["USDT", "USDC"]


def test_one_named_example_the_corpus_writes_is_enough_to_go_on(store):
    rep = run(store, "Which stablecoins, such as USDT or EURC, has the Regulator accepted for trading?")
    assert rep.gate is not None and "missing_examples" not in rep.gate.signals
    assert "examples the question gives" not in rep.reason


def test_one_missing_named_example_is_named_in_the_singular(store):
    rep = run(store, "Which stablecoins, for example USDT, has the Regulator accepted for trading?")
    assert rep.refused and rep.reason == "the corpus never mentions 'USDT', the example the question gives of what " \
                                         "it asks for"


def test_lay_examples_are_not_read_as_names(store):
    rep = run(store, "Which stablecoins, such as the big dollar coins, has the Regulator accepted for trading?")
    assert rep.gate is not None and "missing_examples" not in rep.gate.signals
