"""Dashboard Assess page: a decision per topic with quoted provisions, bad input, a corpus without a map."""

from __future__ import annotations

from tests import app_support as A
from tests.conftest import unit


def test_example_gives_a_decision_per_topic_with_quotes():
    store, _ = A.ingest_aiact()
    at = A.app("views/assess.py")
    A.no_traceback(at)
    A.button(at, "Assess the example").click()
    at.run()
    A.no_traceback(at)
    heads = [s.value for s in at.subheader]
    for title in ("Prohibited practices", "High-risk classification", "Obligations by role", "Transparency duties",
                  "Dates of application"):
        assert title in heads
    page = A.texts(at)
    assert "not calibrated" in page  # the tests run the hash embedder; thresholds are MiniLM's
    assert "It shall apply from 2 August 2026." in page  # the Article 113 quote, verbatim
    result = at.session_state["assess_result"]
    units = store.get_units("aiact", sorted({p["unit_id"] for d in result["decisions"] for p in d["provisions"]}))
    for d in result["decisions"]:
        for p in d["provisions"]:
            assert units[p["unit_id"]].text[p["start"]:p["end"]] == p["quote"]
    assert result["mapped"] is True


def test_empty_description_asks_for_one_and_a_too_short_one_is_a_message():
    A.ingest_aiact()
    at = A.app("views/assess.py")
    A.button(at, "Assess").click()
    at.run()
    A.no_traceback(at)
    assert "Describe the system first" in at.warning[0].value
    at.text_area(key="assess_description").input("chatbot")
    A.button(at, "Assess").click()
    at.run()
    A.no_traceback(at)
    assert "describe the system in a sentence" in at.error[0].value


def test_corpus_without_a_map_is_labelled_plain_questions():
    from anchor_core.models import Document, ParsedCorpus

    u = unit("article-1", "1. Widgets used for recruitment shall be registered.", heading="Article 1",
             parts=[("1", "1. Widgets used for recruitment shall be registered.")])
    A.ingest_parsed(ParsedCorpus(documents=[Document(doc_id="doc", title="Widget Act")], units=[u]))
    at = A.app("views/assess.py")
    at.text_area(key="assess_description").input("a widget that screens job applicants")
    A.button(at, "Assess").click()
    at.run()
    A.no_traceback(at)
    assert "no topic map for corpus 'widgets'" in A.texts(at)
