import pytest

from anchor_core.scorers.llm import UNREADABLE, Judgement, LLMJudge, parse_judgement


@pytest.mark.parametrize("answer, expected", [
    ('{"supported": true, "score": 0.9, "reason": "stated in Article 2"}', Judgement(True, 0.9, "stated in Article 2")),
    ('```json\n{"supported": false, "score": 0.1, "reason": "2019 not stated"}\n```',
     Judgement(False, 0.1, "2019 not stated")),
    ('Here is my verdict:\n{"supported": false, "score": 0.2, "reason": "the source says {may}"}\nHope it helps.',
     Judgement(False, 0.2, "the source says {may}")),
    ('{"supported": true, "score": 0.8, "reason": "ok",}', Judgement(True, 0.8, "ok")),
    ("{'supported': True, 'score': 0.7, 'reason': 'paraphrase'}", Judgement(True, 0.7, "paraphrase")),
    ('{"supported": "yes", "score": "0.6"}', Judgement(True, 0.6, "")),
    ('{"supported": true}', Judgement(True, 1.0, "")),
    ('{"score": 1.7, "reason": "sure"}', Judgement(True, 1.0, "sure")),
    ('{"SUPPORTED": false, "Score": -3}', Judgement(False, 0.0, "")),
])
def test_parse_tolerates_fences_prose_and_loose_json(answer, expected):
    assert parse_judgement(answer) == expected


@pytest.mark.parametrize("answer", ["", "I think so.", "{not json at all}", '{"verdict": "yes"}', "```\n```"])
def test_unreadable_answer_scores_zero(answer):
    assert parse_judgement(answer) == Judgement(False, 0.0, UNREADABLE)


def test_judge_scores_explains_and_asks_once_per_pair():
    prompts = []

    def complete(prompt: str) -> str:
        prompts.append(prompt)
        if "2019" in prompt:
            return '{"supported": false, "score": 0.05, "reason": "the source says 2018"}'
        return '{"supported": true, "score": 0.95, "reason": "same date"}'

    judge = LLMJudge(complete)
    src = "The act applies from 2018."
    assert judge.score([src, src], ["It applies from 2019.", "It applies from 2018."]) == [0.05, 0.95]
    assert judge.explain(src, "It applies from 2019.") == ["the source says 2018"]
    assert judge.explain(src, "It applies from 2018.") == []
    assert len(prompts) == 2
    assert "SOURCE:\nThe act applies from 2018." in prompts[0] and "CLAIM:\nIt applies from 2019." in prompts[0]
    assert '"supported"' in prompts[0] and '"score"' in prompts[0] and '"reason"' in prompts[0]


def test_unreadable_judge_is_explained():
    judge = LLMJudge(lambda prompt: "As an AI model I cannot answer")
    assert judge.score(["a"], ["b"]) == [0.0]
    assert judge.explain("a", "b") == [UNREADABLE]


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="callable"):
        LLMJudge("not callable")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threshold"):
        LLMJudge(lambda p: "", threshold=2)
    with pytest.raises(ValueError, match="parallel"):
        LLMJudge(lambda p: "").score(["a"], ["b", "c"])
