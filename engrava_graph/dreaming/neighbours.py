"""The similarity graph of a dreaming pass, from Neo4j: each eligible thought's nearest eligible
neighbours above the threshold (``cypher/dreaming/neighbours_*.cypher``).

A large pool goes through the HNSW index, over-fetched by the database/namespace size ratio
because Neo4j 5.26's vector index ranks every namespace before any filter (the choice
``search_similar`` makes); a pool of at most ``exact_max_candidates`` thoughts, or no larger than
that over-fetch, is searched by exact cosine inside the namespace instead (cheaper there, and
nothing is missed). Sources go ``page_size`` per query, ``concurrency`` queries at a time (Neo4j
runs them on parallel threads); only the neighbour pairs come back.
"""

from __future__ import annotations

import asyncio
from array import array
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engrava_graph.dreaming.clusters import SimilarityGraph
from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.search.arms import index_fetch_k
from engrava_graph.search.fusion import cosine_to_index_score, index_score_to_cosine

_EXACT = cypher("dreaming/neighbours_exact")
_INDEX = cypher("dreaming/neighbours_index")
_COUNTS = cypher("namespaces/count_thoughts")
_EMBEDDINGS = cypher("retrieval/embeddings")
#: Rows of the similarity block of the "stream" strategy (block = rows x pool size float32).
STREAM_BLOCK_ROWS = 256

Progress = Callable[[str, int, int], None]


async def _fetch_k(executor: GraphExecutor, namespace: str, k: int) -> int:
    rows = await executor.read(_COUNTS, namespace=namespace)
    return index_fetch_k(k, int(rows[0]["in_namespace"]), int(rows[0]["in_database"]),
                         overfetch=4)


async def similarity_graph(executor: GraphExecutor, ids: Sequence[str], config: DreamingConfig,
                           eligible: dict[str, Any], progress: Progress | None = None
                           ) -> tuple[SimilarityGraph, str]:
    """Neighbour pairs among ``ids`` as a :class:`SimilarityGraph` over their positions.

    Args:
        executor: the connection.
        ids: the pass's pool (sorted thought ids); neighbours outside it are dropped.
        config: ``neighbours_k``, ``similarity_threshold`` (cosine), ``exact_max_candidates``,
            ``neighbour_strategy``, ``page_size``, ``concurrency``.
        eligible: the ``dreaming/_eligible`` parameters (with ``namespace``).
        progress: called as ``("neighbours", sources_done, sources_total)`` per page.

    Returns:
        The graph (weights are cosines in [0, 1]) and the strategy: ``"exact"``, ``"index"`` or
        ``"stream"``.
    """
    if config.neighbour_strategy == "stream":
        graph = await _streamed(executor, ids, config, eligible["namespace"], progress)
        return graph, "stream"
    position = {tid: i for i, tid in enumerate(ids)}
    fetch_k = await _fetch_k(executor, eligible["namespace"], config.neighbours_k)
    exact = (config.neighbour_strategy == "exact" or config.neighbour_strategy == "auto"
             and len(ids) <= max(config.exact_max_candidates, fetch_k))
    params: dict[str, Any] = {**eligible, "k": config.neighbours_k, "fetch_k": fetch_k,
                              "min_score": cosine_to_index_score(config.similarity_threshold)}
    a, b, weight = array("l"), array("l"), array("f")  # compact: O(pairs) machine words
    done = 0
    gate = asyncio.Semaphore(config.concurrency)

    async def page(start: int) -> None:
        nonlocal done
        sources = list(ids[start:start + config.page_size])
        async with gate:
            rows = await executor.read(_EXACT if exact else _INDEX, sources=sources, **params)
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
    return SimilarityGraph.from_pairs(len(ids), a, b, weight), "exact" if exact else "index"


async def _streamed(executor: GraphExecutor, ids: Sequence[str], config: DreamingConfig,
                    namespace: str, progress: Progress | None) -> SimilarityGraph:
    """Exact k nearest neighbours above the threshold from the pool's embeddings (NumPy)."""
    n = len(ids)
    matrix: np.ndarray | None = None
    for start in range(0, n, config.page_size):
        page = list(ids[start:start + config.page_size])
        rows = await executor.read(_EMBEDDINGS, namespace=namespace, thought_ids=page)
        found = {r["thought_id"]: r["embedding"] for r in rows if r["embedding"] is not None}
        if matrix is None and found:
            matrix = np.zeros((n, len(next(iter(found.values())))), dtype=np.float32)
        for offset, tid in enumerate(page):
            if matrix is not None and tid in found:
                matrix[start + offset] = found[tid]
    if matrix is None or n < 2:
        return SimilarityGraph.from_pairs(n, [], [], [])
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    k = min(config.neighbours_k, n - 1)
    a: list[np.ndarray] = []
    b: list[np.ndarray] = []
    weight: list[np.ndarray] = []
    for start in range(0, n, STREAM_BLOCK_ROWS):
        stop = min(start + STREAM_BLOCK_ROWS, n)
        sims = matrix[start:stop] @ matrix.T
        sims[np.arange(stop - start), np.arange(start, stop)] = -np.inf  # not its own neighbour
        top = np.argpartition(sims, -k, axis=1)[:, -k:]
        best = np.take_along_axis(sims, top, axis=1)
        keep = best >= config.similarity_threshold
        a.append(np.nonzero(keep)[0] + start)
        b.append(top[keep])
        weight.append(best[keep])
        if progress is not None:
            progress("neighbours", stop, n)
    return SimilarityGraph.from_pairs(n, np.concatenate(a), np.concatenate(b),
                                      np.clip(np.concatenate(weight), 0.0, 1.0))
