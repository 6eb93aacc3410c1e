"""The LLM path of ask against a local fake of the OpenAI-compatible chat API: writing, repair,
fallbacks (unreachable, rate-limited, wrong key, malformed), refusal, judge and decomposition."""

from __future__ import annotations

import json

import pytest

from anchor_core.ask import LLM, AskSettings, ask
from anchor_core.ask.llm import GroqChatClient, HTTPChatClient, LLMAuthError, LLMConfig, LLMUnavailable
from anchor_core.cli import main
from anchor_core.config import llm_config
from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import ConfigError
from anchor_core.render import to_json
from tests.ask_fixtures import drone_store
from tests.fake_llm import FakeLLM

Q = "Must drone operators register before the first flight?"
KEY = "sk-test-secret-123"


@pytest.fixture
def fake():
    with FakeLLM() as f:
        yield f


@pytest.fixture
def store(tmp_path):
    return drone_store(tmp_path / "llm.db")


def llm_for(fake, **kw) -> LLM:
    cfg = LLMConfig("openai-compatible", fake.url, KEY, "big-model", "small-model", timeout=kw.get("timeout", 5.0),
                    retries=kw.get("retries", 1))
    return LLM(HTTPChatClient(cfg), cfg.writer_model, cfg.judge_model)


def run(store, llm, q=Q, **kw):
    return ask(q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings(**kw), llm=llm)


def test_llm_writer_answer_is_decomposed_and_anchored(fake, store):
    fake.replies = ["Yes. Drone operators shall register with the national aviation authority before the first "
                    "flight [1]. The registration must be renewed every three years [2].",
                    json.dumps({"claims": [
                        {"text": "Drone operators must register with the national aviation authority before the "
                                 "first flight", "sources": [1]},
                        {"text": "Registration shall be renewed every three years", "sources": [2]}]})]
    r = run(store, llm_for(fake))
    assert not r.refused and r.models["writer"] == "llm:big-model" and r.models["decomposer"] == "llm:small-model"
    assert len(r.claims) == 2 and all(c.supported for c in r.claims)
    assert {c.anchor.unit_id for c in r.claims} == {"article-3"}
    sent = fake.requests[0]
    assert sent["body"]["model"] == "big-model" and sent["headers"]["Authorization"] == f"Bearer {KEY}"
    prompt = sent["body"]["messages"][1]["content"]
    assert "[1] Article 3(1)" in prompt and Q in prompt
    assert fake.requests[1]["body"]["response_format"] == {"type": "json_object"}


def test_claim_with_the_wrong_marker_is_flagged(fake, store):
    fake.replies = ["Drone operators shall register with the national aviation authority before the first flight "
                    "[2].", "not json at all"]
    r = run(store, llm_for(fake))
    c = r.claims[0]
    assert c.supported and "wrong_source" in c.flags and c.cited == [2]
    assert any("names the wrong source" in x for x in c.reasons)
    assert any("LLM decomposition failed" in n for n in r.notes)  # the rules split it instead
    assert r.models["decomposer"] == "rules"


def test_malformed_output_is_repaired_once(fake, store):
    fake.replies = ["Operators register first.",  # no markers
                    "Drone operators shall register with the national aviation authority before the first flight "
                    "[1].", json.dumps({"claims": []})]
    r = run(store, llm_for(fake))
    assert not r.refused and r.models["writer"] == "llm:big-model"
    assert any("asked for a repair" in n for n in r.notes)
    assert fake.requests[1]["body"]["messages"][-1]["role"] == "user"
    assert "no [n] source markers" in fake.requests[1]["body"]["messages"][-1]["content"]


def test_still_malformed_falls_back_to_the_extractive_writer(fake, store):
    fake.replies = ["Operators register first.", "Operators register first [9]."]
    r = run(store, llm_for(fake))
    assert not r.refused and r.models["writer"] == "extractive"
    assert any("stayed malformed" in n for n in r.notes)
    assert any(e.stage == "write" and e.decision == "fallback" for e in r.trace)


def test_writer_refusal_is_a_refusal_with_its_reason(fake, store):
    fake.replies = ["INSUFFICIENT: the sources do not say which authority handles registration abroad."]
    r = run(store, llm_for(fake))
    assert r.refused and r.reason_code == "writer_refused" and "registration abroad" in r.reason


def test_unreachable_llm_falls_back_and_says_so(store):
    cfg = LLMConfig("openai-compatible", "http://127.0.0.1:9", None, "m", "j", timeout=1.0, retries=0)
    r = run(store, LLM(HTTPChatClient(cfg), "m", "j"))
    assert not r.refused and r.models["writer"] == "extractive"
    assert any("unreachable" in n for n in r.notes)


def test_rate_limit_is_retried_then_succeeds(fake, store):
    fake.replies = [(429, {"error": {"message": "slow down"}}),
                    "Drone operators shall register with the national aviation authority before the first flight "
                    "[1].", "{}"]
    r = run(store, llm_for(fake, retries=2))
    assert r.models["writer"] == "llm:big-model" and not r.refused


def test_timeout_and_persistent_rate_limit_raise_unavailable(fake):
    client = HTTPChatClient(LLMConfig("openai-compatible", fake.url, None, "m", "j", timeout=0.5, retries=1))
    fake.replies = ["sleep:2", "sleep:2"]
    with pytest.raises(LLMUnavailable, match="timed out"):
        client.complete([{"role": "user", "content": "hi"}], model="m")
    fake.replies = [(429, {}), (429, {})]
    with pytest.raises(LLMUnavailable, match="rate-limited"):
        client.complete([{"role": "user", "content": "hi"}], model="m")


def test_wrong_key_is_a_clear_message_that_never_shows_the_key(fake, store):
    fake.replies = [(401, {"error": {"message": f"invalid key {KEY}"}})]
    client = HTTPChatClient(LLMConfig("openai-compatible", fake.url, KEY, "m", "j"))
    with pytest.raises(LLMAuthError) as err:
        client.complete([{"role": "user", "content": "hi"}], model="m")
    assert KEY not in str(err.value) and "rejected the API key" in str(err.value)
    fake.replies = [(401, {})]
    r = run(store, llm_for(fake))
    assert r.models["writer"] == "extractive" and KEY not in to_json(r)
    assert KEY not in repr(LLMConfig("groq", "u", KEY))


def test_borderline_evidence_goes_to_the_llm_judge(fake, store, monkeypatch):
    from anchor_core.ask import gate as g

    real = g.decide

    def borderline(sig, *, hits, model=None, **kw):
        d = real(sig, hits=hits, model=model, **kw)
        d.verdict = "borderline"
        return d

    monkeypatch.setattr(g, "decide", borderline)
    fake.replies = [json.dumps({"answerable": False, "reason": "the sources talk about drones, not about boats"})]
    r = run(store, llm_for(fake), rewrite=False)
    assert r.refused and r.gate.judge == "small-model" and "not about boats" in r.reason
    assert fake.requests[0]["body"]["model"] == "small-model"


def test_groq_client_speaks_to_the_same_api(fake, store):
    fake.replies = ["Drone operators shall register with the national aviation authority before the first flight "
                    "[1].", "{}"]
    cfg = LLMConfig("groq", fake.url + "/openai/v1", KEY, "openai/gpt-oss-120b", "openai/gpt-oss-20b", retries=0)
    r = run(store, LLM(GroqChatClient(cfg), cfg.writer_model, cfg.judge_model))
    assert r.models["writer"] == "llm:openai/gpt-oss-120b" and not r.refused
    assert fake.requests[0]["path"] == "/openai/v1/chat/completions"
    fake.replies = [(401, {"error": {"message": "Invalid API Key"}})]
    with pytest.raises(LLMAuthError, match="GROQ_API_KEY"):
        GroqChatClient(cfg).complete([{"role": "user", "content": "x"}], model="m")


def test_configuration_from_the_environment():
    assert llm_config({}) is None
    g = llm_config({"GROQ_API_KEY": KEY})
    assert g.provider == "groq" and g.writer_model == "openai/gpt-oss-120b" and g.judge_model == "openai/gpt-oss-20b"
    o = llm_config({"GROQ_API_KEY": KEY, "ANCHOR_LLM_BASE_URL": "http://localhost:8080/v1/",
                         "ANCHOR_LLM_MODEL": "llama"})
    assert o.provider == "openai-compatible" and o.base_url == "http://localhost:8080/v1" and o.writer_model == "llama"
    with pytest.raises(ConfigError, match="http"):
        llm_config({"ANCHOR_LLM_BASE_URL": "localhost:8080"})


def test_cli_uses_the_configured_endpoint(fake, tmp_path, capsys, monkeypatch):
    from anchor_core.config import Settings
    from anchor_core.indexing import ingest
    from anchor_core.stores import open_store
    from tests.ask_fixtures import drone_corpus

    ingest(open_store(Settings.from_env()), HashEmbedder(), drone_corpus(), corpus="drones", adapter="test")
    monkeypatch.setenv("ANCHOR_LLM_BASE_URL", fake.url)
    monkeypatch.setenv("ANCHOR_LLM_API_KEY", KEY)
    fake.replies = ["Drone operators shall register with the national aviation authority before the first flight "
                    "[1].", "{}"]
    assert main(["ask", Q, "--corpus", "drones", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["models"]["writer"].startswith("llm:") and KEY not in out
    assert main(["ask", Q, "--corpus", "drones", "--no-llm", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"]["writer"] == "extractive"
