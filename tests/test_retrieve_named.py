"""Units named in the question are fetched directly, with the corpus's own reference grammar."""

import pytest

from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, ParsedCorpus
from anchor_core.named import named_references, use_adapters
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from ingest import get_adapter
from tests.conftest import unit


@pytest.fixture(autouse=True)
def grammars():
    """As the shells do: questions are read with the adapters' grammars."""
    use_adapters(get_adapter)
    yield
    use_adapters(None)


@pytest.fixture
def act(tmp_path, small_corpus):
    """The widget act stored as an EUR-Lex corpus, so the question is read with its grammar."""
    s = SQLiteStore(tmp_path / "n.db")
    ingest(s, HashEmbedder(), small_corpus, corpus="w", adapter="aiact")
    return s


def ask(store, q, **kw):
    return retrieve(q, store=store, embedder=HashEmbedder(), corpus="w", settings=RetrievalSettings(**kw))


def test_a_unit_the_question_names_is_fetched_first_and_marked(act):
    r = ask(act, "Which widgets are listed in Annex I?", k=2, hops=0)
    assert r.hits[0].unit_id == "annex-1" and r.hits[0].named == "Annex I" and not r.hits[0].via
    off = ask(act, "Which widgets are listed in Annex I?", k=2, hops=0, named=False)
    assert [h.named for h in off.hits] == ["", ""]


def test_a_named_part_takes_that_part_and_lowercase_is_read_too(act):
    r = ask(act, "what does article 2(1) require", k=3, hops=0)
    first = r.hits[0]
    assert (first.unit_id, first.part, first.named) == ("article-2", "1", "article 2(1)")


def test_an_unknown_reference_is_a_note_not_an_error(act):
    r = ask(act, "What does Article 999 say about widgets?", k=2, hops=0)
    assert all(not h.named for h in r.hits)
    assert any("Article 999" in n and "not in this corpus" in n for n in r.notes)


def test_named_units_are_capped_and_the_rest_said(act):
    r = ask(act, "Compare Article 1, Article 2 and Annex I on widgets", k=3, hops=0)
    assert RetrievalSettings(k=3).named_cap == 2
    assert [h.named for h in r.hits[:2]] == ["Article 1", "Article 2"] and len(r.hits) == 3
    assert any("names 3 units" in n and "'Article 1', 'Article 2'" in n for n in r.notes)


def test_a_corpus_without_a_grammar_has_no_named_units(tmp_path, small_corpus, act):
    s = SQLiteStore(tmp_path / "t.db")
    ingest(s, HashEmbedder(), small_corpus, corpus="w", adapter="test")
    assert named_references("What is in Annex I?", store=s, corpus="w") == []
    assert [r.dst_unit for r in named_references("What is in Annex I?", store=act, corpus="w")] == ["annex-1"]
    use_adapters(None)  # a core used without a shell: no adapter lookup, nothing named
    assert named_references("What is in Annex I?", store=act, corpus="w") == []


@pytest.mark.parametrize("adapter, question, expected", [
    ("rfc", "What does Section 4.4 of RFC 7233 say?", [("Section 4.4 of RFC 7233", "rfc-7233", "4.4")]),
    ("rfc", "How is rfc 7636 used?", [("rfc 7636", "rfc-7636", None)]),
    ("rfc", "What is in Section 4.1.2?", [("Section 4.1.2", None, "4.1.2")]),
    ("peps", "What does PEP 484 say?", [("PEP 484", "pep-484", None)]),
    ("peps", "pep 8 naming rules", [("pep 8", "pep-8", None)]),
    ("aiact", "Which areas are high-risk under annex iii?", [("annex iii", "annex-3", None)]),
    ("aiact", "What does Article 6(2) say?", [("Article 6(2)", "article-6", "2")]),
])
def test_each_adapter_reads_questions_with_its_own_grammar(adapter, question, expected):
    refs = get_adapter(adapter).references_in(question, ParsedCorpus(documents=[], units=[]))
    assert [(r.raw, r.dst_unit, r.dst_part) for r in refs] == expected
    assert all(question[r.start:r.end] == r.raw for r in refs)


def test_adgm_resolves_a_rule_number_only_when_one_document_holds_it():
    units = [unit("u1", "A firm must keep records.", doc_id="adgm-1", kind="passage"),
             unit("u2", "A firm must report.", doc_id="adgm-2", kind="passage"),
             unit("u3", "Another rule.", doc_id="adgm-2", kind="passage")]
    for u, pid in zip(units, ["4.12.7", "4.12.7", "5.1.1"]):
        u.meta["passage_id"] = pid
    docs = [Document(doc_id="adgm-1", title="Conduct of Business", meta={"adgm_document_id": 1, "aliases": ["COBS"]}),
            Document(doc_id="adgm-2", title="General", meta={"adgm_document_id": 2, "aliases": ["GEN"]})]
    corpus = ParsedCorpus(documents=docs, units=units)
    adgm = get_adapter("adgm")
    assert [(r.raw, r.dst_unit) for r in adgm.references_in("What does Rule 5.1.1 say?", corpus)] == [
        ("Rule 5.1.1", "u3")]
    assert [r.dst_unit for r in adgm.references_in("What does Rule 4.12.7 say?", corpus)] == [None]  # ambiguous
    assert [r.dst_unit for r in adgm.references_in("What does COBS Rule 4.12.7 say?", corpus)] == ["u1"]


@pytest.fixture(scope="module")
def ai_act(tmp_path_factory):
    """The bundled AI Act (chapters and sections recorded), hash-embedded: the grammar is real."""
    use_adapters(get_adapter)
    s = SQLiteStore(tmp_path_factory.mktemp("act") / "a.db")
    ingest(s, HashEmbedder(), get_adapter("aiact").load(None), corpus="aiact", adapter="aiact")
    return s


def test_a_container_the_question_names_brings_its_members_closest_first(ai_act):
    q = "Which data governance requirements does Section 2 of Chapter III set for training data sets?"
    r = retrieve(q, store=ai_act, embedder=HashEmbedder(), corpus="aiact", settings=RetrievalSettings(k=5, hops=0))
    named = [h for h in r.hits if h.named]
    section = {f"article-{n}" for n in range(8, 16)}                      # Articles 8-15 make up that Section
    assert len(named) == RetrievalSettings(k=5).named_cap == 3
    assert {h.named for h in named} == {"Section 2 of Chapter III"} and {h.unit_id for h in named} <= section
    assert named[0].unit_id == "article-10"                               # "Data and data governance"
    assert any("names 8 units" in n and "left to the search" in n for n in r.notes)


def test_a_container_and_a_unit_named_together_each_get_a_slot(ai_act):
    q = "How do Chapter II and Annex III relate?"
    r = retrieve(q, store=ai_act, embedder=HashEmbedder(), corpus="aiact", settings=RetrievalSettings(k=5, hops=0))
    assert [(h.named, h.unit_id) for h in r.hits if h.named] == [("Chapter II", "article-5"), ("Annex III", "annex-3")]
