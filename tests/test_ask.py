"""The ask pipeline offline: gate, refusal reasons, extractive answers anchored into unit offsets,
trace events, exports and re-checks."""

from __future__ import annotations

import json

import pytest

from anchor_core.ask import AskSettings, ask, recheck
from anchor_core.ask.gate import content_terms, names
from anchor_core.ask.pipeline import rewrite_query
from anchor_core.cli import main
from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import CorpusNotFound, QueryError
from anchor_core.indexing import ingest
from anchor_core.models import ParsedCorpus
from anchor_core.render import read_export, to_html, to_json, to_markdown, to_text
from anchor_core.report import Report
from tests.ask_fixtures import A4, drone_corpus, drone_store

STAGES = ["retrieve", "hop", "gate", "write", "decompose", "anchor", "report"]


@pytest.fixture
def store(tmp_path):
    return drone_store(tmp_path / "ask.db")


def run(store, q, **kw):
    return ask(q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings(**kw))


def test_answer_is_anchored_to_exact_unit_offsets(store):
    r = run(store, "Must drone operators register before the first flight?")
    assert not r.refused and r.claims and all(c.supported for c in r.claims)
    units = store.get_units("drones", [c.anchor.unit_id for c in r.claims])
    for c in r.claims:
        a = c.anchor
        assert units[a.unit_id].text[a.start:a.end] == a.quote
        assert a.unit_id == "article-3" and "register" in a.quote
        assert a.unit_sha256 and a.method == "verbatim"
    assert "[1]" in r.answer and r.sources[0].label == "Article 3(1)"
    assert [e.stage for e in r.trace] == STAGES
    assert r.gate.verdict == "pass" and r.corpus_version == store.corpus("drones").version


def test_a_followed_reference_supports_part_of_the_answer(store, monkeypatch):
    # The fixture's hash embedder gives Article 6 no closeness to the question at all, so with the
    # fitted hop weights its backward hop earns no slot; this test is about how a followed source is
    # reported and anchored, so it lets the hop in on its parent's score alone.
    from anchor_core.ask.pipeline import AskSettings as Settings

    plain = Settings.retrieval
    monkeypatch.setattr(Settings, "retrieval", lambda self: plain(self).model_copy(
        update={"hop_decay": 1.0, "hop_floor": 1.0, "backward_weight": 1.0}))
    r = run(store, "What fine applies if a drone has no remote identification module?")
    assert not r.refused
    followed = [s for s in r.sources if s.followed_from]
    assert any(s.label == "Article 6(1)" and s.followed_from == "Article 4(1)" for s in followed)
    anchored = {c.anchor.unit_id for c in r.claims if c.supported}
    assert "article-6" in anchored  # the fine is only in the article reached by the hop
    assert "followed citations into" in to_text(r)


def test_name_the_corpus_never_mentions_refuses_with_that_reason(store):
    r = run(store, "What is the fine under the GDPR for drones?")
    assert r.refused and r.reason_code == "term_missing" and "'gdpr'" in r.reason
    assert not r.claims and r.sources  # what was retrieved is still shown
    assert r.trace[-1].decision == "refuse"


def test_off_topic_question_refuses_even_though_retrieval_returns_hits(store):
    r = run(store, "How much does a drone insurance policy cost for a wedding photographer?")
    assert r.refused and r.reason_code in ("term_missing", "not_answered")
    assert r.gate.verdict in ("weak", "refuse") and r.gate.signals["coverage"] < 0.5


def test_without_the_gate_the_naive_configuration_answers_anyway(store):
    r = run(store, "How much does a drone insurance policy cost for a wedding photographer?", gate=False)
    assert r.gate is None and "gate" not in [e.stage for e in r.trace]


def test_weak_evidence_is_retried_once_with_a_rewritten_query(store, monkeypatch):
    from anchor_core.ask import gate as g

    calls = []
    real = g.decide

    def first_weak(sig, *, hits, model=None, **kw):
        d = real(sig, hits=hits, model=model, **kw)
        calls.append(d.verdict)
        if len(calls) == 1:
            d.verdict, d.code = "weak", "not_answered"
        return d

    monkeypatch.setattr(g, "decide", first_weak)
    r = run(store, "Must drone operators register before the first flight?")
    stages = [e.stage for e in r.trace]
    assert stages.count("retrieve") == 2 and "rewrite" in stages
    assert not r.refused and len(calls) == 2
    assert rewrite_query("Must drone operators register before the first flight?") == \
        "drone operators register first flight"


def test_bad_questions(store):
    with pytest.raises(QueryError, match="empty"):
        run(store, "   ")
    with pytest.raises(CorpusNotFound):
        ask("Must drones register?", store=store, embedder=HashEmbedder(), corpus="nope")
    r = run(store, "Wie viel kostet eine Drohne in der Schweiz und was ist das?")
    assert r.refused and r.reason_code == "bad_question" and "English" in r.reason


def test_events_stream_in_order(store):
    seen = []
    r = ask("Which drones must carry a remote identification module?", store=store, embedder=HashEmbedder(),
            corpus="drones", on_event=seen.append)
    assert [e.stage for e in seen] == [e.stage for e in r.trace] and seen[0].stage == "retrieve"
    assert all(e.ms >= 0 for e in seen)


def test_access_groups_reach_the_retrieval(tmp_path):
    from anchor_core.stores.sqlite import SQLiteStore

    st = SQLiteStore(tmp_path / "g.db")
    parsed = drone_corpus()
    parsed.documents[0].groups = ["aviation"]
    ingest(st, HashEmbedder(), parsed, corpus="drones", adapter="test")
    outsider = ask("Must drone operators register before the first flight?", store=st, embedder=HashEmbedder(),
                   corpus="drones", settings=AskSettings(groups=["hr"]))
    assert outsider.refused and not outsider.sources
    insider = ask("Must drone operators register before the first flight?", store=st, embedder=HashEmbedder(),
                  corpus="drones", settings=AskSettings(groups=["aviation"]))
    assert not insider.refused


def test_report_exports_round_trip(store):
    r = run(store, "Which drones must carry a remote identification module?")
    again = Report.model_validate_json(to_json(r))
    assert again == r and read_export(to_json(r)) == r
    md, page = to_markdown(r), to_html(r)
    q = r.claims[0].anchor
    assert q.quote in md and f"{q.start}–{q.end}" in md
    human = page.split("<script type='application/json' id='anchor-report'>")[0]  # then the record, escaped
    assert "<blockquote>" in human and "<script" not in human
    data = json.loads(to_json(r))
    for key in ("question", "refused", "reason", "answer", "claims", "sources", "gate", "trace", "models",
                "corpus_version"):
        assert key in data
    assert set(data["claims"][0]["anchor"]) >= {"unit_id", "part", "page", "quote", "start", "end", "score", "method"}


def test_recheck_tells_unchanged_moved_and_gone(store):
    r = run(store, "Which drones must carry a remote identification module?")
    assert recheck(r, store).intact and recheck(r, store).checks[0].status == "unchanged"
    # Amend Article 4: a new paragraph in front moves the quote.
    parsed = drone_corpus()
    a4 = next(u for u in parsed.units if u.unit_id == "article-4")
    new_text = "0. This Article applies from 1 January.\n" + A4
    shift = len(new_text) - len(A4)
    a4.text = new_text
    for p in a4.parts:
        p.start += shift
        p.end += shift
    for ref in parsed.references:
        if ref.src_unit == "article-4":
            ref.start += shift
            ref.end += shift
    ingest(store, HashEmbedder(), parsed, corpus="drones", adapter="test")
    moved = recheck(r, store)
    assert moved.checks[0].status == "moved" and moved.checks[0].start == r.claims[0].anchor.start + shift
    assert moved.corpus_version_then != moved.corpus_version_now
    # Drop Article 4 entirely.
    ingest(store, HashEmbedder(), ParsedCorpus(documents=parsed.documents,
                                               units=[u for u in parsed.units if u.unit_id != "article-4"],
                                               references=[x for x in parsed.references if x.src_unit != "article-4"]),
           corpus="drones", adapter="test")
    gone = recheck(r, store)
    assert gone.checks[0].status == "gone" and not gone.intact


def test_gate_terms_and_names():
    q = "Does the Colorado AI Act give consumers a right to appeal decisions under the GDPR?"
    assert names(q) == {"colorado", "act", "gdpr"}
    assert "consumers" in content_terms(q) and "does" not in content_terms(q)


def test_cli_ask_json_and_recheck(tmp_path, capsys, monkeypatch):
    from anchor_core.config import Settings
    from anchor_core.stores import open_store

    st = open_store(Settings.from_env())
    ingest(st, HashEmbedder(), drone_corpus(), corpus="drones", adapter="test")
    out = tmp_path / "r.json"
    assert main(["ask", "Must drone operators register before the first flight?", "--corpus", "drones", "--json",
                 "--output", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["refused"] is False and data["claims"][0]["anchor"]["unit_id"] == "article-3"
    assert main(["recheck", str(out)]) == 0
    assert "all quotes intact" in capsys.readouterr().out
    assert main(["ask", "What is the fine under the GDPR?", "--corpus", "drones", "--fail-on-refusal"]) == 1
    assert "Refused: the corpus never mentions 'gdpr'" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["recheck", str(bad)]) == 2
    assert "give an export of an ask or verify run" in capsys.readouterr().err
    assert main(["ask", " ", "--corpus", "drones"]) == 2


def test_source_labels_read_like_the_document():
    from anchor_core.ask.pipeline import unit_label
    from tests.conftest import unit

    assert unit_label(unit("article-6", "x", heading="Article 6"), "article-6", "2") == "Article 6(2)"
    assert unit_label(unit("policy/6", "x", heading="6"), "policy/6", "6.2") == "§6.2"
    assert unit_label(unit("policy/6", "x", heading="6"), "policy/6", None) == "§6"
    assert unit_label(None, "annex-3", "4") == "annex-3(4)"


def _with_recital(tmp_path):
    from anchor_core.stores.sqlite import SQLiteStore
    from tests.conftest import unit

    st = SQLiteStore(tmp_path / "r.db")
    parsed = drone_corpus()
    parsed.units.append(unit("recital-7", "(7) Drone operators should keep their flight logs for two years after "
                             "each flight, so that incidents can be traced.", kind="recital", heading="Recital (7)"))
    ingest(st, HashEmbedder(), parsed, corpus="drones", adapter="test")
    return st


def test_a_refusal_says_when_a_left_out_recital_would_answer(tmp_path):
    st = _with_recital(tmp_path)
    q = "How many years must drone operators keep their flight logs?"
    r = ask(q, store=st, embedder=HashEmbedder(), corpus="drones", settings=AskSettings())
    # the articles state no period for flight logs: still a refusal (recitals are not binding), but it says where
    assert r.refused and "with them, Recital (7) passes the same test" in r.reason and "--recitals" in r.reason
    assert any("Recital (7)" in n for n in r.notes)
    assert any(e.message.startswith("recitals included: ") for e in r.trace if e.stage == "gate")
    assert r.trace[-1].decision == "refuse"
    # asked with recitals included, the recital answers, quoted at its own offsets
    r2 = ask(q, store=st, embedder=HashEmbedder(), corpus="drones", settings=AskSettings(include_recitals=True))
    assert not r2.refused and any(c.anchor and c.anchor.unit_id == "recital-7" for c in r2.claims)
    # a refusal no recital would answer says nothing of recitals
    r3 = ask("What fee does the national aviation authority charge to register a drone?", store=st,
             embedder=HashEmbedder(), corpus="drones", settings=AskSettings())
    assert r3.refused and "ecital" not in r3.reason


def test_a_question_that_names_the_recitals_searches_them(tmp_path):
    st = _with_recital(tmp_path)
    for q in ("According to the recitals, how many years must drone operators keep their flight logs?",
              "What does the preamble say: how many years must drone operators keep their flight logs?"):
        r = ask(q, store=st, embedder=HashEmbedder(), corpus="drones", settings=AskSettings())
        assert not r.refused and any(c.anchor and c.anchor.unit_id == "recital-7" for c in r.claims), q
        assert r.settings["include_recitals"] and any("names the recitals" in n for n in r.notes)
        assert any(e.stage == "retrieve" and "recitals included in the search" in e.message for e in r.trace)


def test_a_corpus_without_recitals_gets_no_recital_check(store):
    r = run(store, "How much does a drone insurance policy cost for a wedding photographer?")
    assert r.refused and "ecital" not in r.reason
    assert not any(e.message.startswith("recitals included: ") for e in r.trace)
