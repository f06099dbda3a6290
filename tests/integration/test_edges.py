"""Edges: creation rules, uniqueness (also under concurrent writers), queries, updates."""

from __future__ import annotations

import asyncio

import pytest

from engrava_graph.model import (
    DuplicateEdgeError,
    EdgeNotFoundError,
    EdgeType,
    KnowledgeSource,
    MetadataFilter,
    ReferentialIntegrityError,
    ValidationFailedError,
)
from tests.factories import edge, thought


@pytest.fixture
async def pair(store):
    return await store.bulk_store([thought("alpha"), thought("beta")])


async def test_create_and_read_back(store, pair):
    a, b = pair
    made = await store.create_edge(
        edge(a, b, EdgeType.CAUSED_BY, weight=0.7, confidence=0.9, metadata={"why": "test"})
    )
    got = await store.get_edge(made.edge_id)
    assert got == made
    assert got.edge_type is EdgeType.CAUSED_BY and got.link_confidence == 0.9
    assert [e.edge_id for e in await store.get_edges(a.thought_id, direction="OUT")] == [
        made.edge_id
    ]
    assert await store.get_edges(a.thought_id, direction="IN") == []
    assert [e.edge_id for e in await store.get_edges(b.thought_id, direction="IN")] == [
        made.edge_id
    ]


async def test_duplicate_triple_is_refused(store, pair):
    a, b = pair
    await store.create_edge(edge(a, b))
    with pytest.raises(DuplicateEdgeError, match="already exists"):
        await store.create_edge(edge(a, b, weight=0.1))
    # another type, or the other direction, is a different edge
    await store.create_edge(edge(a, b, EdgeType.DEPENDS_ON))
    await store.create_edge(edge(b, a))
    assert len(await store.list_edges()) == 3


async def test_concurrent_duplicate_creates_leave_one_edge(store, pair):
    a, b = pair
    results = await asyncio.gather(
        *(store.create_edge(edge(a, b)) for _ in range(4)), return_exceptions=True
    )
    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, DuplicateEdgeError) for r in results if isinstance(r, Exception))
    assert len(await store.list_edges()) == 1


async def test_duplicate_edge_id_across_types(store, pair):
    a, b = pair
    first = await store.create_edge(edge(a, b))
    with pytest.raises(DuplicateEdgeError, match="is taken"):
        await store.create_edge(edge(b, a, EdgeType.LEADS_TO, edge_id=first.edge_id))


async def test_missing_endpoint_and_self_loop(store, pair):
    a, _ = pair
    with pytest.raises(ReferentialIntegrityError, match="nope"):
        await store.create_edge(edge(a, "nope"))
    with pytest.raises(ValueError, match="itself"):
        edge(a, a)


async def test_list_filters_update_delete(store, pair):
    a, b = pair
    e1 = await store.create_edge(edge(a, b, metadata={"k": "x"}))
    await store.create_edge(edge(b, a, EdgeType.LEADS_TO, source=KnowledgeSource.DREAMING))
    assert [e.edge_id for e in await store.list_edges(filters=MetadataFilter.equals(k="x"))] == [
        e1.edge_id
    ]
    assert len(await store.list_edges(edge_type=EdgeType.LEADS_TO)) == 1
    assert len(await store.list_edges(source=KnowledgeSource.DREAMING)) == 1
    updated = await store.update_edge(e1.edge_id, weight=0.25, metadata={})
    assert updated.weight == 0.25 and updated.metadata == {}
    assert await store.list_edges(filters=MetadataFilter.equals(k="x")) == []
    with pytest.raises(ValidationFailedError, match="cannot change"):
        await store.update_edge(e1.edge_id, to_thought_id=a.thought_id)
    with pytest.raises(ValidationFailedError):
        await store.update_edge(e1.edge_id, weight=2.0)
    assert await store.delete_edge(e1.edge_id) is True
    assert await store.delete_edge(e1.edge_id) is False
    with pytest.raises(EdgeNotFoundError):
        await store.update_edge(e1.edge_id, weight=0.5)
