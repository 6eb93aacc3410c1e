"""Dashboard Ask page (and the app shell): live trace, anchored answer, refusal card, bad input."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from anchor_core.reports import ReportStore
from tests import app_support as A


@pytest.fixture
def aiact():
    return A.ingest_aiact()


def ask(at: AppTest, question: str | None = None) -> AppTest:
    if question is None:
        A.button(at, "Ask the demo question").click()
    else:
        at.text_area(key="ask_question").input(question)
        A.button(at, "Ask").click()
    return at.run()


def test_demo_question_gives_an_anchored_claim_with_its_quote_in_context(aiact):
    store, _ = aiact
    at = A.app()
    A.no_traceback(at)
    assert at.selectbox(key="ask_corpus").value == "aiact"
    ask(at)
    A.no_traceback(at)
    status = at.status[0]
    assert status.label.startswith("Answered") and status.state == "complete"
    # the trace was written stage by stage into the status box
    trace = "\n".join(m.value for m in status.markdown)
    for stage in ("**Retrieve**", "**Hop**", "**Gate**", "**Write**", "**Anchor**"):
        assert stage in trace
    claims = at.radio(key=at.radio[0].key)
    assert claims.options and ":green[:material/check_circle:]" in claims.options[0]
    # the selected claim's quote is highlighted inside the full stored text of its unit
    html = at.get("html")[0].value
    run = ReportStore(A.home() / "reports.db").get(at.session_state["ask_run"])
    c = run.claims[0].anchor
    unit = store.get_units("aiact", [c.unit_id])[c.unit_id]
    assert unit.text[c.start:c.end] == c.quote
    assert f">{c.quote}</mark>".replace("’", "’") in html.replace("&#x27;", "'")
    page = A.texts(at)
    assert f"**offsets** [{c.start}:{c.end}]" in page and f"**unit** {c.unit_id}" in page
    # The path shows exactly when the quoted source was reached by following a reference (with the
    # hop rules of issue 17 the demo answer may quote a direct hit).
    src = run.source(c.source)
    assert "**score**" in page and ("**reference path**" in page) == bool(src is not None and src.path)


def test_selecting_another_claim_shows_its_evidence(aiact, monkeypatch):
    from anchor_core.ask.writers import ExtractiveWriter

    # quote three sentences whatever they add, so the answer has several claims to choose from
    monkeypatch.setattr(ExtractiveWriter.__init__, "__defaults__", (3, 0.0))
    at = ask(A.app())
    radio = at.radio[0]
    assert len(radio.options) >= 2
    radio.set_value(1).run()
    run = ReportStore(A.home() / "reports.db").get(at.session_state["ask_run"])
    assert "**Claim 2**" in A.texts(at)
    assert run.claims[1].anchor.quote.split()[0] in at.get("html")[0].value


def test_unanswerable_question_shows_a_refusal_card(aiact):
    at = ask(A.app(), "What is the boiling point of mercury in Kelvin?")
    A.no_traceback(at)
    assert at.status[0].state == "error" and at.status[0].label.startswith("Refused")
    page = A.texts(at)
    assert "Not answered" in page and "kelvin" in page.lower()
    assert "Why it was not answered" in page and "What was found" in page


def test_empty_question_is_a_visible_warning(aiact):
    at = A.app()
    at.text_area(key="ask_question").input("   ")
    A.button(at, "Ask").click()
    at.run()
    A.no_traceback(at)
    assert any("Type a question first" in w.value for w in at.warning)
    assert not at.status


def test_sidebar_settings_reach_the_pipeline(aiact):
    at = A.app()
    at.slider(key="ask_k").set_value(3)
    at.slider(key="ask_hops").set_value(0)
    at.selectbox(key="ask_scorer").set_value("lexical")
    at.selectbox(key="ask_writer").set_value("extractive")
    ask(at)
    A.no_traceback(at)
    run = ReportStore(A.home() / "reports.db").get(at.session_state["ask_run"])
    assert run.settings["k"] == 3 and run.settings["hops"] == 0
    assert run.models["scorer"] == "lexical"
    assert all(s.direct for s in run.sources)  # no hops: nothing reached by reference


def test_corpus_deleted_in_another_tab_keeps_the_saved_answer_readable(aiact):
    store, _ = aiact
    at = ask(A.app())
    store.delete_corpus("aiact")  # another connection, as another tab or the CLI would
    at.run()
    A.no_traceback(at)
    assert "No corpus yet" in A.texts(at)
    # the run is saved: the Reports page still shows it and says the source is gone
    at.switch_page("views/reports.py").run()
    A.no_traceback(at)
    page = A.texts(at)
    assert "no longer in corpus" in page or "could not be read" in page


def test_empty_workspace_shows_the_empty_state(tmp_path):
    from anchor_core.workspace import mark_demo_offered

    mark_demo_offered(A.home())
    at = A.app()
    A.no_traceback(at)
    assert "No corpus yet — upload one" in A.texts(at)
    assert [b for b in at.button if b.label == "Load the AI Act demo corpus"]


def test_first_start_ingests_the_demo_corpus_as_one_shared_job():
    import sys

    at = A.app()
    A.no_traceback(at)
    jobs = sys.modules["jobs"].JOBS  # the app's own module (the app folder is on sys.path)
    job = jobs.get(str(A.home()))
    assert job is not None and "Loading the EU AI Act demo corpus" in A.texts(at)
    assert at.get("progress") or job.state != "running"
    # a second tab (or a reload: a new session) attaches to the same job instead of starting another
    other = AppTest.from_file(str(A.APP), default_timeout=60)
    other.run()
    A.no_traceback(other)
    assert jobs.get(str(A.home())).id == job.id
    end = time.monotonic() + 120
    while job.state == "running" and time.monotonic() < end:
        time.sleep(0.2)
    assert job.state == "done", job.error
    view = job.snapshot()
    assert view.total == 959 and view.done == view.total and view.rate and view.rate > 0
    assert [c.name for c in A.store().corpora()] == ["aiact"]
    # the next start does not ingest again, in either tab
    for session in (at, other):
        session.run()
        A.no_traceback(session)
        assert "Loading the EU AI Act" not in A.texts(session)
    assert jobs.get(str(A.home())).id == job.id


def test_job_progress_says_rate_and_time_left():
    import sys

    sys.path.insert(0, str(A.APP.parent))
    try:
        from jobs import Job
    finally:
        sys.path.remove(str(A.APP.parent))
    job = Job(what="x")
    job.step(0, 0, "loading the embedding model")
    assert job.snapshot().text().startswith("loading the embedding model…")
    job.step(0, 1000, "embedding")
    job.first_step -= 10  # ten seconds ago
    job.step(200, 1000)
    view = job.snapshot()
    assert 19 < view.rate < 21 and 39 < view.eta < 41
    assert view.text().startswith("embedding: 200 of 1,000 chunks · 20 chunks/s · about")


def test_store_locked_by_another_process_is_a_message_not_a_traceback():
    def page():
        import sqlite3

        import resources as R

        with R.guard("Deleting"):
            raise sqlite3.OperationalError("database is locked")

    import sys

    sys.path.insert(0, str(A.APP.parent))
    try:
        at = AppTest.from_function(page).run()
    finally:
        sys.path.remove(str(A.APP.parent))
    A.no_traceback(at)
    assert "another process" in at.error[0].value and "nothing was lost" in at.error[0].value


def test_pages_without_a_model_do_not_load_one(monkeypatch, aiact):
    import anchor_core.embeddings as E

    loads: list[str] = []
    real = E.make_embedder

    def counting(kind: str):
        loads.append(kind)
        return real(kind)

    monkeypatch.setattr(E, "make_embedder", counting)
    at = AppTest.from_file(str(A.APP), default_timeout=60)
    at.run()  # the Ask page: renders, then warms the model in the background
    wait_for(loads)
    for page in ("views/corpora.py", "views/reports.py", "views/verify.py"):
        A.st.cache_resource.clear()
        loads.clear()
        at.switch_page(page).run()
        A.no_traceback(at)
        assert loads == [], page
    A.st.cache_resource.clear()
    at.switch_page("views/ask.py").run()
    assert loads == []  # not while the page is drawn: after it, in the background
    wait_for(loads)
    assert loads == ["hash"]


def wait_for(loads: list[str], seconds: float = 15) -> None:
    end = time.monotonic() + seconds
    while not loads and time.monotonic() < end:
        time.sleep(0.05)


def test_a_source_fetched_for_a_term_the_question_asks_about_says_so(aiact):
    at = A.app()
    ask(at, "Does a company that uses a third-party AI tool internally count as a 'deployer'?")
    A.no_traceback(at)
    page = A.texts(at)
    # the definition is a source of its own, and the passages list says why it is there
    assert "named in the question (definition of ‘deployer’)" in page
    run = ReportStore(A.home() / "reports.db").get(at.session_state["ask_run"])
    assert any(s.unit_id == "article-3" and s.named == "definition of ‘deployer’" for s in run.sources)
