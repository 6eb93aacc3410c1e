"""Support score from a local sequence-classification cross-encoder (an NLI model, MiniCheck, …).

The model is read from a directory the user names, never from a model hub. The score is the
softmax probability of the model's entailment/supported label for (premise, hypothesis).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from anchor_core.errors import ModelMissing
from anchor_core.scorers.params import check_pairs

log = logging.getLogger(__name__)

_POSITIVE = re.compile(r"^(entail(ment|ed|s)?|support(ed|s)?|consistent|faithful|true|yes)$")


def entailment_index(id2label: dict[int, str] | None, num_labels: int) -> int:
    """Index of the entailment/supported label in ``id2label`` (case-insensitive).

    With two labels and no names (``LABEL_0``/``LABEL_1``), index 1 is taken, the convention
    of binary fact-checkers such as MiniCheck.

    >>> entailment_index({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, 3)
    2
    >>> entailment_index({0: "not_entailment", 1: "entailment"}, 2)
    1
    """
    labels = {int(k): str(v) for k, v in (id2label or {}).items()}
    for idx, label in sorted(labels.items()):
        if _POSITIVE.match(re.sub(r"[^a-z]", "", label.lower())):
            return idx
    generic = all(re.fullmatch(r"label_?\d+", v.lower()) for v in labels.values())
    if num_labels == 2 and generic:
        return 1
    raise ModelMissing(f"cannot tell which output of the model means 'entailment' or 'supported': its labels are "
                       f"{labels or 'unnamed'}; pass label=<index> to NLIScorer.")


class NLIScorer:
    """Cross-encoder support score: softmax probability of the entailment/supported label.

    Args:
        model_dir: directory with a transformers sequence-classification model and its tokenizer
            (``config.json``, weights, tokenizer files), as written by ``save_pretrained``.
        device: torch device, ``"cpu"`` by default.
        threshold: supported when the score is at least this (0.5 by default; calibrate per model).
        batch_size: pairs per forward pass.
        label: index of the positive label, when ``config.id2label`` does not name it.
        max_length: token limit per pair (the longer text is truncated first); default: the model's limit, at most 512.

    Example:
        >>> s = NLIScorer("~/models/minicheck-roberta-large")  # doctest: +SKIP
        >>> s.score(["The fee is EUR 35."], ["The fee is 35 euros."])  # doctest: +SKIP
        [0.97]
    """

    name = "nli"

    def __init__(self, model_dir: str | Path, device: str = "cpu", *, threshold: float = 0.5, batch_size: int = 16,
                 label: int | None = None, max_length: int | None = None) -> None:
        if batch_size <= 0:
            raise ValueError(f"batch_size must be greater than 0. Currently, the batch_size is {batch_size}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1]. Currently, the threshold is {threshold}")
        path = Path(model_dir).expanduser()
        if not path.is_dir():
            raise ModelMissing(f"NLI model directory {path} does not exist; give the folder a model was saved to "
                               "with save_pretrained (config.json, weights and tokenizer files).")
        if not (path / "config.json").is_file():
            raise ModelMissing(f"{path} is not a model directory: it has no config.json. Give the folder a "
                               "sequence-classification model was saved to with save_pretrained.")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as err:
            raise ModelMissing(f"the NLI scorer needs torch and transformers ({err.name} missing): "
                               "pip install -r requirements.txt") from err
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            model = AutoModelForSequenceClassification.from_pretrained(str(path), local_files_only=True)
        except (OSError, ValueError, KeyError) as err:
            raise ModelMissing(f"{path} does not hold a loadable sequence-classification model and tokenizer: "
                               f"{err}") from err
        model.eval().to(device)
        num_labels = int(model.config.num_labels)
        if label is not None:
            if not 0 <= label < num_labels:
                raise ValueError(f"label must be an output index below {num_labels}. Currently, the label is {label}")
            self.label = label
        elif num_labels == 1:
            self.label = 0  # a single logit: read it through a sigmoid
        else:
            self.label = entailment_index(model.config.id2label, num_labels)
        limits = [n for n in (getattr(tokenizer, "model_max_length", None),
                              getattr(model.config, "max_position_embeddings", None), 512) if n]
        self.max_length = max_length or min(limits)
        self.threshold = threshold
        self.batch_size = batch_size
        self.device = device
        self.model_dir = path
        self.label_name = str(model.config.id2label.get(self.label, self.label)) if num_labels > 1 else "score"
        self._torch, self._tokenizer, self._model = torch, tokenizer, model
        log.info("loaded NLI model from %s (positive label %s = %r)", path, self.label, self.label_name)

    def score(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        """Probability of the positive label for each (premise, hypothesis) pair, in batches."""
        check_pairs(premises, hypotheses)
        torch, tok, model = self._torch, self._tokenizer, self._model
        out: list[float] = []
        with torch.inference_mode():
            for i in range(0, len(premises), self.batch_size):
                batch = tok(list(premises[i:i + self.batch_size]), list(hypotheses[i:i + self.batch_size]),
                            padding=True, truncation="longest_first", max_length=self.max_length,
                            return_tensors="pt").to(self.device)
                logits = model(**batch).logits.float()
                if logits.shape[-1] == 1:
                    probs = torch.sigmoid(logits[:, 0])
                else:
                    probs = torch.softmax(logits, dim=-1)[:, self.label]
                out.extend(float(p) for p in probs.cpu())
        return out

    def explain(self, premise: str, hypothesis: str) -> list[str]:
        """The model gives no reasons; this says how far below the threshold its probability is."""
        p = self.score([premise], [hypothesis])[0]
        if p >= self.threshold:
            return []
        return [f"NLI model gives P({self.label_name}) = {p:.2f}, below the threshold {self.threshold:.2f}"]
