"""The contradiction reader: a supported claim whose quote the trained reader reads as stating otherwise is
flagged for review (never headlined verified), its verdict left to the rules; the shipped model loads offline."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from anchor_core import crossencoder
from anchor_core.check import check
from anchor_core.report import Review, Source
from anchor_core.scorers.lexical import LexicalScorer
from anchor_core.verify import verify_answer
from tests.test_headlines import FORMATS, says_verified, shown

SOURCE = ("1. Providers shall keep the logs for at least six months. 2. Deployers shall not use the system for "
          "purposes other than those stated in the instructions for use.")
KEPT = "Providers shall keep the logs for at least six months."


class FakeReader:
    name = "fake-reader"
    threshold = 0.8

    def __init__(self, score: float) -> None:
        self.value = score
        self.calls: list[tuple[str, str]] = []

    def score(self, quotes, claims):
        self.calls += list(zip(quotes, claims))
        return [self.value] * len(quotes)


class Claim:
    def __init__(self, text: str) -> None:
        self.text, self.cited = text, [1]


def run(reader, *texts: str):
    return check([Claim(t) for t in texts], [Source.given(1, "art12", SOURCE)], scorer=LexicalScorer(),
                 cited_only=True, split_atoms=True, reader=reader)


def test_a_supported_claim_read_as_stating_otherwise_is_flagged_not_contradicted():
    reader = FakeReader(0.93)
    [c] = run(reader, KEPT)
    assert c.verdict == "supported" and c.status == "flagged"
    assert c.flags == ["may_state_otherwise"]
    assert reader.calls == [(KEPT[:-1], KEPT[:-1])]  # each atom against its own quote
    assert re.search(r"fake-reader\) scores 0\.930 ≥ 0\.800 that “Providers shall keep the logs", c.reasons[0])
    assert "no rule names a difference" in c.reasons[0]


def test_below_the_threshold_nothing_changes():
    [c] = run(FakeReader(0.79), KEPT)
    assert c.verdict == "supported" and c.status == "supported" and not c.flags


def test_only_supported_claims_are_read():
    reader = FakeReader(0.99)
    flipped = "Deployers shall use the system for purposes other than those stated in the instructions for use."
    contra, missing = run(reader, flipped, "The Commission publishes annual statistics on energy use by servers.")
    assert contra.verdict == "contradicted" and missing.verdict == "not_found"
    assert reader.calls == []
    assert "may_state_otherwise" not in contra.flags + missing.flags


def test_without_a_reader_the_rules_alone_decide():
    [c] = run(None, KEPT)
    assert c.verdict == "supported" and not c.flags


def test_verify_records_the_reader_and_can_run_without_one():
    r = verify_answer(f'{KEPT} <cite id="art12"/>', {"art12": SOURCE}, scorer=LexicalScorer(), reader=FakeReader(0.9))
    assert r.models["reader"] == "fake-reader" and r.claims[0].flags == ["may_state_otherwise"]
    plain = verify_answer(f'{KEPT} <cite id="art12"/>', {"art12": SOURCE}, scorer=LexicalScorer(), reader=None)
    assert plain.models["reader"] == "off" and not plain.claims[0].flags
    # the tests run with ANCHOR_READER_MODEL=off (conftest): the default reader is then none
    assert verify_answer(f'{KEPT} <cite id="art12"/>', {"art12": SOURCE},
                         scorer=LexicalScorer()).models["reader"] == "off"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_flagged_claim_is_never_headlined_verified_until_a_reviewer_accepts_it(fmt):
    r = verify_answer(f'{KEPT} <cite id="art12"/>', {"art12": SOURCE}, scorer=LexicalScorer(), reader=FakeReader(0.9))
    a = r.assessment()
    assert a.state != "verified"
    text = shown(r, fmt)
    assert "may state otherwise" in text
    if fmt != "json":
        assert not says_verified(text)
    accepted = r.model_copy(update={"reviews": [Review(claim=1, verdict="accepted", reviewer="Ada")]})
    assert accepted.assessment().state == "verified"


def test_the_setting_switches_the_default_reader(monkeypatch):
    assert crossencoder.default_reader("off") is None
    monkeypatch.setenv("ANCHOR_READER_MODEL", "sometimes")
    from anchor_core.errors import ConfigError

    with pytest.raises(ConfigError, match="ANCHOR_READER_MODEL"):
        crossencoder.default_reader()


def test_the_card_records_its_data_threshold_and_held_out_figures():
    c = crossencoder.card("contradicts")
    assert c["top_layers"] == 2 and 0.5 <= c["threshold"] < 1
    assert "eval/claims" in c["data"] and "WiCE" in c["data"]
    assert c["leave_one_file_out"], "the card must carry the leave-one-file-out figures"
    for fold in c["leave_one_file_out"].values():
        assert re.fullmatch(r"\d+/\d+", fold["faithful paraphrases flagged"])
    size = resources.files("anchor_core").joinpath("data/contradicts.safetensors").stat().st_size  # type: ignore[attr-defined]
    assert size < 25_000_000


@pytest.mark.model
def test_the_shipped_reader_reads_a_flipped_obligation_above_its_own_sentence():
    reader = crossencoder.default_reader()
    assert reader is not None and reader.name == "contradicts"
    source = "Deployers must not use the high-risk AI system for purposes other than those stated in the instructions."
    same, flipped = reader.score([source, source], [
        source, "Using the high-risk AI system for purposes beyond those in the instructions is something deployers "
                "are required to do."])
    assert same < reader.threshold and flipped > same


def test_an_llm_answer_is_read_and_an_extractive_one_is_not(tmp_path, monkeypatch):
    import json

    from anchor_core.ask import AskSettings, ask
    from anchor_core.ask import pipeline as pipeline_mod
    from anchor_core.embeddings import HashEmbedder
    from tests.ask_fixtures import drone_store
    from tests.fake_llm import FakeLLM
    from tests.test_llm import llm_for

    reader = FakeReader(0.95)
    monkeypatch.setattr(pipeline_mod, "default_reader", lambda: reader)
    store = drone_store(tmp_path / "reader.db")
    q = "Must drone operators register before the first flight?"
    with FakeLLM() as fake:
        fake.replies = ["Drone operators shall register with the national aviation authority before the first "
                        "flight [1].",
                        json.dumps({"claims": [{"text": "Drone operators must register with the national aviation "
                                                        "authority before the first flight", "sources": [1]}]})]
        r = ask(q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings(), llm=llm_for(fake))
    assert r.models["reader"] == "fake-reader" and reader.calls
    assert r.claims[0].flags == ["may_state_otherwise"] and r.assessment().state != "verified"
    reader.calls.clear()
    offline = ask(q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings())
    assert reader.calls == [] and "reader" not in offline.models


@pytest.mark.model
def test_a_quote_longer_than_the_model_reads_is_cut_not_an_error():
    reader = crossencoder.default_reader()
    assert reader is not None
    long_quote = " ".join(["The provider shall keep the technical documentation up to date."] * 60)
    [s] = reader.score([long_quote], ["The provider must keep the technical documentation up to date."])
    assert 0.0 <= s <= 1.0
