"""k nearest neighbours above a cosine threshold among the rows of one matrix, in NumPy (the
"stream" and "ivf" neighbour strategies of a dreaming pass). Pure and deterministic.

- :func:`exact_knn`: every pair, in fixed-size tiles (``rows x cols`` float32 at a time, so
  memory does not grow with the pool beyond the matrix itself); cost grows with the square of
  the pool.
- :func:`ivf_knn`: an inverted-file index (Jégou, Douze & Schmid 2011; FAISS's ``IndexIVFFlat``):
  spherical k-means cells from a seeded sample, each row compared exactly with the members of
  its ``probes`` nearest cells only. Cost grows as ``pool x probes x pool / cells``; a true
  neighbour is missed only when it lies outside the row's probed cells (with ``probes ==
  cells`` the result is :func:`exact_knn`'s).

Both return directed pairs ``(row, neighbour, cosine)``: for each row its at most ``k`` most
similar other rows with cosine ``>= threshold``, best first, ties by the lower index.

:func:`exact_knn` cuts each row tile's candidates to their best ``k`` once per tile (large
products, few tiles). :func:`ivf_knn` makes thousands of small products (a tile of rows against
one cell's members), so it keeps each row's best ``k`` so far as it goes (:class:`_Best`,
``n x k`` int64 keys) and merges a product's candidates only into the rows they improve: memory
does not grow with the pairs above the threshold and no sort over all candidates is needed. It
runs BLAS on one thread (``threadpoolctl``): on a shared or busy machine a second thread made
these small products 2-3 times slower (100k vectors: 7 s idle, 25 s at load 4 with two threads;
10 s either way with one), and one thread makes the cosines, hence the pairs and the clusters,
the same on any number of cores (OpenBLAS splits a product by its thread count, which changes
the rounding).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

#: Tile of the exact strategy: rows x columns of float32 similarities per matrix product.
TILE_ROWS = 1024
TILE_COLS = 8192
#: k-means of the ivf strategy: sample size (rows) and iterations.
IVF_SAMPLE = 20_000
IVF_ITERATIONS = 4
#: The key of an empty slot in :class:`_Best` (below every candidate's key).
_EMPTY = np.iinfo(np.int64).min
_LOW = np.int64(0x7FFFFFFF)

Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]
Tick = Callable[[int], None]


def unit_rows(x: np.ndarray) -> np.ndarray:
    """``x`` (``(n, d)``) as float32 with every row scaled to length 1 (zero rows stay zero)."""
    out = np.asarray(x, dtype=np.float32).copy()
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return out


def _top_k(rows: np.ndarray, cols: np.ndarray, sims: np.ndarray, k: int) -> Pairs:
    """Per row, the ``k`` best candidate triples (cosine descending, then column)."""
    order = np.lexsort((cols, -sims, rows))
    rows, cols, sims = rows[order], cols[order], sims[order]
    rank = np.arange(len(rows)) - np.searchsorted(rows, rows, side="left")
    keep = rank < k
    return rows[keep], cols[keep], sims[keep]


def _above(x: np.ndarray, rows: np.ndarray, cols: np.ndarray, threshold: float) -> Pairs:
    """Triples ``(row, col, cosine)`` of ``rows x cols`` with cosine >= threshold, row != col."""
    sims = x[rows] @ x[cols].T
    i, j = np.nonzero(sims >= threshold)
    r, c = rows[i], cols[j]
    keep = r != c
    return r[keep], c[keep], sims[i[keep], j[keep]]


def _concat(parts: list[Pairs]) -> Pairs:
    if not parts:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float32)
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


def _ordered_bits(sims: np.ndarray) -> np.ndarray:
    """float32 cosines as int32 in the same order (IEEE bits, negatives' magnitude flipped);
    its own inverse."""
    bits = np.ascontiguousarray(sims, dtype=np.float32).view(np.int32)
    return np.where(bits < 0, bits ^ np.int32(0x7FFFFFFF), bits)


class _Best:
    """Each row's ``k`` best candidates so far, as one int64 key per candidate: the cosine's
    ordered bits above, ``2**31 - 1 - column`` below, so a larger key is a higher cosine, then
    a lower column (the order of the module docstring). ``(n, k)`` int64: memory does not grow
    with the candidates offered."""

    def __init__(self, n: int, k: int) -> None:
        self.k = k
        self.keys = np.full((n, k), _EMPTY, dtype=np.int64)

    def offer(self, x: np.ndarray, rows: np.ndarray, cols: np.ndarray, threshold: float) -> None:
        """Compare ``rows`` (distinct row numbers) with ``cols`` (none offered to these rows
        before) and keep each row's best: cosine >= ``threshold``, never the row itself."""
        sims = x[rows] @ x[cols].T
        keys = (_ordered_bits(sims).astype(np.int64) << 32) | (_LOW - cols.astype(np.int64))
        kept = self.keys[rows]
        better = (keys > kept.min(axis=1, keepdims=True)) & (sims >= threshold)
        better &= rows[:, None] != cols[None, :]
        hit = np.flatnonzero(better.any(axis=1))  # only rows whose best can change
        if not len(hit):
            return
        merged = np.concatenate([kept[hit], np.where(better[hit], keys[hit], _EMPTY)], axis=1)
        width = merged.shape[1]
        self.keys[rows[hit]] = np.partition(merged, width - self.k, axis=1)[:, width - self.k :]

    def pairs(self) -> Pairs:
        """The kept candidates as ``(row, neighbour, cosine)``, by row, best first."""
        keys = np.sort(self.keys, axis=1)[:, ::-1]
        rows, slots = np.nonzero(keys != _EMPTY)
        kept = keys[rows, slots]
        sims = _ordered_bits((kept >> 32).astype(np.int32).view(np.float32)).view(np.float32)
        return rows, (_LOW - (kept & _LOW)).astype(np.int64), sims


def exact_knn(x: np.ndarray, k: int, threshold: float, tick: Tick | None = None) -> Pairs:
    """Exact neighbours (see the module docstring).

    Args:
        x: ``(n, d)`` unit rows (float32).
        k: neighbours per row (count).
        threshold: minimum cosine.
        tick: called with the rows finished after each row tile.
    """
    n = len(x)
    out: list[Pairs] = []
    everything = np.arange(n)
    for start in range(0, n, TILE_ROWS):
        rows = everything[start : start + TILE_ROWS]
        best = _concat([])
        for col in range(0, n, TILE_COLS):
            best = _top_k(
                *_concat([best, _above(x, rows, everything[col : col + TILE_COLS], threshold)]), k
            )
        out.append(best)
        if tick is not None:
            tick(int(rows[-1]) + 1)
    return _concat(out)


def _kmeans(x: np.ndarray, cells: int, seed: int) -> np.ndarray:
    """``cells`` unit centroids: spherical k-means on a seeded sample of ``x``."""
    rng = np.random.default_rng(seed)
    sample = x[np.sort(rng.choice(len(x), min(len(x), IVF_SAMPLE), replace=False))]
    centroids = sample[np.sort(rng.choice(len(sample), cells, replace=False))].copy()
    for _ in range(IVF_ITERATIONS):
        nearest = (sample @ centroids.T).argmax(axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, nearest, sample)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = np.where(norms > 0, sums / np.maximum(norms, 1e-12), centroids)
    return centroids


@threadpool_limits.wrap(limits=1, user_api="blas")
def ivf_knn(
    x: np.ndarray,
    k: int,
    threshold: float,
    *,
    cells: int,
    probes: int,
    seed: int,
    tick: Tick | None = None,
) -> Pairs:
    """Neighbours through an inverted-file index (see the module docstring).

    Args:
        x: ``(n, d)`` unit rows (float32).
        k: neighbours per row (count).
        threshold: minimum cosine.
        cells: k-means cells (capped at ``n``).
        probes: cells each row is compared with, its nearest by centroid (capped at ``cells``).
        seed: seed of the k-means sample and starting centroids.
        tick: called with the cells finished so far, scaled to rows.
    """
    n = len(x)
    if n < 2:
        return _Best(n, k).pairs()
    cells = max(1, min(cells, n))
    probes = max(1, min(probes, cells))
    centroids = _kmeans(x, cells, seed)
    home = np.empty(n, np.int64)
    probed = np.empty((n, probes), np.int64)
    for start in range(0, n, TILE_COLS):
        scores = x[start : start + TILE_COLS] @ centroids.T
        home[start : start + TILE_COLS] = scores.argmax(axis=1)
        probed[start : start + TILE_COLS] = np.argpartition(scores, -probes, axis=1)[:, -probes:]
    members = np.argsort(home, kind="stable")
    member_bounds = np.searchsorted(home[members], np.arange(cells + 1))
    flat = probed.ravel()
    by_cell = np.argsort(flat, kind="stable")
    probe_rows = by_cell // probes
    probe_bounds = np.searchsorted(flat[by_cell], np.arange(cells + 1))
    best = _Best(n, k)
    for cell in range(cells):
        cols = members[member_bounds[cell] : member_bounds[cell + 1]]
        rows = probe_rows[probe_bounds[cell] : probe_bounds[cell + 1]]
        for start in range(0, len(rows) if len(cols) else 0, TILE_ROWS):
            best.offer(x, rows[start : start + TILE_ROWS], cols, threshold)
        if tick is not None:
            tick(n * (cell + 1) // cells)
    return best.pairs()
