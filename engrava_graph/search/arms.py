"""The two activation arms of search over Neo4j: the full-text index and the vector index.

Both are restricted to one namespace. The keyword arm filters inside Lucene (``+ns_token:``);
the vector arm cannot (Neo4j 5.26's vector index ranks the whole database before any ``WHERE``),
so a namespace small next to the database is searched by exact cosine, and a large one through
the HNSW index over-fetched by the database/namespace size ratio. The choice is reported.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.model.namespace import fulltext_namespace_token
from engrava_graph.search.fusion import (
    SearchConfig,
    cosine_to_index_score,
    index_score_to_cosine,
)
from engrava_graph.search.lucene import namespaced_query

_FULLTEXT = cypher("search/fulltext")
_VECTOR_INDEX = cypher("search/vector_index")
_VECTOR_EXACT = cypher("search/vector_exact")
_COUNTS = cypher("namespaces/count_thoughts")

#: How long namespace/database sizes are cached, in seconds (they only steer the arm choice).
_COUNT_TTL_SECONDS = 30.0
_MAX_FETCH_K = 10_000


def index_fetch_k(k: int, in_namespace: int, in_database: int, overfetch: int) -> int:
    """How many neighbours to ask the HNSW index for so that about ``k`` of them belong to the
    namespace: ``k`` times the database/namespace size ratio (at least ``overfetch``), capped at
    10,000 nodes per query and never below ``k``."""
    ratio = max(1, -(-in_database // max(in_namespace, 1)))
    return max(min(k * max(overfetch, ratio), _MAX_FETCH_K), k)


@dataclass(frozen=True)
class VectorPlan:
    """How the vector arm ran: ``"exact"`` or ``"index"``, and the index over-fetch ``fetch_k``."""

    strategy: str
    fetch_k: int


class SearchArms:
    """Runs the keyword and vector arms for one namespace.

    Args:
        executor: the connection.
        namespace: the validated namespace.
        config: thresholds for the exact/index choice.
    """

    def __init__(self, executor: GraphExecutor, namespace: str, config: SearchConfig) -> None:
        self._executor = executor
        self._namespace = namespace
        self._ns_token = fulltext_namespace_token(namespace)
        self._config = config
        self._counts: tuple[float, int, int] | None = None

    async def fulltext(self, text: str, top_k: int, scope: dict[str, Any]) -> list[tuple[str, float]]:
        """Keyword arm: ``(thought_id, raw Lucene score)``, best first; [] when ``text`` has no words.

        Args:
            text: user text (escaped here, never parsed as Lucene syntax).
            top_k: results wanted.
            scope: the ``search/_retrievable`` parameters (namespace, include_archived, now,
                meta_filters).
        """
        query = namespaced_query(text, self._ns_token)
        if query is None or top_k <= 0:
            return []
        rows = await self._executor.read(_FULLTEXT, lucene_query=query, fetch_k=top_k * 2 + 10,
                                         top_k=top_k, **scope)
        return [(r["thought_id"], float(r["score"])) for r in rows]

    async def vector(self, vector: Sequence[float], top_k: int, scope: dict[str, Any], *,
                     threshold: float = 0.0) -> tuple[list[tuple[str, float]], VectorPlan]:
        """Vector arm: ``(thought_id, cosine in [0, 1])``, best first, and how it ran.

        Args:
            vector: the query embedding (its length must match the index dimensions).
            top_k: results wanted.
            scope: the ``search/_retrievable`` parameters.
            threshold: minimum cosine similarity in [0, 1].
        """
        plan = await self._plan(top_k)
        stmt = _VECTOR_EXACT if plan.strategy == "exact" else _VECTOR_INDEX
        rows = await self._executor.read(
            stmt, vector=[float(x) for x in vector], fetch_k=plan.fetch_k, top_k=top_k,
            min_score=cosine_to_index_score(threshold), **scope,
        )
        return [(r["thought_id"], index_score_to_cosine(float(r["score"]))) for r in rows], plan

    async def _plan(self, top_k: int) -> VectorPlan:
        in_namespace, in_database = await self._sizes()
        if in_namespace <= self._config.exact_vector_max_thoughts:
            return VectorPlan("exact", top_k)
        return VectorPlan("index", index_fetch_k(top_k, in_namespace, in_database,
                                                 self._config.vector_overfetch))

    async def _sizes(self) -> tuple[int, int]:
        now = time.monotonic()
        if self._counts is None or now - self._counts[0] > _COUNT_TTL_SECONDS:
            rows = await self._executor.read(_COUNTS, namespace=self._namespace)
            self._counts = (now, int(rows[0]["in_namespace"]), int(rows[0]["in_database"]))
        return self._counts[1], self._counts[2]
