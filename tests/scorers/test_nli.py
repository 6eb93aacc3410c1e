"""NLIScorer against a tiny randomly initialised BERT built here (no download, a second to build)."""

from pathlib import Path

import pytest

from anchor_core.errors import ModelMissing
from anchor_core.scorers import Scorer, make_scorer
from anchor_core.scorers.nli import NLIScorer, entailment_index

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

WORDS = ("the a providers provider shall may not register system systems in eu database fine is of eur "
         "deployers must keep logs for six months data controller process").split()
PREMISES = ["providers shall register the system in the eu database", "the fine is 35", "deployers must keep logs"]
HYPOTHESES = ["providers may register", "the fine is 20", "deployers keep logs for six months"]


def build(path: Path, id2label: dict[int, str], seed: int = 0) -> Path:
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *"0123456789", "##0", "##5"]
    path.mkdir(parents=True, exist_ok=True)
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True)
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=37, max_position_embeddings=64, num_labels=len(id2label),
                                     id2label=id2label, label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(seed)
    model = transformers.BertForSequenceClassification(config).eval()
    model.save_pretrained(str(path))
    tokenizer.save_pretrained(str(path))
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("nli") / "tiny", {0: "contradiction", 1: "entailment"})


@pytest.fixture(scope="module")
def scorer(tiny) -> NLIScorer:
    return NLIScorer(tiny)


def manual_probs(s: NLIScorer, label: int) -> list[float]:
    """One pair at a time, no padding, straight softmax: what the batched scorer must reproduce."""
    out = []
    with torch.inference_mode():
        for p, h in zip(PREMISES, HYPOTHESES):
            logits = s._model(**s._tokenizer(p, h, return_tensors="pt")).logits
            out.append(float(torch.softmax(logits, -1)[0, label]))
    return out


def test_scores_are_probabilities_of_the_entailment_label(scorer):
    assert isinstance(scorer, Scorer) and scorer.name == "nli"
    assert scorer.label == 1 and scorer.label_name == "entailment"
    scores = scorer.score(PREMISES, HYPOTHESES)
    assert len(scores) == 3 and all(0.0 <= x <= 1.0 for x in scores)
    assert scores == pytest.approx(manual_probs(scorer, 1), abs=1e-5)


def test_deterministic_and_independent_of_batching(tiny, scorer):
    a = NLIScorer(tiny, batch_size=1).score(PREMISES, HYPOTHESES)
    b = scorer.score(PREMISES, HYPOTHESES)
    assert a == pytest.approx(b, abs=1e-5)
    assert scorer.score(PREMISES, HYPOTHESES) == b
    assert scorer.score([], []) == []


def test_label_found_by_name_in_any_position(tmp_path):
    s = NLIScorer(build(tmp_path / "three", {0: "ENTAILMENT", 1: "neutral", 2: "contradiction"}, seed=1))
    assert s.label == 0 and s.label_name == "ENTAILMENT"
    assert s.score(PREMISES, HYPOTHESES) == pytest.approx(manual_probs(s, 0), abs=1e-5)


def test_label_mapping_rules():
    assert entailment_index({0: "LABEL_0", 1: "LABEL_1"}, 2) == 1
    assert entailment_index({0: "unsupported", 1: "supported"}, 2) == 1
    assert entailment_index({0: "not_entailment", 1: "entailment"}, 2) == 1
    with pytest.raises(ModelMissing, match="label="):
        entailment_index({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, 3)
    with pytest.raises(ModelMissing, match="label="):
        entailment_index({0: "not_entailment", 1: "other"}, 2)


def test_explicit_label_and_long_input(tiny):
    s = NLIScorer(tiny, label=0)
    assert s.score(PREMISES, HYPOTHESES) == pytest.approx(manual_probs(s, 0), abs=1e-5)
    long = " ".join(["the provider shall register the system"] * 40)  # beyond 64 positions: truncated
    assert 0.0 <= s.score([long], [long])[0] <= 1.0
    with pytest.raises(ValueError, match="label"):
        NLIScorer(tiny, label=5)


def test_explain_reports_the_probability(scorer):
    p = scorer.score(PREMISES[:1], HYPOTHESES[:1])[0]
    scorer.threshold = 1.0
    try:
        assert scorer.explain(PREMISES[0], HYPOTHESES[0]) == [
            f"NLI model gives P(entailment) = {p:.2f}, below the threshold 1.00"]
        scorer.threshold = 0.0
        assert scorer.explain(PREMISES[0], HYPOTHESES[0]) == []
    finally:
        scorer.threshold = 0.5


def test_missing_or_invalid_directory(tmp_path):
    with pytest.raises(ModelMissing, match="does not exist"):
        NLIScorer(tmp_path / "absent")
    with pytest.raises(ModelMissing, match="no config.json"):
        NLIScorer(tmp_path)
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelMissing, match="loadable"):
        NLIScorer(tmp_path)


def test_make_scorer_builds_it(tiny):
    s = make_scorer("nli", model_dir=str(tiny), threshold=0.6)
    assert isinstance(s, NLIScorer) and s.threshold == 0.6
