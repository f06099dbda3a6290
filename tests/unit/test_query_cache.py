"""The provider's bounded LRU cache of query vectors (pure logic, no model)."""

from __future__ import annotations

import numpy as np
import pytest

from engrava_graph.embeddings.sentence_transformer import QueryCache


def test_least_recently_used_entry_goes_first():
    cache = QueryCache(2)
    cache.put("a", np.ones(3))
    cache.put("b", np.zeros(3))
    assert cache.get("a") is not None  # "a" is now the most recent
    cache.put("c", np.full(3, 2.0))
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert (cache.hits, cache.misses) == (3, 1)


def test_cached_vectors_are_copies_and_read_only():
    cache = QueryCache(4)
    vector = np.arange(3, dtype=np.float32)
    cache.put("q", vector)
    vector[0] = 99.0
    stored = cache.get("q")
    assert stored is not None and stored[0] == 0.0 and stored.dtype == np.float32
    with pytest.raises(ValueError):
        stored[0] = 1.0


def test_size_zero_keeps_nothing():
    cache = QueryCache(0)
    cache.put("q", np.ones(3))
    assert cache.get("q") is None
