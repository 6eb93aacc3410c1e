import numpy as np
import pytest
from pydantic import ValidationError

from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import CorpusNotFound, EmptyStore, QueryError, StoreError
from anchor_core.fusion import rrf
from anchor_core.indexing import ingest
from anchor_core.models import Document, Filters, Hit, ParsedCorpus
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import ref, unit


@pytest.fixture
def store(tmp_path, small_corpus):
    s = SQLiteStore(tmp_path / "r.db")
    ingest(s, HashEmbedder(), small_corpus, corpus="w", adapter="test")
    return s


def ask(store, q, **kw):
    return retrieve(q, store=store, embedder=HashEmbedder(), corpus="w", settings=RetrievalSettings(**kw))


def test_rrf_rewards_agreement():
    fused = dict(rrf([["a", "b", "c"], ["c", "b", "d"]]))
    assert fused["b"] > fused["a"] and fused["c"] > fused["d"]
    with pytest.raises(ValueError, match="k must be greater than 0"):
        rrf([["a"]], k=0)


def test_a_hop_reaches_the_referenced_part_and_records_the_path(store):
    # A decay near 1 lets the followed chunk outscore the second direct hit it displaces.
    with_hops = ask(store, "Which widgets shall be registered?", k=2, hops=1, hop_decay=0.99, hop_floor=1.0)
    without = ask(store, "Which widgets shall be registered?", k=2, hops=0)
    assert [h.chunk_id for h in with_hops.hits] != [h.chunk_id for h in without.hits]
    followed = [h for h in with_hops.hits if h.via]
    assert followed and followed[0].unit_id == "annex-1"
    step = followed[0].via[0]
    assert [v.label for v in followed[0].via] == ["article-2(2)"]
    assert (step.unit_id, step.part, step.to_unit, step.kind, step.depth) == ("article-2", "2", "annex-1", "cites", 1)
    assert step.raw  # the reference as written in Article 2(2)
    assert followed[0].path == f"annex-1({followed[0].part}) ← article-2(2)"
    assert followed[0].score < with_hops.hits[0].score  # decayed
    assert "article-2(2) (shown hit #1) cites it as 'Annex I'" in followed[0].why


def test_whole_unit_reference_takes_the_chunk_closest_to_the_question(store):
    r = ask(store, "Are widgets registered when used for recruitment of staff?", k=2, hops=1, mode="bm25",
            hop_decay=0.99, hop_floor=1.0)
    target = [h for h in r.hits if h.unit_id == "annex-1"]
    assert target and target[0].part == "2"


def _tea(tmp_path):
    units = [unit(f"article-{i}", f"{i}. Tea kettles must whistle loudly number {i}.", parts=[(str(i), f"{i}. Tea")])
             for i in range(1, 9)]
    src = unit("article-9", "Tea kettles must whistle loudly, see Annex II.")
    target = unit("annex-2", "Unrelated words about ships and anchors.", kind="annex")
    parsed = ParsedCorpus(documents=[Document(doc_id="doc")], units=[*units, src, target],
                          references=[ref(src, "Annex II", "annex-2")])
    s = SQLiteStore(tmp_path / "s.db")
    ingest(s, HashEmbedder(), parsed, corpus="w", adapter="test")
    return s


def test_a_followed_chunk_takes_a_slot_only_when_it_outscores_a_direct_hit(tmp_path):
    s = _tea(tmp_path)

    def run(**kw):
        return retrieve("tea kettles whistle loudly", store=s, embedder=HashEmbedder(), corpus="w",
                        settings=RetrievalSettings(k=8, mode="bm25", **kw))
    off, on = run(hops=0), run(hops=1)
    # Eight direct hits fit the question better than an annex about ships: it earns no slot, and
    # the question gets exactly the hits it gets with hops off.
    assert [h.chunk_id for h in on.hits] == [h.chunk_id for h in off.hits]
    eager = run(hops=1, hop_decay=1.0, hop_floor=1.0)
    assert any(h.unit_id == "article-9" for h in eager.hits)
    followed = [h for h in eager.hits if h.unit_id == "annex-2"]
    assert followed and [v.label for v in followed[0].via] == ["article-9"]
    assert followed[0].via[0].raw == "Annex II" and "outscored the next direct hit" in followed[0].why
    assert len(eager.hits) == 8
    assert [h.rank for h in eager.hits] == list(range(1, 9))


def test_two_hops_follow_a_chain(tmp_path):
    a = unit("article-1", "Boilers are regulated; see Article 2.")
    b = unit("article-2", "Pressure limits are in Annex I.")
    c = unit("annex-1", "The limit is 3 bar.", kind="annex")
    parsed = ParsedCorpus(documents=[Document(doc_id="doc")], units=[a, b, c],
                          references=[ref(a, "Article 2", "article-2"), ref(b, "Annex I", "annex-1")])
    s = SQLiteStore(tmp_path / "c.db")
    ingest(s, HashEmbedder(), parsed, corpus="w", adapter="test")
    one = retrieve("boilers regulated", store=s, embedder=HashEmbedder(), corpus="w",
                   settings=RetrievalSettings(k=2, hops=1, hop_slots=1, mode="bm25", candidates=1))
    two = retrieve("boilers regulated", store=s, embedder=HashEmbedder(), corpus="w",
                   settings=RetrievalSettings(k=3, hops=2, hop_slots=2, mode="bm25", candidates=1))
    # With one slot the followed Article 2 comes after the hit that cites it, never instead of it.
    assert [h.unit_id for h in one.hits] == ["article-1", "article-2"]
    paths = {h.unit_id: h.via for h in two.hits}
    assert [(v.unit_id, v.to_unit, v.depth) for v in paths["annex-1"]] == [("article-2", "annex-1", 2),
                                                                          ("article-1", "article-2", 1)]


def test_paths_of_old_exports_still_load():
    old = {"chunk_id": "c", "unit_id": "annex-3", "doc_id": "d", "kind": "annex", "part": "4", "start": 0, "end": 1,
           "text": "x", "score": 0.5, "via": ["article-6(2)", "article-1"], "via_kind": ["cites", "cited_by"]}
    h = Hit.model_validate(old)
    assert [(v.unit_id, v.part, v.kind, v.to_unit, v.to_part, v.depth) for v in h.via] == [
        ("article-6", "2", "cites", "annex-3", "4", 2), ("article-1", None, "cited_by", "article-6", "2", 1)]
    assert h.path == "annex-3(4) ← article-6(2) → article-1" and h.via_kind == ["cites", "cited_by"]
    again = Hit.model_validate_json(h.model_dump_json())
    assert again == h


def test_recitals_are_excluded_unless_asked(tmp_path):
    parsed = ParsedCorpus(documents=[Document(doc_id="doc")], units=[
        unit("recital-1", "Whereas lighthouses matter greatly.", kind="recital"),
        unit("article-1", "Ports shall keep records.")])
    s = SQLiteStore(tmp_path / "x.db")
    ingest(s, HashEmbedder(), parsed, corpus="w", adapter="test")
    default = retrieve("lighthouses", store=s, embedder=HashEmbedder(), corpus="w")
    assert all(h.kind != "recital" for h in default.hits)
    included = retrieve("lighthouses", store=s, embedder=HashEmbedder(), corpus="w",
                        settings=RetrievalSettings(include_recitals=True))
    assert included.hits[0].unit_id == "recital-1"


def test_bad_questions_and_settings_say_what_to_do(store, tmp_path):
    with pytest.raises(QueryError, match="stop-words"):
        ask(store, "what is the of and?")
    with pytest.raises(CorpusNotFound, match="anchor ingest"):
        retrieve("widgets", store=store, embedder=HashEmbedder(), corpus="nope")
    with pytest.raises(ValidationError, match="k must be greater than 0"):
        RetrievalSettings(k=0)
    with pytest.raises(ValidationError, match="hops must be between 0 and 3"):
        RetrievalSettings(hops=7)
    with pytest.raises(StoreError, match="re-ingest"):
        retrieve("widgets", store=store, embedder=HashEmbedder(dim=64), corpus="w")
    empty = SQLiteStore(tmp_path / "e.db")
    with pytest.raises(CorpusNotFound, match="store is empty"):
        retrieve("widgets", store=empty, embedder=HashEmbedder(), corpus="aiact")


def test_empty_corpus_is_reported(tmp_path):
    s = SQLiteStore(tmp_path / "e.db")
    import numpy as np

    from anchor_core.models import CorpusInfo
    s.replace_corpus(CorpusInfo(name="w", adapter="t", version="1", embedder="hash-bow-384", dim=384), [], [], [],
                     np.zeros((0, 384), np.float32), [])
    with pytest.raises(EmptyStore, match="no chunks"):
        retrieve("widgets", store=s, embedder=HashEmbedder(), corpus="w")


def test_timings_and_ranks_are_reported(store):
    r = ask(store, "widgets tested before sale", k=3)
    assert set(r.timings_ms) >= {"embed", "bm25", "dense", "fuse", "hop", "total"}
    assert [h.rank for h in r.hits] == list(range(1, len(r.hits) + 1))
    assert r.hits[0].unit_id == "article-2"
    assert all(h.bm25_rank or h.dense_rank for h in r.hits if not h.via)


def test_score_fusion_keeps_a_lead_that_rank_fusion_flattens():
    from anchor_core.fusion import combine

    # "a" is far ahead on BM25 and last on cosine: RRF ranks it only third of four.
    bm25 = [("a", 30.0), ("b", 5.0), ("c", 4.0)]
    cosines = {"a": 0.30, "b": 0.55, "c": 0.60, "d": 0.35}
    assert [c for c, _ in rrf([["a", "b", "c"], ["c", "b", "d", "a"]])].index("a") == 2
    fused = dict(combine(bm25, cosines, 0.6))
    assert max(fused, key=fused.get) == "a" and set(fused) == set(cosines)
    assert dict(combine(bm25, cosines, 1.0))["d"] == 0.0  # a dense-only candidate has no BM25 share
    assert combine(bm25, cosines, 0.0)[0][0] == "c" and combine(bm25, cosines, 1.0)[0][0] == "a"
    # Min-max: a backend that reports (1 + cos) / 2 ranks the same.
    shifted = {k: (1 + v) / 2 for k, v in cosines.items()}
    assert [c for c, _ in combine(bm25, shifted, 0.4)] == [c for c, _ in combine(bm25, cosines, 0.4)]
    with pytest.raises(ValueError, match="weight must be in"):
        combine(bm25, cosines, 1.5)


def test_per_unit_limits_direct_hits_of_one_unit(tmp_path):
    paras = [(str(i), f"{i}. Lanterns shall be lit at dusk number {i}.") for i in range(1, 6)]
    a1 = unit("article-1", "\n".join(t for _, t in paras), parts=paras)
    a2 = unit("article-2", "Lanterns are inspected yearly.")
    s = SQLiteStore(tmp_path / "u.db")
    ingest(s, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc")], units=[a1, a2]), corpus="w",
           adapter="test")

    def units(**kw):
        return [h.unit_id for h in retrieve("lanterns lit at dusk", store=s, embedder=HashEmbedder(), corpus="w",
                                            settings=RetrievalSettings(k=4, hops=0, mode="bm25", **kw)).hits]
    assert units(per_unit=None).count("article-1") == 4
    assert units(per_unit=2).count("article-1") == 2 and "article-2" in units(per_unit=2)
    with pytest.raises(ValidationError, match="per_unit must be greater than 0"):
        RetrievalSettings(per_unit=0)


def _lanterns_citing(tmp_path):
    """Article 1's third paragraph (past a per-unit limit of 2) is the only one that cites Annex I."""
    paras = [(str(i), f"{i}. Lanterns shall be lit at dusk by the keeper, number {i}.") for i in range(1, 3)]
    paras.append(("3", "3. Lanterns lit at dusk burn the oil listed in Annex I."))
    a1 = unit("article-1", "\n".join(t for _, t in paras), parts=paras)
    others = [unit(f"article-{i}", f"Lanterns are inspected at dusk in harbour {i}.") for i in range(2, 6)]
    annex = unit("annex-1", "Whale oil; olive oil; paraffin for lanterns at dusk.", kind="annex")
    s = SQLiteStore(tmp_path / "h.db")
    ingest(s, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc")], units=[a1, *others, annex],
                                           references=[ref(a1, "Annex I", "annex-1")]), corpus="w", adapter="test")
    return s


def test_a_held_back_passage_leads_a_hop_and_is_shown_beside_what_it_leads_to(tmp_path):
    s = _lanterns_citing(tmp_path)

    def run(**kw):
        return retrieve("lanterns lit at dusk", store=s, embedder=HashEmbedder(), corpus="w",
                        settings=RetrievalSettings(k=5, mode="bm25", per_unit=2, hop_decay=1.0, hop_floor=1.0, **kw))
    on, off = run(), run(held_back_hops=False)
    # Without the lead, Annex I is out of reach: the paragraph that cites it is not among the hits.
    assert "annex-1" not in [h.unit_id for h in off.hits]
    assert [h.unit_id for h in off.hits].count("article-1") == 2
    by_part = {(h.unit_id, h.part): h for h in on.hits}
    annex = next(h for h in on.hits if h.unit_id == "annex-1")
    lead = by_part[("article-1", "3")]  # shown, so "followed from" names a shown source
    assert [v.label for v in annex.via] == ["article-1(3)"]
    assert "past its limit of passages" in annex.why and "cites annex-1" in lead.why
    assert len(on.hits) == 5 and not lead.via
    # A lead brings no more of its own unit, and never more than the slots it needs.
    assert [h.unit_id for h in on.hits].count("article-1") == 3


def test_a_held_back_passage_is_not_shown_when_nothing_it_cites_earns_a_slot(tmp_path):
    s = _lanterns_citing(tmp_path)
    r = retrieve("lanterns lit at dusk", store=s, embedder=HashEmbedder(), corpus="w",
                 settings=RetrievalSettings(k=5, mode="bm25", per_unit=2, hop_decay=0.1, hop_floor=0.0))
    assert [h.unit_id for h in r.hits].count("article-1") == 2 and "annex-1" not in [h.unit_id for h in r.hits]


class _Topical:
    """An embedder that places texts by topic: the transparency duty, a machine register, an off switch."""

    model_id, dim = "topical-3", 3

    def embed(self, texts, *, progress=None):
        def vec(t: str) -> list[float]:
            if "chatbots" in t or "natural persons" in t:
                return [1.0, 0.0, 0.0]
            if "register" in t:
                return [0.5, 0.87, 0.0]
            return [0.0, 0.2, 0.98]
        return np.array([vec(t) for t in texts], dtype=np.float32)


def test_bm25_weighs_by_the_share_of_the_question_words_the_corpus_writes(tmp_path):
    # The corpus writes "users" and "machine" but none of "chatbots", "tell", "talking": BM25 ranks on two
    # generic words while the dense signal read the whole question, so its first hit must lead.
    units = [unit("article-1", "Users of a machine must register the machine with the users' office."),
             unit("article-2", "Providers shall inform natural persons that they interact with an AI system."),
             unit("article-3", "The machine is switched off at night.")]
    s = SQLiteStore(tmp_path / "k.db")
    ingest(s, _Topical(), ParsedCorpus(documents=[Document(doc_id="doc")], units=units), corpus="t",
           adapter="test")
    q = "Do chatbots have to tell users they are talking to a machine?"

    def first(**kw) -> str:
        return retrieve(q, store=s, embedder=_Topical(), corpus="t", settings=RetrievalSettings(hops=0, **kw)
                        ).hits[0].unit_id

    assert s.known_terms("t", ["chatbots", "tell", "users", "talking", "machine"], Filters()) == {"users", "machine"}
    assert first(known_power=0.0) == "article-1"  # 0.4 x BM25 first + 0.6 x a middling cosine
    assert first() == "article-2"  # BM25's share is 0.4 x 2/5
    # a question in the corpus's own words keeps the full share
    assert retrieve("Must users register the machine?", store=s, embedder=_Topical(), corpus="t",
                    settings=RetrievalSettings(hops=0)).hits[0].unit_id == "article-1"
    with pytest.raises(ValidationError, match="known_power must be between 0 and 4"):
        RetrievalSettings(known_power=-1)
