"""bulk_create_edges (the rules of create_edge, all or nothing), namespace annotations and
get_embeddings, on a real Neo4j."""

from __future__ import annotations

import pytest

from engrava_graph.model import (
    DuplicateEdgeError,
    EdgeType,
    ReferentialIntegrityError,
    ValidationFailedError,
)
from tests.factories import edge, thought


@pytest.fixture
async def trio(store):
    return await store.bulk_store([thought("alpha"), thought("beta"), thought("gamma")])


async def test_bulk_edges_are_stored_like_single_ones(store, trio):
    a, b, c = trio
    made = await store.bulk_create_edges(
        [edge(a, b), edge(b, c, EdgeType.DERIVED_FROM, weight=0.4, metadata={"k": 1})], batch_size=1
    )
    assert [await store.get_edge(e.edge_id) for e in made] == made
    assert made[1].edge_type is EdgeType.DERIVED_FROM and made[1].metadata == {"k": 1}
    assert made[0].created_at is not None
    assert await store.bulk_create_edges([]) == []


@pytest.mark.parametrize("case", ["missing", "taken_triple", "taken_id", "repeat_in_input"])
async def test_a_bad_row_refuses_the_whole_batch(store, trio, case):
    a, b, c = trio
    first = await store.create_edge(edge(a, b))
    good = edge(b, c)
    bad = {
        "missing": edge(c, "nope"),
        "taken_triple": edge(a, b),
        "taken_id": edge(c, a, edge_id=first.edge_id),
        "repeat_in_input": edge(b, c),
    }[case]
    expected = ReferentialIntegrityError if case == "missing" else DuplicateEdgeError
    with pytest.raises(expected) as info:
        await store.bulk_create_edges([good, bad])
    if case == "missing":
        assert info.value.missing_thought_ids == ["nope"]
    assert [e.edge_id for e in await store.list_edges()] == [first.edge_id]


async def test_edges_never_cross_namespaces(store, make_store, trio):
    other = make_store()
    [x] = await other.bulk_store([thought("elsewhere")])
    with pytest.raises(ReferentialIntegrityError):
        await store.bulk_create_edges([edge(trio[0], x)])


async def test_namespace_annotations_round_trip_and_go_with_the_namespace(store):
    assert await store.namespace_annotations() == {}
    await store.annotate_namespace(fingerprint="abc", size=3)
    await store.annotate_namespace(size=None)
    assert await store.namespace_annotations() == {"fingerprint": "abc"}
    with pytest.raises(ValidationFailedError):
        await store.annotate_namespace(name="x")
    with pytest.raises(ValidationFailedError):
        await store.annotate_namespace(nested={"a": 1})  # type: ignore[arg-type]
    for key in ("", "a\x00"):  # property names Neo4j refuses: typed, before the write
        with pytest.raises(ValidationFailedError, match="annotation key"):
            await store.annotate_namespace(**{key: 1})
    await store.delete_namespace()
    assert await store.namespace_annotations() == {}


async def test_get_embeddings_reads_many_at_once(store, trio):
    got = await store.get_embeddings([t.thought_id for t in trio] + ["missing"])
    assert sorted(got) == sorted(t.thought_id for t in trio)
    assert got[trio[0].thought_id] == await store.get_embedding(trio[0].thought_id)
