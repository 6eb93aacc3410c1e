"""Embedder choice and settings, without loading a model."""

import pytest

from anchor_core.embeddings import EMBEDDERS, HashEmbedder, MiniLMEmbedder, make_embedder
from anchor_core.errors import ConfigError


def test_names_and_model_ids():
    assert {"minilm", "minilm-fp32", "minilm-int8", "hash"} <= set(EMBEDDERS)
    fp32, int8 = make_embedder("minilm-fp32"), make_embedder("minilm-int8")
    # the fp32 id is what existing stores and caches hold; the int8 id must differ from it
    assert fp32.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert int8.model_id == "sentence-transformers/all-MiniLM-L6-v2-int8" and int8.quantize
    assert MiniLMEmbedder.model_id == fp32.model_id  # the class attribute is not changed by an int8 instance
    assert isinstance(make_embedder("hash"), HashEmbedder)


def test_unknown_name_lists_the_choices():
    with pytest.raises(ConfigError, match="minilm-int8"):
        make_embedder("minilm-int4")


@pytest.mark.parametrize("kwargs", [{"batch_size": 0}, {"threads": 0}])
def test_bad_settings_name_the_value(kwargs):
    with pytest.raises(ValueError, match=f"{next(iter(kwargs))} must be greater than 0"):
        MiniLMEmbedder(**kwargs)


def test_threads_default_to_usable_cpus():
    assert MiniLMEmbedder().threads >= 1 and MiniLMEmbedder(threads=1).threads == 1


def test_a_store_with_corpora_of_two_models_answers_both_through_the_cli(tmp_path, monkeypatch, capsys):
    """Each corpus records its model; queries (and uploads into it) use that model whatever
    ANCHOR_EMBEDDER says now, so changing the default never breaks a stored corpus."""
    from anchor_core.cli import main
    from anchor_core.config import Settings
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.indexing import ingest
    from anchor_core.stores.sqlite import SQLiteStore
    from tests.stores.contract import grouped_corpus

    store = SQLiteStore(Settings.from_env().sqlite.path)
    ingest(store, HashEmbedder(256), grouped_corpus(), corpus="narrow", adapter="test")
    ingest(store, HashEmbedder(384), grouped_corpus(), corpus="wide", adapter="test")
    assert {c.name: c.embedder for c in store.corpora()} == {"narrow": "hash-bow-256", "wide": "hash-bow-384"}
    for corpus in ("narrow", "wide"):
        assert main(["retrieve", "invoices signatures", "--corpus", corpus, "--mode", "dense"]) == 0
        assert "fin-1" in capsys.readouterr().out
    doc = tmp_path / "note.md"
    doc.write_text("# Note\n\nInvoices are archived for ten years.\n")
    assert main(["ingest", "--path", str(doc), "--corpus", "narrow", "-q"]) == 0
    assert SQLiteStore(Settings.from_env().sqlite.path).corpus("narrow").embedder == "hash-bow-256"


def test_embedder_for_a_recorded_model():
    from anchor_core.embeddings import MiniLMEmbedder, corpus_embedder, embedder_for
    from anchor_core.errors import ConfigError

    int8 = embedder_for("sentence-transformers/all-MiniLM-L6-v2-int8")
    assert isinstance(int8, MiniLMEmbedder) and int8.quantize and int8._model is None  # loads on first use
    assert embedder_for("sentence-transformers/all-MiniLM-L6-v2").model_id == MiniLMEmbedder.model_id
    assert embedder_for("hash-bow-0") is None and embedder_for("someone/else") is None
    current = embedder_for("hash-bow-384")
    assert corpus_embedder(current, "hash-bow-384") is current
    with pytest.raises(ConfigError, match="re-ingest"):
        corpus_embedder(current, "someone/else")
