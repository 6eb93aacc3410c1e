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
