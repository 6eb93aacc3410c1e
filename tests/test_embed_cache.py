import numpy as np

from anchor_core.embed_cache import CachedEmbedder
from anchor_core.embeddings import HashEmbedder


class Counting(HashEmbedder):
    def __init__(self):
        super().__init__()
        self.calls = []

    def embed(self, texts, *, progress=None):
        self.calls.append(list(texts))
        return super().embed(texts, progress=progress)


def test_second_ingest_embeds_only_new_texts(tmp_path):
    inner = Counting()
    cache = CachedEmbedder(inner, tmp_path / "c.db")
    first = cache.embed(["alpha beta", "gamma delta"])
    again = CachedEmbedder(inner, tmp_path / "c.db").embed(["gamma delta", "new text", "alpha beta"])
    assert inner.calls == [["alpha beta", "gamma delta"], ["new text"]]
    assert np.allclose(again[0], first[1]) and np.allclose(again[2], first[0])
    assert np.allclose(again[1], HashEmbedder().embed(["new text"])[0])


def test_cache_is_per_model(tmp_path):
    CachedEmbedder(HashEmbedder(384), tmp_path / "c.db").embed(["x y"])
    other = CachedEmbedder(HashEmbedder(64), tmp_path / "c.db")
    assert other.embed(["x y"]).shape == (1, 64) and other.hits == 0
