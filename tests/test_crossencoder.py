"""The shipped ``answers`` cross-encoder: loads offline from the package, scores pairs, and the
answerability model falls back to the explainable features without it."""

import json
from importlib import resources

import pytest

from anchor_core import crossencoder
from anchor_core.ask import answerable
from anchor_core.errors import ModelMissing
from anchor_core.models import Hit


def hit(text: str, heading: str = "Article 1") -> Hit:
    return Hit(chunk_id="c", unit_id="u", doc_id="d", kind="article", heading=heading, start=0, end=len(text),
               text=text, score=1.0)


def test_the_card_records_where_the_weights_came_from_and_how_they_held_out():
    c = crossencoder.card("answers")
    assert c["top_layers"] >= 1 and c["max_length"] >= 64
    assert "ObliQA" in c["data"] and "eval/questions" in c["data"]
    assert 0.5 < c["validation_auc"] <= 1.0
    size = resources.files("anchor_core").joinpath("data/answers.safetensors").stat().st_size  # type: ignore[attr-defined]
    assert size < 25_000_000


def test_an_unknown_task_is_named():
    with pytest.raises(ValueError, match="unknown cross-encoder task"):
        crossencoder.card("summaries")


def test_the_fallback_model_is_used_without_the_cross_encoder():
    spec = answerable.model()
    assert "answers" in spec["weights"]
    assert "answers" not in spec["fallback"]["weights"]
    a = answerable.Answerability(analysis=answerable.analyse("How long are logs kept?"), focus=1.0, tied=1.0,
                                 dense=0.6)
    assert answerable.spec_for(a) is spec["fallback"]
    a.answers = 0.9
    assert answerable.spec_for(a) is spec


def test_the_cross_encoder_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("ANCHOR_ANSWER_MODEL", "off")
    assert answerable.answer_scores("How long are logs kept?", [hit("Logs are kept for six months.")]) is None


def test_the_cross_encoder_is_opt_in(monkeypatch):
    """It changed no refusal on the questions measured and slows ``ask`` down: the default does not load it."""
    from anchor_core.config import Settings

    monkeypatch.delenv("ANCHOR_ANSWER_MODEL", raising=False)
    monkeypatch.setattr(crossencoder, "shared", lambda task: pytest.fail("the cross-encoder was loaded"))
    assert answerable.answer_scores("How long are logs kept?", [hit("Logs are kept for six months.")]) is None
    assert Settings.from_env({}).answer_model == "off"
    assert Settings.from_env({"ANCHOR_ANSWER_MODEL": "answers"}).answer_model == "answers"


def test_weights_that_do_not_fit_the_base_model_are_refused(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    import numpy as np
    from safetensors.numpy import save_file

    data = tmp_path / "anchor_core" / "data"
    data.mkdir(parents=True)
    (data / "answers.json").write_text(json.dumps({**crossencoder.card("answers")}), encoding="utf-8")
    save_file({"head.weight": np.zeros((1, 384), dtype=np.float16)}, str(data / "answers.safetensors"))
    real = resources.files

    def files(pkg):
        return data.parent if pkg == "anchor_core" else real(pkg)

    monkeypatch.setattr(crossencoder.resources, "files", files)
    with pytest.raises(ModelMissing, match="do not fit the base model"):
        crossencoder.CrossEncoder("answers").score(["q"], ["p"])


@pytest.mark.model
def test_a_passage_on_the_question_outscores_one_on_another_provision():
    # what the model learned reliably (validation accuracy 0.79 on ObliQA's on-topic non-answers); whether
    # the asked value is there is the job of the ``tied`` feature (held-out accuracy of the model on
    # "value removed" pairs was only 0.71, see the card)
    ce = crossencoder.shared("answers")
    q = "Within how many days must a firm notify the regulator of a change of its auditor?"
    answer = ("A firm must notify the Regulator in writing within 14 days of any change of its auditor, "
              "giving the reasons for the change.")
    other = "The Regulator may publish guidance on the content of annual reports."
    s = ce.score([q, q], [answer, other])
    assert s[0] > s[1] + 0.1
    assert all(0.0 < x < 1.0 for x in s)


@pytest.mark.model
def test_answer_scores_follow_the_hits():
    q = "Within how many days must a firm notify the regulator of a change of its auditor?"
    scores = answerable.answer_scores(q, [hit("The Regulator may publish guidance on annual reports."),
                                          hit("A firm must notify the Regulator within 14 days of any change "
                                              "of its auditor.")])
    assert scores is not None and len(scores) == 2 and scores[1] > scores[0]
    with pytest.raises(ValueError, match="same length"):
        crossencoder.shared("answers").score(["a"], [])


@pytest.mark.model
def test_ask_reads_the_passages_with_the_cross_encoder_and_names_the_model_it_used(tmp_path, monkeypatch):
    from anchor_core.ask import AskSettings, ask
    from anchor_core.embeddings import HashEmbedder
    from tests.ask_fixtures import drone_store

    store = drone_store(tmp_path / "ask.db")
    q = "How often must a drone operator renew the registration?"
    on = ask(q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings())
    assert 0.0 < on.gate.signals["answers"] < 1.0 and on.gate.signals["answer_passage"]
    monkeypatch.setenv("ANCHOR_ANSWER_MODEL", "off")
    off = ask(q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings())
    assert "answers" not in off.gate.signals
    assert off.gate.score != on.gate.score  # two models, two scores; both from answerable.json
