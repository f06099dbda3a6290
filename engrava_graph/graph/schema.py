"""Schema migrations: constraints, indexes and the recorded schema version (idempotent).

``ensure_schema`` is what ``engrava-graph migrate`` and ``Neo4jEngravaCore.ensure_schema()`` run.
Every statement is ``IF NOT EXISTS``, so running it again changes nothing.

Versions: 2 = the vector index holds the vector only; 3 = on Neo4j 2026.01 and later it also
holds ``namespace`` and ``lifecycle_status`` as filter properties (on 5.26 nothing changes). The
migration from 2 on 2026.x drops the index and builds it again with them; the build runs in the
background and ``ensure_schema`` waits for it (``index_timeout_seconds``), about a minute per
100,000 vectors on two cores.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import CypherStatement, cypher
from engrava_graph.model.enums import EdgeType, NodeLabel
from engrava_graph.model.errors import EmbeddingDimensionMismatchError, SchemaVersionError

#: Bump when a migration changes the graph's shape.
SCHEMA_VERSION = 3
VECTOR_INDEX = "thought_embedding"
#: The filter properties of the vector index on Neo4j 2026.x (after the vector property).
VECTOR_FILTER_PROPERTIES = ("namespace", "lifecycle_status")

_NODE_SCHEMA = [
    cypher(f"schema/{name}")
    for name in (
        "thought_key",
        "entity_key",
        "tag_key",
        "namespace_key",
        "dream_run_key",
        "thought_lifecycle_index",
        "thought_cycle_index",
        "thought_created_index",
        "thought_hash_index",
        "thought_valid_from_index",
        "thought_conversation_index",
        "thought_fulltext",
    )
]
_NAMESPACE_INDEXES = [cypher("schema/namespace_index", label=label) for label in NodeLabel]
_EDGE_SCHEMA = [
    cypher(f"schema/{name}", rel_type=t)
    for t in EdgeType
    for name in ("edge_id_key", "edge_triple_key")
]
_VECTOR = cypher("schema/thought_vector")
_VECTOR_FILTERED = cypher("schema/thought_vector_filtered")
_DROP_VECTOR = cypher("schema/drop_thought_vector")
_VECTOR_INDEX = cypher("schema/vector_index")
_AWAIT = cypher("schema/await_indexes")
_GET_VERSION = cypher("schema/get_version")
_SET_VERSION = cypher("schema/set_version")


def schema_statements(*, filtered_vector_index: bool = False) -> list[CypherStatement]:
    """Every constraint/index statement ``ensure_schema`` runs, in order (vector index last:
    with filter properties when the server has them, see
    :class:`~engrava_graph.graph.dialect.ServerLine`)."""
    vector = _VECTOR_FILTERED if filtered_vector_index else _VECTOR
    return [*_NODE_SCHEMA, *_NAMESPACE_INDEXES, *_EDGE_SCHEMA, vector]


async def vector_index_properties(executor: GraphExecutor) -> tuple[int, list[str]] | None:
    """``(dimensions, properties)`` of the existing ``thought_embedding`` index (properties:
    ``["embedding"]``, then its filter properties), or None when there is none."""
    rows = await executor.read(_VECTOR_INDEX)
    return (int(rows[0]["dimensions"]), list(rows[0]["properties"])) if rows else None


async def vector_dimensions(executor: GraphExecutor) -> int | None:
    """Dimensions of the existing ``thought_embedding`` index, or None when there is none."""
    index = await vector_index_properties(executor)
    return index[0] if index else None


async def check_vector_dimensions(executor: GraphExecutor, dimensions: int) -> None:
    """Refuse to work against a vector index built for other dimensions.

    Raises:
        EmbeddingDimensionMismatchError: naming both numbers.
    """
    existing = await vector_dimensions(executor)
    if existing is not None and existing != dimensions:
        raise EmbeddingDimensionMismatchError(
            index_dimensions=existing, provider_dimensions=dimensions, index_name=VECTOR_INDEX
        )


async def schema_version(executor: GraphExecutor) -> int | None:
    """The version recorded in the graph, or None when never migrated."""
    rows = await executor.read(_GET_VERSION)
    return int(rows[0]["version"]) if rows else None


MAX_VECTOR_DIMENSIONS = 4096
"""Largest vector index Neo4j 5 creates (``vector.dimensions``)."""


async def ensure_schema(
    executor: GraphExecutor, *, dimensions: int, index_timeout_seconds: int = 300
) -> int:
    """Create every constraint and index (idempotently), wait until they are ONLINE, and record
    :data:`SCHEMA_VERSION`. On Neo4j 2026.x a vector index without the filter properties
    (:data:`VECTOR_FILTER_PROPERTIES`) is dropped and built again with them.

    Args:
        executor: the connection.
        dimensions: vector index dimensions (from the embedding provider; 1..4096).
        index_timeout_seconds: how long to wait for indexes to come online, in seconds.

    Returns:
        The schema version now recorded.

    Raises:
        EmbeddingDimensionMismatchError: the existing vector index has other dimensions.
        SchemaVersionError: the graph was migrated by a newer engrava-graph.
    """
    if not 1 <= dimensions <= MAX_VECTOR_DIMENSIONS:
        raise ValueError(f"vector dimensions must be 1..{MAX_VECTOR_DIMENSIONS}, got {dimensions}")
    recorded = await schema_version(executor)
    if recorded is not None and recorded > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the graph has schema version {recorded}, newer than this engrava-graph "
            f"({SCHEMA_VERSION}); upgrade engrava-graph"
        )
    await check_vector_dimensions(executor, dimensions)
    filtered = (await server_line(executor)).filtered_vector_index
    if filtered:
        index = await vector_index_properties(executor)
        if index is not None and tuple(index[1][1:]) != VECTOR_FILTER_PROPERTIES:
            await executor.run_auto_commit(_DROP_VECTOR)  # built before filter properties
    for stmt in schema_statements(filtered_vector_index=filtered):
        await executor.run_auto_commit(stmt, dimensions=dimensions)
    await executor.run_auto_commit(_AWAIT, timeout_seconds=index_timeout_seconds)
    await executor.write(_SET_VERSION, version=SCHEMA_VERSION, now=datetime.now(UTC))
    return SCHEMA_VERSION
