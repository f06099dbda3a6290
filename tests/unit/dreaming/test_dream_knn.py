"""Neighbours in NumPy: the tiled exact search against brute force, the inverted-file search
against the exact one (all cells probed: identical; few probed: close), determinism."""

from __future__ import annotations

import numpy as np
import pytest

from engrava_graph.dreaming import knn


def _data(n=600, d=24, groups=30, seed=7):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(groups, d))
    x = centres[rng.integers(0, groups, n)] + 0.45 * rng.normal(size=(n, d))
    return knn.unit_rows(x)


def _brute(x, k, threshold):
    sims = x @ x.T
    np.fill_diagonal(sims, -np.inf)
    out = set()
    for row in range(len(x)):
        order = sorted(range(len(x)), key=lambda c: (-sims[row, c], c))[:k]
        out |= {(row, c) for c in order if sims[row, c] >= threshold}
    return out


def _pairs(found):
    return set(zip(found[0].tolist(), found[1].tolist(), strict=True))


@pytest.fixture(autouse=True)
def _small_tiles(monkeypatch):
    monkeypatch.setattr(knn, "TILE_ROWS", 64)  # several tiles on small data
    monkeypatch.setattr(knn, "TILE_COLS", 100)


def test_exact_matches_brute_force():
    x = _data()
    found = knn.exact_knn(x, 5, 0.6)
    assert _pairs(found) == _brute(x, 5, 0.6)
    assert np.all(found[2] >= 0.6) and np.all(found[0] != found[1])


def test_ivf_probing_every_cell_is_exact_and_few_cells_find_nearly_all():
    x = _data()
    exact = _pairs(knn.exact_knn(x, 5, 0.6))
    assert _pairs(knn.ivf_knn(x, 5, 0.6, cells=12, probes=12, seed=1)) == exact
    some = _pairs(knn.ivf_knn(x, 5, 0.6, cells=12, probes=4, seed=1))
    assert len(some & exact) / len(exact) > 0.95


def test_ivf_is_deterministic_and_handles_tiny_inputs():
    x = _data(n=200)
    a = knn.ivf_knn(x, 3, 0.5, cells=10, probes=3, seed=42)
    b = knn.ivf_knn(x, 3, 0.5, cells=10, probes=3, seed=42)
    assert all(np.array_equal(p, q) for p, q in zip(a, b, strict=True))
    assert len(knn.ivf_knn(x[:1], 3, 0.5, cells=10, probes=3, seed=42)[0]) == 0
    assert len(knn.exact_knn(x[:1], 3, 0.5)[0]) == 0


def test_ties_go_to_the_lower_index():
    # rows of four 0.5 components among 16: every cosine is a multiple of 0.25, exact in
    # float32, so many neighbours tie and only the index can order them
    rng = np.random.default_rng(3)
    patterns = np.zeros((12, 16), dtype=np.float32)
    for row in patterns:
        row[rng.choice(16, 4, replace=False)] = 0.5
    x = patterns[rng.integers(0, 12, 300)]
    expected = _brute(x, 4, 0.5)
    assert _pairs(knn.exact_knn(x, 4, 0.5)) == expected
    assert _pairs(knn.ivf_knn(x, 4, 0.5, cells=6, probes=6, seed=2)) == expected
    rows, _, sims = knn.exact_knn(x, 4, 0.5)
    assert np.all(np.diff(rows) >= 0) and set(np.unique(sims)) <= {0.5, 0.75, 1.0}
