"""``search_reflections_only``: reflections ranked by cosine to the query (the peer's method).

Every retrievable ACTIVE reflection of the namespace is scored by exact cosine in Cypher
(``cypher/dreaming/search_reflections.cypher``), so none is missed however many other thoughts
the store holds; retired reflections never appear. With a cycle (explicit or from the provider),
recency is blended in as the peer does: ``cosine * (1 - w) + recency * w`` with ``w`` the
store's ``SearchConfig.recency_weight`` and cycle recency ``exp(-ln 2 * age / half_life)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.params import vector_param
from engrava_graph.graph.registry import cypher
from engrava_graph.model.search import HybridSearchResult
from engrava_graph.search.fusion import RecencyReference, index_score_to_cosine

_SEARCH = cypher("dreaming/search_reflections")
#: Reflections scored when recency re-ranks them (all of a namespace, up to this many).
MAX_BLENDED = 10_000


async def search_reflections(
    executor: GraphExecutor,
    scope: dict[str, Any],
    vector: Sequence[float] | None,
    top_k: int,
    recency: RecencyReference | None,
    recency_weight: float,
) -> HybridSearchResult:
    """Rank the namespace's reflections.

    Args:
        executor: the connection.
        scope: the ``search/_retrievable`` parameters (``include_archived`` False).
        vector: the query embedding, or None (then reflections come by id, score 0).
        top_k: results wanted.
        recency: the cycle recency reference, or None (no blend).
        recency_weight: the blend weight in [0, 1].

    Returns:
        ``(thought_id, score)`` best first; ``backends_used`` has ``"vector"`` when a vector
        ranked them and ``"recency"`` when blended.
    """
    blend = vector is not None and recency is not None and recency_weight > 0
    rows = await executor.read(
        _SEARCH,
        vector=vector_param(vector),
        limit=MAX_BLENDED if blend else top_k,
        **scope,
    )
    if vector is None:
        return HybridSearchResult(results=[(r["thought_id"], 0.0) for r in rows])
    scored = [(r["thought_id"], index_score_to_cosine(float(r["score"]))) for r in rows]
    backends = {"vector"}
    if blend and recency is not None:
        fresh = {
            r["thought_id"]: recency.score(r["updated_cycle"], r["updated_at"], r["created_at"])
            for r in rows
        }
        scored = [
            (tid, s * (1 - recency_weight) + fresh[tid] * recency_weight) for tid, s in scored
        ]
        backends.add("recency")
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return HybridSearchResult(
        results=scored[:top_k],
        backends_used=frozenset(backends),
        recency_axis=recency.axis.value if blend and recency else None,
    )
