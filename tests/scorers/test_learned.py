import json

import numpy as np
import pytest

from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import ModelMissing
from anchor_core.scorers.features import ALL_FEATURES, LEXICAL_FEATURES
from anchor_core.scorers.learned import LearnedScorer
from anchor_core.scorers.params import DATA_DIR

SRC = "Providers of high-risk AI systems shall register the system in the EU database before placing it on the market."


@pytest.fixture(scope="module", params=["plain", "hash-embedder"])
def scorer(request) -> LearnedScorer:
    return LearnedScorer() if request.param == "plain" else LearnedScorer(HashEmbedder())


def one(s: LearnedScorer, premise: str, hypothesis: str) -> float:
    return s.score([premise], [hypothesis])[0]


def test_coefficient_file_loads_both_sets():
    params = json.loads((DATA_DIR / "learned.json").read_text())
    with_emb, without = params["models"]["with_embedding"], params["models"]["without_embedding"]
    assert with_emb["features"] == list(ALL_FEATURES) and without["features"] == list(LEXICAL_FEATURES)
    assert "not an entailment probability" in params["description"].lower()
    cal = params["calibration"]
    assert {d["file"] for d in cal["data"]} >= {"wice/claim_dev.jsonl"}
    assert all(len(d["sha256"]) == 64 for d in cal["data"])
    assert cal["command"].startswith("python -m eval.train_scorer")
    assert LearnedScorer().feature_names == list(LEXICAL_FEATURES)
    assert LearnedScorer(HashEmbedder()).feature_names == list(ALL_FEATURES)


def test_signs_make_the_score_monotone_in_coverage(scorer):
    model = scorer.model
    base = {f: model.reference.get(f, 0.0) for f in model.features}
    base["length_ratio"] = -1.0
    scores = []
    for cov in np.linspace(0, 1, 11):
        x = dict(base, cov_uni=cov, cov_bi=cov, missing_share=1 - cov, missing_run=1 - cov)
        scores.append(float(model.predict(np.array([[x[f] for f in model.features]]))[0]))
    assert all(b >= a for a, b in zip(scores, scores[1:]))
    assert scores[-1] > scores[0]


def test_identical_text_is_supported(scorer):
    assert one(scorer, SRC, SRC) >= scorer.threshold
    assert one(scorer, SRC, "Providers shall register high-risk AI systems in the EU database.") >= scorer.threshold


def test_scores_are_parallel_probabilities(scorer):
    out = scorer.score([SRC, SRC, "Cats sleep."], [SRC, "Dogs bark loudly at night.", SRC])
    assert len(out) == 3 and all(0.0 <= s <= 1.0 for s in out)
    assert out[0] > out[1]
    assert scorer.score([], []) == []
    with pytest.raises(ValueError, match="parallel"):
        scorer.score([SRC], [])


def test_amount_mismatch_is_unsupported_and_named(scorer):
    src = "The administrative fine for this infringement is EUR 35 000 000."
    assert one(scorer, src, "The administrative fine for this infringement is 35 million euros.") >= scorer.threshold
    wrong = "The administrative fine for this infringement is EUR 20 000 000."
    assert one(scorer, src, wrong) < scorer.threshold
    assert "amount EUR 20 000 000 not in the quoted span" in scorer.explain(src, wrong) or \
        "amount 20 000 000 not in the quoted span" in scorer.explain(src, wrong)


def test_year_mismatch_lowers_the_score_and_is_named(scorer):
    src = "The regulation applies from 2018."
    assert one(scorer, src, "The regulation applies from 2019.") < min(one(scorer, src, src), scorer.threshold)
    assert "number 2019 not in the quoted span" in scorer.explain(src, "The regulation applies from 2019.")


def test_negation_flip(scorer):
    src = "Providers shall not place the system on the market."
    claim = "Providers shall place the system on the market."
    assert one(scorer, src, claim) < scorer.threshold < one(scorer, src, src)
    assert scorer.explain(src, claim)[0] == "negation differs: source says 'shall not'"


def test_modality_change(scorer):
    src = "Member States may designate a national authority for this purpose."
    claim = "Member States shall designate a national authority for this purpose."
    assert one(scorer, src, claim) < scorer.threshold < one(scorer, src, src)
    assert "modality differs: source 'may', claim 'shall'" in scorer.explain(src, claim)


def test_dropped_qualifier_and_missing_entity_are_explained(scorer):
    src = "The provider shall register the system, unless it is exempted by the authority."
    assert "qualifier dropped: source says 'unless', claim does not" in \
        scorer.explain(src, "The provider shall register the system.")
    assert "entity 'GDPR' not in the quoted span" in scorer.explain(
        "The regulation protects personal data.", "The GDPR protects personal data.")


def test_explain_is_empty_for_a_verbatim_claim(scorer):
    assert scorer.explain(SRC, SRC) == []


def test_threshold_override_and_bad_files(tmp_path):
    assert LearnedScorer(threshold=0.7).threshold == 0.7
    with pytest.raises(ValueError, match="threshold"):
        LearnedScorer(threshold=-0.1)
    with pytest.raises(ModelMissing):
        LearnedScorer(params_path=tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelMissing, match="not valid JSON"):
        LearnedScorer(params_path=tmp_path / "bad.json")
    (tmp_path / "empty.json").write_text('{"models": {}}', encoding="utf-8")
    with pytest.raises(ValueError, match="without_embedding"):
        LearnedScorer(params_path=tmp_path / "empty.json")
