import pytest

from anchor_core.errors import ConfigError
from anchor_core.scorers import SCORERS, Scorer, make_scorer


def test_registry_names():
    assert set(SCORERS) == {"lexical", "learned", "nli", "llm"}


def test_unknown_scorer():
    with pytest.raises(ConfigError, match="choose one of: lexical, learned, nli, llm"):
        make_scorer("bleu")


def test_nli_and_llm_need_their_argument():
    with pytest.raises(ConfigError, match="model_dir"):
        make_scorer("nli")
    with pytest.raises(ConfigError, match="complete"):
        make_scorer("llm")


def test_bad_option_is_a_config_error():
    with pytest.raises(ConfigError, match="lexical"):
        make_scorer("lexical", embedder=None)


def test_llm_and_learned_satisfy_the_protocol(embedder):
    assert isinstance(make_scorer("llm", complete=lambda p: "{}"), Scorer)
    assert isinstance(make_scorer("learned", embedder=embedder), Scorer)
