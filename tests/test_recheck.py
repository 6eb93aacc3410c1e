"""Re-check in words: what changed in a quote (a number, a date, a negation), the old and the new
text, and a deleted corpus or document reported as "gone" per quote, never as an error."""

from __future__ import annotations

from anchor_core.ask import AskSettings, ask
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document
from anchor_core.recheck import describe, diff, recheck
from anchor_core.stores.sqlite import SQLiteStore
from anchor_core.workspace import delete_document
from tests.ask_fixtures import A5, drone_corpus

Q = "Which lighting system do flights at night require?"


def two_documents():
    """The drone corpus with Article 5 in a document of its own (so it can be deleted alone)."""
    parsed = drone_corpus()
    parsed.documents.append(Document(doc_id="limits", title="Operational limits"))
    for u in parsed.units:
        if u.unit_id == "article-5":
            u.doc_id = "limits"
    return parsed


def asked(tmp_path):
    store = SQLiteStore(tmp_path / "s.db")
    ingest(store, HashEmbedder(), two_documents(), corpus="drones", adapter="test")
    r = ask(Q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings())
    assert not r.refused and r.claims[0].anchor.unit_id == "article-5", [c.anchor for c in r.claims]
    return store, r


def amend(store, new_a5: str):
    parsed = two_documents()
    a5 = next(u for u in parsed.units if u.unit_id == "article-5")
    a5.text = new_a5
    a5.parts[1].start, a5.parts[1].end = new_a5.index("2."), len(new_a5)
    ingest(store, HashEmbedder(), parsed, corpus="drones", adapter="test")


def test_a_changed_number_is_named_with_the_old_and_new_text(tmp_path):
    store, r = asked(tmp_path)
    amend(store, A5.replace("visible from 5 kilometres", "visible from 3 kilometres"))
    check = recheck(r, store).checks[0]
    assert check.status == "changed"
    assert check.changes == ["a number changed: 5 → 3"]
    assert "5 kilometres" in check.old and "3 kilometres" in check.quote
    assert "a number changed: 5 → 3" in check.detail and "similar" not in check.detail
    text = recheck(r, store).to_text()
    assert "then: “" in text and "now:  “" in text


def test_a_deleted_document_or_corpus_is_gone_per_quote(tmp_path):
    store, r = asked(tmp_path)
    delete_document(store, "drones", "limits")
    result = recheck(r, store)
    assert [c.status for c in result.checks if c.unit_id == "article-5"] == ["gone"]
    assert "the document holding article-5 was deleted" in result.checks[0].detail
    assert result.checks[0].old == r.claims[0].anchor.quote and not result.intact
    store.delete_corpus("drones")
    result = recheck(r, store)  # no CorpusNotFound: the answer is that every quote is gone
    assert result.corpus_version_now == "deleted" and {c.status for c in result.checks} <= {"gone", "no_anchor"}
    assert "corpus 'drones' was deleted" in result.checks[0].detail


def test_changes_in_words():
    assert describe("report within 72 hours", "report within 48 hours") == ["a number changed: 72 → 48"]
    assert describe("applies from 2 August 2026", "applies from 2 August 2027") == ["a date changed: 2026 → 2027"]
    assert describe("applies from 2 August 2026", "applies from 2 March 2026") == \
        ["a date changed: August → March"]
    assert describe("Operators shall not fly over people.", "Operators shall fly over people.") == \
        ["a negation was removed: “not”"]
    assert describe("Operators may fly at night.", "Operators may never fly at night.") == \
        ["a negation was added: “never”"]
    assert describe("keep the logs", "keep all the logs") == ["words added: “all”"]
    assert describe("keep the logs", "keep the Logs") == ["only spacing or letter case changed"]
    assert diff("a 5 b", "a 3 b") == [("equal", "a ", "a "), ("replace", "5 ", "3 "), ("equal", "b", "b")]
