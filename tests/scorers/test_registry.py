import pytest

from anchor_core.errors import ConfigError
from anchor_core.scorers import SCORERS, Scorer, build_scorer, make_scorer, scorer_names


def test_registry_names():
    assert set(SCORERS) == {"lexical", "learned", "nli", "llm"}


def test_unknown_scorer():
    with pytest.raises(ConfigError, match="choose one of: learned, lexical, nli, llm"):
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


def test_choice_lists_come_from_what_the_caller_can_give():
    assert scorer_names() == ["learned", "lexical"]
    assert scorer_names(can_give=["llm"]) == ["learned", "lexical", "llm"]
    assert scorer_names(can_give=["llm", "model_dir"]) == list(SCORERS)


def test_default_thresholds_are_the_calibrated_ones(embedder):
    for name in ("learned", "lexical"):
        info = SCORERS[name]
        assert build_scorer(name).threshold == info.default_threshold()
        assert build_scorer(name, embedder=embedder).threshold == info.default_threshold(with_embedder=True)
    assert SCORERS["learned"].default_threshold() != SCORERS["learned"].default_threshold(with_embedder=True)


def test_build_gives_each_scorer_only_what_it_uses(embedder):
    assert build_scorer("lexical", embedder=embedder, llm=None).name == "lexical"
    assert build_scorer("learned", embedder=embedder).embedder is embedder
    with pytest.raises(ConfigError, match="GROQ_API_KEY"):
        build_scorer("llm")
    with pytest.raises(ConfigError, match="--model-dir"):
        build_scorer("nli")


def test_the_llm_judge_asks_the_configured_judge_model():
    sent = []

    class Client:
        def complete(self, messages, *, model, temperature=0.0, max_tokens=800, json_mode=False):
            sent.append((model, json_mode))
            return '{"supported": true, "score": 0.9, "reason": ""}'

    class LLM:
        client = Client()
        judge_model = "judge-1"

    assert build_scorer("llm", llm=LLM()).score(["a"], ["a"]) == [0.9]
    assert sent == [("judge-1", True)]


def test_cli_verify_builds_every_registered_scorer_or_says_what_it_needs(tmp_path, capsys, monkeypatch):
    from anchor_core.cli import main
    from tests.fake_llm import FakeLLM

    for var in ("GROQ_API_KEY", "ANCHOR_LLM_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    ans, src = tmp_path / "a.txt", tmp_path / "s.json"
    ans.write_text('<cite id="s1">The fee is 10 euros</cite>.')
    src.write_text('{"s1": "The fee is 10 euros."}')
    verify = ["verify", "-a", str(ans), "-s", str(src), "--format", "json"]
    assert main([*verify, "--scorer", "nli"]) == 2
    assert "--model-dir" in capsys.readouterr().err
    assert main([*verify, "--scorer", "llm"]) == 2
    assert "GROQ_API_KEY or ANCHOR_LLM_BASE_URL" in capsys.readouterr().err
    with FakeLLM() as fake:
        monkeypatch.setenv("ANCHOR_LLM_BASE_URL", fake.url)
        fake.default = '{"supported": true, "score": 0.95, "reason": ""}'
        code = main([*verify, "--scorer", "llm"])
    out = capsys.readouterr().out
    assert '"scorer": "llm"' in out and code in (0, 1)
