"""The similarity graph of a dreaming pass: each eligible thought's nearest eligible neighbours
above the threshold.

Strategies (``DreamingConfig.neighbour_strategy``; ``auto`` picks by pool size):

- ``exact`` (auto up to ``exact_max_candidates``): exact cosine in Cypher inside the namespace
  (``cypher/dreaming/neighbours_exact.cypher``), ``page_size`` sources per query,
  ``concurrency`` queries at a time; only the pairs come back.
- ``stream`` (auto up to ``stream_max_candidates``): the pool's vectors read page by page, the
  same exact neighbours found in NumPy (:func:`~engrava_graph.dreaming.knn.exact_knn`).
- ``ivf`` (auto above): the vectors read the same way, neighbours through an inverted-file index
  in NumPy (:func:`~engrava_graph.dreaming.knn.ivf_knn`): approximate, like the HNSW index,
  at a cost that grows far slower than the square of the pool.
- ``index`` (opt-in): the HNSW vector index, one query per thought. On Neo4j 2026.x the index
  filters by namespace and lifecycle itself (``cypher/dreaming/neighbours_filtered.cypher``),
  over-fetched only for the other dreaming gates; on 5.26 it is over-fetched by the
  database/namespace size ratio (``neighbours_index``: it ranks every namespace before any
  filter) and slow on a small server (40-200 ms per query).

The vector strategies keep the pool's vectors (``pool x dimensions`` float32) for the writer,
which then reads no embedding again.
"""

from __future__ import annotations

import asyncio
import math
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engrava_graph.dreaming import knn
from engrava_graph.dreaming.clusters import SimilarityGraph
from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.search.arms import index_fetch_k
from engrava_graph.search.fusion import cosine_to_index_score, index_score_to_cosine

_EXACT = cypher("dreaming/neighbours_exact")
_INDEX = cypher("dreaming/neighbours_index")
_FILTERED = cypher("dreaming/neighbours_filtered")
_COUNTS = cypher("namespaces/count_thoughts")
_EMBEDDINGS = cypher("thoughts/embeddings")
#: Embeddings per read of the vector strategies.
VECTOR_PAGE = 2_000

Progress = Callable[[str, int, int], None]


async def _fetch_k(executor: GraphExecutor, namespace: str, k: int, *, filtered: bool) -> int:
    """Neighbours to ask the index for: ``k`` x 4, and on the unfiltered (5.26) index at least
    ``k`` x the database/namespace size ratio."""
    if filtered:  # the index holds the namespace filter: no size ratio, no count to read
        return index_fetch_k(k, 1, 1, overfetch=4)
    rows = await executor.read(_COUNTS, namespace=namespace)
    return index_fetch_k(k, int(rows[0]["in_namespace"]), int(rows[0]["in_database"]), overfetch=4)


@dataclass(frozen=True)
class PoolVectors:
    """The pool's vectors as the vector strategies read them.

    Attributes:
        unit: ``(pool, dimensions)`` float32, rows scaled to length 1 (row i = ``ids[i]``).
        norms: the stored vectors' lengths (a stored vector = ``unit[i] * norms[i]``).
    """

    unit: np.ndarray
    norms: np.ndarray

    def stored(self, row: int) -> np.ndarray:
        """Row ``row``'s stored vector (float64)."""
        return self.unit[row].astype(np.float64) * float(self.norms[row])


@dataclass(frozen=True)
class Neighbourhood:
    """What :func:`similarity_graph` found.

    Attributes:
        graph: the similarity graph over pool positions (weights: cosines in [0, 1]).
        strategy: ``"exact"``, ``"stream"``, ``"ivf"`` or ``"index"``.
        vectors: the pool's vectors when the strategy read them, else None.
    """

    graph: SimilarityGraph
    strategy: str
    vectors: PoolVectors | None = None


def choose_strategy(config: DreamingConfig, pool: int) -> str:
    """The strategy a pass of ``pool`` thoughts uses (``auto`` resolved by size)."""
    if config.neighbour_strategy != "auto":
        return config.neighbour_strategy
    if pool <= config.exact_max_candidates:
        return "exact"
    return "stream" if pool <= config.stream_max_candidates else "ivf"


def ivf_cells(config: DreamingConfig, pool: int) -> int:
    """Cells of the ivf strategy: ``ivf_cells``, else twice the square root of the pool."""
    return config.ivf_cells or max(1, round(2 * math.sqrt(pool)))


async def similarity_graph(
    executor: GraphExecutor,
    ids: Sequence[str],
    config: DreamingConfig,
    eligible: dict[str, Any],
    progress: Progress | None = None,
) -> Neighbourhood:
    """Neighbour pairs among ``ids`` (see the module docstring).

    Args:
        executor: the connection.
        ids: the pass's pool (sorted thought ids); neighbours outside it are dropped.
        config: ``neighbours_k``, ``similarity_threshold`` (cosine), the strategy and its
            settings (``exact_max_candidates``, ``stream_max_candidates``, ``ivf_cells``,
            ``ivf_probes``, ``page_size``, ``concurrency``).
        eligible: the ``dreaming/_eligible`` parameters (with ``namespace``).
        progress: called as ``("neighbours", done, total)`` (thoughts).

    Returns:
        The :class:`Neighbourhood`.
    """
    strategy = choose_strategy(config, len(ids))
    if strategy in ("stream", "ivf"):
        return await _in_numpy(executor, ids, config, eligible["namespace"], strategy, progress)
    return Neighbourhood(
        await _in_cypher(executor, ids, config, eligible, strategy, progress), strategy
    )


async def _in_cypher(
    executor: GraphExecutor,
    ids: Sequence[str],
    config: DreamingConfig,
    eligible: dict[str, Any],
    strategy: str,
    progress: Progress | None,
) -> SimilarityGraph:
    position = {tid: i for i, tid in enumerate(ids)}
    statement, fetch_k = _EXACT, config.neighbours_k
    if strategy == "index":
        filtered = (await server_line(executor)).filtered_vector_index
        statement = _FILTERED if filtered else _INDEX
        fetch_k = await _fetch_k(
            executor, eligible["namespace"], config.neighbours_k, filtered=filtered
        )
    params: dict[str, Any] = {
        **eligible,
        "k": config.neighbours_k,
        "fetch_k": fetch_k,
        "min_score": cosine_to_index_score(config.similarity_threshold),
    }
    a, b, weight = array("l"), array("l"), array("f")  # compact: O(pairs) machine words
    done = 0
    gate = asyncio.Semaphore(config.concurrency)

    async def page(start: int) -> None:
        nonlocal done
        sources = list(ids[start : start + config.page_size])
        async with gate:
            rows = await executor.read(statement, sources=sources, **params)
        for row in rows:
            other = position.get(row["neighbour"])
            if other is not None:
                a.append(position[row["source"]])
                b.append(other)
                weight.append(index_score_to_cosine(float(row["score"])))
        done += len(sources)
        if progress is not None:
            progress("neighbours", done, len(ids))

    await asyncio.gather(*(page(start) for start in range(0, len(ids), config.page_size)))
    return SimilarityGraph.from_pairs(len(ids), a, b, weight)


async def read_vectors(
    executor: GraphExecutor, namespace: str, ids: Sequence[str]
) -> PoolVectors | None:
    """The stored vectors of ``ids`` (row i = ``ids[i]``; a missing one stays zero), read
    ``VECTOR_PAGE`` at a time, each page one row (``thoughts/embeddings``); None when none has
    a vector."""
    unit: np.ndarray | None = None
    for start in range(0, len(ids), VECTOR_PAGE):
        page = list(ids[start : start + VECTOR_PAGE])
        row = (await executor.read(_EMBEDDINGS, namespace=namespace, thought_ids=page))[0]
        if not row["thought_ids"]:
            continue
        found = np.asarray(row["embeddings"], dtype=np.float32)
        if unit is None:
            unit = np.zeros((len(ids), found.shape[1]), dtype=np.float32)
        position = {tid: start + offset for offset, tid in enumerate(page)}
        unit[[position[tid] for tid in row["thought_ids"]]] = found
    if unit is None:
        return None
    norms = np.linalg.norm(unit, axis=1)
    unit /= np.maximum(norms, 1e-12)[:, None]
    return PoolVectors(unit, norms)


async def _in_numpy(
    executor: GraphExecutor,
    ids: Sequence[str],
    config: DreamingConfig,
    namespace: str,
    strategy: str,
    progress: Progress | None,
) -> Neighbourhood:
    n = len(ids)
    vectors = await read_vectors(executor, namespace, ids)
    if vectors is None or n < 2:
        return Neighbourhood(SimilarityGraph.from_pairs(n, [], [], []), strategy, vectors)

    def tick(done: int) -> None:
        if progress is not None:
            progress("neighbours", done, n)

    k, threshold = config.neighbours_k, config.similarity_threshold
    if strategy == "stream":
        a, b, w = knn.exact_knn(vectors.unit, k, threshold, tick)
    else:
        a, b, w = knn.ivf_knn(
            vectors.unit,
            k,
            threshold,
            cells=ivf_cells(config, n),
            probes=config.ivf_probes,
            seed=config.seed,
            tick=tick,
        )
    return Neighbourhood(
        SimilarityGraph.from_pairs(n, a, b, np.clip(w, 0.0, 1.0)), strategy, vectors
    )
