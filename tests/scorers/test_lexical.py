import pytest

from anchor_core.errors import ModelMissing
from anchor_core.scorers import Scorer, make_scorer
from anchor_core.scorers.lexical import LexicalScorer, lexical_score

PREMISE = "Providers of high-risk AI systems shall register the systems in the EU database."


def test_identical_and_unrelated():
    assert lexical_score(PREMISE, PREMISE) == 1.0
    assert lexical_score(PREMISE, "Cats sleep twelve hours.") == 0.0


def test_coverage_ignores_stop_words_and_stems():
    # content words: providers, register, system, database -> all in the premise after stemming
    assert lexical_score(PREMISE, "The providers are registering their system in a database") == 1.0


def test_partial_coverage_is_the_share_of_content_tokens():
    # content: deployers, register, system -> 2 of 3 found
    assert lexical_score(PREMISE, "Deployers register systems") == pytest.approx(2 / 3)


def test_numbers_must_match_exactly():
    src = "The fine is EUR 35 000 000."
    assert lexical_score(src, "a fine of 35 million euros") == 1.0
    assert lexical_score(src, "a fine of 35,000,000") == 1.0
    assert lexical_score(src, "a fine of 36,000,000") == pytest.approx(0.5 * 0.5)


def test_scorer_threshold_comes_from_the_calibration_file():
    s = LexicalScorer()
    assert 0.0 < s.threshold < 1.0
    assert s.calibration["data"][0]["sha256"]
    assert LexicalScorer(threshold=0.3).threshold == 0.3


def test_score_is_parallel_and_checked():
    s = make_scorer("lexical")
    assert isinstance(s, Scorer) and s.name == "lexical"
    assert s.score([PREMISE, PREMISE], [PREMISE, "nothing here"]) == [1.0, 0.0]
    assert s.score([], []) == []
    with pytest.raises(ValueError, match="parallel"):
        s.score([PREMISE], [])


def test_explain_names_numbers_and_words():
    reasons = LexicalScorer().explain("The fine is EUR 35 000 000.",
                                      "Deployers pay a fine of EUR 20 000 000 from 2019.")
    assert "amount 20 000 000 not in the quoted span" in reasons
    assert "number 2019 not in the quoted span" in reasons
    assert any(r.startswith("claim words not in the quoted span: 'deployers', 'pay'") for r in reasons)
    assert LexicalScorer().explain(PREMISE, PREMISE) == []


def test_bad_threshold_and_missing_params(tmp_path):
    with pytest.raises(ValueError, match="threshold"):
        LexicalScorer(threshold=1.5)
    with pytest.raises(ModelMissing, match="train_scorer"):
        LexicalScorer(params_path=tmp_path / "nope.json")
