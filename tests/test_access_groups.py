"""No text of one access group may reach a query of another, through search or through hops."""

import random

import pytest

from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, ParsedCorpus
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores import derived
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import ref, unit

VOCAB = ("audit salary invoice contract retention breach supplier payroll bonus travel expense laptop "
         "password incident vendor merger pension overtime claim policy review approval deadline").split()


def _corpus(rng: random.Random) -> ParsedCorpus:
    docs, units, refs = [], [], []
    for g in ("red", "blue"):
        for d in range(6):
            doc_id = f"{g}-doc{d}"
            docs.append(Document(doc_id=doc_id, groups=[g]))
            for n in range(3):
                words = " ".join(rng.choice(VOCAB) for _ in range(25))
                # A marker word per group lets the test see any leak in the returned text.
                text = (f"1. {g.upper()}MARK {words}, see Section {n} of {'blue' if g == 'red' else 'red'}-doc{d}.\n"
                        f"2. {g.upper()}MARK closing words.")
                units.append(unit(f"{doc_id}-u{n}", text, doc_id=doc_id, kind="file",
                                  parts=[("1", text.split("\n")[0]), ("2", text.split("\n")[1])]))
    # Cross-group references: red units cite blue units and vice versa. Hops must not cross.
    for u in units:
        other = u.unit_id.replace("red", "tmp").replace("blue", "red").replace("tmp", "blue")
        refs.append(ref(u, "see Section", other))
    return ParsedCorpus(documents=docs, units=units, references=refs)


@pytest.mark.parametrize("seed,int8", [(0, False), (1, False), (2, False), (0, True), (1, True)])
def test_no_text_crosses_groups_over_many_random_queries(tmp_path, monkeypatch, seed, int8):
    """Through the tantivy index (BM25) and the vector file, exact or with the int8 pre-filter
    (``int8``: on for this small corpus), read by a fresh store instance as a new process would."""
    if int8:
        monkeypatch.setattr(derived, "EXACT_LIMIT", 0)
    rng = random.Random(seed)
    e = HashEmbedder()
    ingest(SQLiteStore(tmp_path / "g.db"), e, _corpus(rng), corpus="c", adapter="test")
    store = SQLiteStore(tmp_path / "g.db")
    assert (store._index("c").codes is not None) == int8
    for _ in range(80):
        question = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 6)))
        group = rng.choice(["red", "blue"])
        other = "BLUEMARK" if group == "red" else "REDMARK"
        for hops in (0, 1, 2):
            s = RetrievalSettings(k=rng.choice([3, 5, 8]), hops=hops, mode=rng.choice(["hybrid", "bm25", "dense"]),
                                  groups=[group])
            result = retrieve(question, store=store, embedder=e, corpus="c", settings=s)
            assert result.hits, question
            for h in result.hits:
                assert h.doc_id.startswith(group), (question, h.chunk_id, h.via)
                assert other not in h.text


def test_without_groups_hops_do_cross(tmp_path):
    """The same corpus unfiltered follows the cross-group references: the filter above is what stops them."""
    store = SQLiteStore(tmp_path / "g.db")
    e = HashEmbedder()
    ingest(store, e, _corpus(random.Random(0)), corpus="c", adapter="test")
    # Followed chunks here must outscore direct ones to be shown: let them in on their parent's score.
    result = retrieve("audit salary", store=store, embedder=e, corpus="c",
                      settings=RetrievalSettings(k=8, hops=1, hop_decay=1.0, hop_floor=1.0))
    assert {h.doc_id.split("-")[0] for h in result.hits} == {"red", "blue"}
    assert any(h.via for h in result.hits)


def test_a_group_filter_still_fills_k_when_the_best_matches_are_hidden(tmp_path):
    """The hidden group's chunks match the query best; a visible-group search still returns k of
    its own (the filter is inside the lexical query, not applied to a top-k already cut)."""
    from anchor_core.models import Filters

    docs = [Document(doc_id=f"red{i}", groups=["red"]) for i in range(40)] + \
        [Document(doc_id=f"blue{i}", groups=["blue"]) for i in range(5)]
    units = [unit(f"{d.doc_id}-u", ("payroll " * (8 if d.doc_id.startswith("red") else 1)) + "closing words",
                  doc_id=d.doc_id, kind="file") for d in docs]
    store = SQLiteStore(tmp_path / "g.db")
    ingest(store, HashEmbedder(), ParsedCorpus(documents=docs, units=units), corpus="c", adapter="test")
    assert store.search_bm25("c", ["payroll"], 5, Filters())[0][0].startswith("red")
    hits = store.search_bm25("c", ["payroll"], 5, Filters(groups=["blue"]))
    assert len(hits) == 5 and all(cid.startswith("blue") for cid, _ in hits)
