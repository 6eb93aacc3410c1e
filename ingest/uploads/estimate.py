"""How long an upload will take, said before the work starts.

Embedding dominates an upload of any size (about 20 chunks a second with MiniLM on two cores),
so the estimate is chunks divided by the embedder's throughput: measured by the workspace's
embedding cache on earlier batches when it has seen some, else the rate benchmarked for the
model (bench/README.md). Before a file is read the chunk count comes from its size; once it is
split into units the count is exact and chunks already in the embedding cache are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from anchor_core.embeddings import Embedder, MiniLMEmbedder

KNOWN_RATES = {MiniLMEmbedder.model_id: 20.0, f"{MiniLMEmbedder.model_id}-int8": 25.0, "hash-bow-384": 2000.0}
"""Chunks per second on the 2-core reference machine (bench/README.md, "Embedding speed")."""
SHORT_NAMES = {MiniLMEmbedder.model_id: "minilm", f"{MiniLMEmbedder.model_id}-int8": "minilm-int8",
               "hash-bow-384": "hash"}
CHARS_PER_CHUNK = 700
"""Unstructured text is cut into 800-character windows overlapping by 100; clauses come out
about as long, so 700 new characters a chunk."""
TEXT_PER_BYTE = {"pdf": 0.5, "docx": 2.0, "html": 0.6, "htm": 0.6}
"""Characters of text per byte of file, roughly (PDF and HTML carry layout, .docx is zipped)."""
WARN_SECONDS = 120.0
"""Above this an upload is announced with a warning (the CLI prints it, the dashboard shows it)."""


@dataclass
class Estimate:
    """What one file will cost: ``chunks`` to embed (``cached`` of them already in the embedding
    cache) and ``seconds`` (None when the embedder's throughput is unknown)."""

    name: str
    size: int
    chunks: int
    seconds: float | None
    embedder: str
    cached: int = 0
    exact: bool = False
    """True once the file is split (the chunk count is counted, not guessed from the size)."""

    @property
    def large(self) -> bool:
        return self.seconds is not None and self.seconds >= WARN_SECONDS

    def summary(self) -> str:
        """``contract.txt: 50.0 MB, about 71,000 chunks, about 59 min with minilm``."""
        about = "" if self.exact else "about "
        cached = f" ({self.cached:,} already embedded)" if self.cached else ""
        when = f", about {duration(self.seconds)} with {self.embedder}" if self.seconds is not None else ""
        chunks = f"{self.chunks:,} chunk{'' if self.chunks == 1 else 's'}"
        return f"{self.name}: {_size(self.size)}, {about}{chunks}{cached}{when}"


def throughput(embedder: Embedder) -> float | None:
    """Chunks per second: measured by the embedder (the workspace cache records it) or known for the model."""
    measured = getattr(embedder, "throughput", None)
    rate = measured() if callable(measured) else None
    return rate or KNOWN_RATES.get(embedder.model_id)


def estimate(name: str, size: int, embedder: Embedder, *, chunks: int | None = None, cached: int = 0) -> Estimate:
    """The cost of a file of ``size`` bytes; with ``chunks`` (after splitting) the count is exact.

    Example:
        >>> estimate("contract.txt", 50_000_000, MiniLMEmbedder()).summary()
        'contract.txt: 50.0 MB, about 71,429 chunks, about 60 min with minilm'
    """
    exact = chunks is not None
    if chunks is None:
        fmt = PurePosixPath(name).suffix.lower().lstrip(".")
        chunks = max(1, round(size * TEXT_PER_BYTE.get(fmt, 1.0) / CHARS_PER_CHUNK))
    rate = throughput(embedder)
    todo = max(chunks - cached, 0)
    return Estimate(name=name, size=size, chunks=chunks, seconds=todo / rate if rate else None,
                    embedder=SHORT_NAMES.get(embedder.model_id, embedder.model_id), cached=cached, exact=exact)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``1.5 h``."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
