"""Namespaces: one Neo4j holds many agents' memories; nothing crosses a namespace (issue 8)."""

from __future__ import annotations

import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.registry import cypher
from engrava_graph.model import (
    DuplicateThoughtError,
    EdgeType,
    InvalidNamespaceError,
    ReferentialIntegrityError,
)
from tests.factories import edge, thought

TEXTS = [
    "Caroline adopted a golden retriever named Max",
    "The outage was caused by a missing environment variable",
    "Deploy failed at 3pm on Tuesday",
]


@pytest.fixture
async def twins(make_store):
    """Two namespaces holding the same ids and texts; B also has cycle-9 data."""
    a, b = make_store(), make_store()
    for store, cycle in ((a, 1), (b, 9)):
        await store.ensure_namespace()
        records = [
            thought(t, thought_id=f"t{i}", created_cycle=cycle, updated_cycle=cycle)
            for i, t in enumerate(TEXTS)
        ]
        await store.bulk_store(records)
        await store.create_edge(edge("t1", "t2", EdgeType.LEADS_TO, edge_id="e1"))
    return a, b


async def test_every_read_path_stays_in_its_namespace(twins):
    a, b = twins
    await a.update_thought("t0", essence="only in A")
    assert (await b.get_thought("t0")).essence == TEXTS[0]
    assert [t.essence for t in await a.list_thoughts()].count("only in A") == 1
    assert "only in A" not in [t.essence for t in await b.list_thoughts()]
    assert await a.count_thoughts() == await b.count_thoughts() == 3
    for store in (a, b):
        fts = await store.search_fts("retriever")
        similar = await store.search_similar(await store.embed_query("a dog"), top_k=10)
        hybrid = await store.search_hybrid("dog", top_k=10)
        recall = await store.recall("dog", top_k=10)
        retrieved = await store.retrieve("What caused the outage?", top_k=10)
        explained = await store.explain("What caused the outage?", level="debug")
        for ids in (
            [i for i, _ in fts],
            [i for i, _ in similar],
            [i for i, _ in hybrid.results],
            [i for i, _ in recall.results],
            [r.thought_id for r in retrieved],
            [c.thought_id for c in explained.candidates],
        ):
            assert len(ids) == len(set(ids)) and set(ids) <= {"t0", "t1", "t2"}
        assert [e.edge_id for e in await store.list_edges()] == ["e1"]
    assert await a.max_cycle() == 1 and await b.max_cycle() == 9


async def test_results_carry_this_namespaces_version(twins):
    a, b = twins
    await b.update_thought("t1", essence="B's own version of the outage cause")
    result = await a.retrieve("What caused the outage?")
    texts = {r.text for r in result}
    assert "B's own version of the outage cause" not in texts


async def test_edges_cannot_cross_namespaces(make_store):
    a, b = make_store(), make_store()
    only_a = await a.create_thought(thought("lives in A"))
    only_b = await b.create_thought(thought("lives in B"))
    with pytest.raises(ReferentialIntegrityError, match="never cross namespaces"):
        await a.create_edge(edge(only_a, only_b))
    assert await a.list_edges() == [] and await b.list_edges() == []


async def test_dedup_does_not_match_across_namespaces(make_store):
    a, b = make_store(), make_store()
    first = await a.create_thought(thought("same words"), deduplicate=True)
    second = await b.create_thought(thought("same words"), deduplicate=True)
    assert second.confirmation_count == 0 and first.confirmation_count == 0
    assert await a.count_thoughts() == await b.count_thoughts() == 1


async def test_deleting_a_namespace_leaves_the_other_intact(twins, executor):
    a, b = twins
    count = cypher("hygiene/namespace_census")
    before = (await executor.read(count, namespace=b.namespace))[0]
    await a.delete_namespace(batch_size=2)
    assert (await executor.read(count, namespace=a.namespace))[0] == {
        "nodes": 0,
        "relationships": 0,
    }
    assert not await a.namespace_exists()
    assert (await executor.read(count, namespace=b.namespace))[0] == before
    assert await b.count_thoughts() == 3


def test_namespace_is_validated(executor):
    for bad in ("", "has space", "x" * 65, "a/b", "}) DETACH DELETE n //"):
        with pytest.raises(InvalidNamespaceError):
            Neo4jEngravaCore(executor, namespace=bad)


async def test_the_first_committed_write_registers_the_namespace(make_store):
    fresh = make_store()  # never registered
    with pytest.raises(DuplicateThoughtError):
        await fresh.bulk_store([thought("twice", thought_id="t"), thought("twice", thought_id="t")])
    assert not await fresh.namespace_exists()
    await fresh.create_thought(thought("first memory"), deduplicate=True)
    assert await fresh.namespace_exists()
