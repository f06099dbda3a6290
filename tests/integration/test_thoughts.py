"""Thought CRUD, lifecycle, dedup, delete cascade, listing: the store on a real Neo4j."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from engrava_graph.graph.registry import cypher
from engrava_graph.model import (
    DuplicateThoughtError,
    EdgeType,
    InvalidTransitionError,
    LifecycleStatus,
    MetadataFilter,
    Priority,
    RepeatedThoughtIdError,
    ThoughtFilter,
    ThoughtNotFoundError,
    ThoughtType,
    ValidationFailedError,
    ValidTimeFilter,
)
from tests.factories import edge, thought


async def test_round_trip_keeps_every_field(store):
    t = thought(
        "Caroline went to the LGBTQ support group in Boston",
        content="Long text about the support group meeting.",
        priority=Priority.P1,
        confidence=0.8,
        created_cycle=3,
        updated_cycle=4,
        valid_from="2023-05-07T00:00:00Z",
        tags=["Support", "community"],
        metadata={"speaker": "Caroline", "session": 1, "src": {"is_self": True}},
    )
    await store.create_thought(t)
    got = await store.get_thought(t.thought_id)
    assert got is not None
    assert got.essence == t.essence and got.content == t.content
    assert got.metadata == {"speaker": "Caroline", "session": 1, "src": {"is_self": True}}
    assert got.valid_from == datetime(2023, 5, 7, tzinfo=UTC)
    assert got.created_at is not None and got.created_at.tzinfo is not None
    assert got.tags == ["support", "community"]
    assert (got.priority, got.confidence, got.updated_cycle) == (Priority.P1, 0.8, 4)
    assert len(await store.get_embedding(t.thought_id)) == 384


async def test_graph_shape_labels_entities_and_tags(store, executor):
    t = thought("Melanie painted a sunrise at Lake Tahoe", tags=["art"])
    await store.create_thought(t)
    row = (
        await executor.read(
            cypher("hygiene/thought_links"), namespace=store.namespace, thought_id=t.thought_id
        )
    )[0]
    assert set(row["labels"]) == {"Thought", "Observation"}
    assert "melanie" in row["entities"]
    assert row["tags"] == ["art"]


async def test_duplicate_id_is_refused_and_nothing_changes(store):
    t = thought("first")
    await store.create_thought(t)
    with pytest.raises(DuplicateThoughtError, match=t.thought_id):
        await store.create_thought(t.model_copy(update={"essence": "second"}))
    assert (await store.get_thought(t.thought_id)).essence == "first"


async def test_dedup_increments_confirmation_count(store):
    a = await store.create_thought(thought("the sky is blue"), deduplicate=True)
    b = await store.create_thought(thought("the sky is blue"), deduplicate=True)
    assert b.thought_id == a.thought_id
    assert b.confirmation_count == 1
    assert await store.count_thoughts() == 1


async def test_concurrent_dedup_creates_one_thought(store):
    results = await asyncio.gather(
        *(store.create_thought(thought("same text"), deduplicate=True) for _ in range(5))
    )
    assert len({r.thought_id for r in results}) == 1
    assert await store.count_thoughts() == 1
    assert (await store.get_thought(results[0].thought_id)).confirmation_count == 4


async def test_update_writes_a_new_version(store):
    t = await store.create_thought(thought("old essence", metadata={"a": 1, "b": 2}))
    new = await store.update_thought(
        t.thought_id,
        essence="new essence",
        metadata={"a": 5},
        updated_cycle=2,
        thought_type=ThoughtType.BELIEF,
    )
    assert new.essence == "new essence" and new.metadata == {"a": 5}
    assert new.updated_at > t.updated_at and new.created_at == t.created_at
    assert new.thought_type is ThoughtType.BELIEF
    # the removed metadata key is gone from the graph, so a filter on it finds nothing
    assert await store.count_thoughts(filters=MetadataFilter.equals(b=2)) == 0
    assert await store.count_thoughts(filters=MetadataFilter.equals(a=5)) == 1
    assert await store.count_thoughts(thought_type="BELIEF") == 1


async def test_update_rules(store):
    t = await store.create_thought(thought("x", created_cycle=5, updated_cycle=5))
    with pytest.raises(ValidationFailedError, match="updated_cycle"):
        await store.update_thought(t.thought_id, updated_cycle=4)
    with pytest.raises(InvalidTransitionError, match="ACTIVE to CREATED"):
        await store.update_thought(t.thought_id, lifecycle_status=LifecycleStatus.CREATED)
    with pytest.raises(ValidationFailedError):
        await store.update_thought(t.thought_id, no_such_field=1)
    with pytest.raises(ValueError, match="immutable"):
        await store.update_thought(t.thought_id, created_at="2020-01-01T00:00:00Z")
    with pytest.raises(ThoughtNotFoundError):
        await store.update_thought("missing", essence="y")
    assert (await store.get_thought(t.thought_id)).essence == "x"


async def test_illegal_lifecycle_jump(store):
    t = await store.create_thought(thought("task", lifecycle_status=LifecycleStatus.CREATED))
    with pytest.raises(InvalidTransitionError, match="CREATED to DONE"):
        await store.update_thought(t.thought_id, lifecycle_status=LifecycleStatus.DONE)
    await store.update_thought(t.thought_id, lifecycle_status=LifecycleStatus.ACTIVE)
    await store.update_thought(t.thought_id, lifecycle_status=LifecycleStatus.DONE)


async def test_concurrent_updates_are_all_applied(store):
    t = await store.create_thought(thought("counter", metadata={}))
    await asyncio.gather(
        *(store.update_thought(t.thought_id, confirmation_count=i) for i in range(1, 4))
    )
    # every write landed as its own revision: none was silently lost half-way
    got = await store.get_thought(t.thought_id)
    assert got.confirmation_count in {1, 2, 3}


async def test_delete_cascades_edges_and_embedding(store):
    a, b, c = await store.bulk_store([thought("a"), thought("b"), thought("c")])
    await store.create_edge(edge(a, b))
    await store.create_edge(edge(c, a, EdgeType.DEPENDS_ON))
    assert await store.delete_thought(a.thought_id) is True
    assert await store.get_thought(a.thought_id) is None
    assert await store.get_embedding(a.thought_id) is None
    assert await store.get_edges(b.thought_id) == []
    assert await store.get_edges(c.thought_id) == []
    assert await store.list_edges() == []
    assert await store.delete_thought(a.thought_id) is False


async def test_archive_and_restore(store):
    t = await store.create_thought(thought("to archive"))
    archived = await store.update_thought(t.thought_id, lifecycle_status=LifecycleStatus.ARCHIVED)
    assert archived.lifecycle_status is LifecycleStatus.ARCHIVED
    restored = await store.restore_thought(t.thought_id, current_cycle=9)
    assert restored.lifecycle_status is LifecycleStatus.ACTIVE and restored.updated_cycle == 9
    with pytest.raises(InvalidTransitionError):
        await store.restore_thought(t.thought_id)


async def test_restoring_a_thought_that_is_not_archived_says_why(store):
    t = await store.create_thought(thought("finished work"))
    await store.update_thought(t.thought_id, lifecycle_status=LifecycleStatus.DONE)
    with pytest.raises(InvalidTransitionError) as raised:
        await store.restore_thought(t.thought_id)
    message = str(raised.value)
    assert "ARCHIVED" in message and "is DONE" in message
    assert "use restore_thought" not in message


@pytest.mark.parametrize("value", [0.0, 1e-300, 1e38])
async def test_a_vector_without_a_usable_norm_is_refused_and_nothing_written(store, value):
    # Neo4j stores float32 and its cosine rejects a zero or infinite norm: one such vector
    # would break every vector search in the namespace
    vector = [value] * store.vector_dimensions
    with pytest.raises(ValidationFailedError, match="non-zero, finite length"):
        await store.create_thought(thought("zero vector"), embedding=vector)
    with pytest.raises(ValidationFailedError, match="non-zero, finite length"):
        await store.bulk_store([thought("fine"), thought("zero")], embeddings=[None, vector])
    assert await store.count_thoughts() == 0
    await store.create_thought(thought("a normal memory about zero vectors"))
    assert len((await store.retrieve("zero vectors")).results) == 1


async def test_a_bulk_embedding_of_the_wrong_size_names_its_position(store):
    """The library's own message says which vector of the batch is wrong and how (the REST
    service also names it by ``field``); a single thought's says the same of its one."""
    dims = store.vector_dimensions
    good = [1.0] * dims
    given = [good, None, good, [1.0] * 12, good]
    with pytest.raises(ValidationFailedError) as bulk:
        await store.bulk_store([thought(f"t{i}") for i in range(5)], embeddings=given)
    assert (
        str(bulk.value)
        == f"embedding 3 of 5 (counted from 0) has 12 dimensions; the index expects {dims}"
    )
    assert bulk.value.errors[0]["loc"] == ("embeddings.3",)
    with pytest.raises(ValidationFailedError, match="^the embedding has 2 dimensions; the index"):
        await store.create_thought(thought("one"), embedding=[1.0, 2.0])
    nan = [*good[:-1], float("nan")]
    with pytest.raises(
        ValidationFailedError, match=f"embedding 0 of 1 .* holds nan at position {dims - 1}"
    ):
        await store.bulk_store([thought("nan")], embeddings=[nan])
    assert await store.count_thoughts() == 0


async def test_list_and_count_filters(store):
    now = datetime.now(UTC)
    await store.bulk_store(
        [
            thought("p1", priority=Priority.P1, metadata={"speaker": "A"}, updated_cycle=1),
            thought("p2", priority=Priority.P2, metadata={"speaker": "B"}, updated_cycle=5),
            thought("old", expires_at=now - timedelta(days=1)),
            thought("arch", lifecycle_status=LifecycleStatus.ARCHIVED),
            thought("valid", valid_from="2023-01-01T00:00:00Z", valid_until="2023-02-01T00:00:00Z"),
        ]
    )
    assert await store.count_thoughts() == 4  # expired hidden, archived listed
    assert await store.count_thoughts(include_expired=True) == 5
    assert await store.count_thoughts(include_archived=False) == 3
    assert await store.count_thoughts(priority="P1") == 1
    assert await store.count_thoughts(min_cycle=2) == 1
    assert (
        await store.count_thoughts(filters=MetadataFilter.from_mapping({"speaker": ["A", "B"]}))
        == 2
    )
    assert await store.count_thoughts(filters=MetadataFilter.equals(speaker=None)) == 2
    at = ValidTimeFilter.at("2023-01-15T00:00:00Z")
    assert {t.essence for t in await store.list_thoughts(valid_time=at)} == {
        "p1",
        "p2",
        "arch",
        "valid",
    }
    between = ValidTimeFilter.between("2022-12-01T00:00:00Z", "2023-03-01T00:00:00Z")
    assert [t.essence for t in await store.list_thoughts(valid_time=between)] == ["valid"]
    outside = ValidTimeFilter.within("2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z")
    assert "valid" not in {t.essence for t in await store.list_thoughts(valid_time=outside)}

    # The same criteria passed whole as one ThoughtFilter; keywords refine it.
    speakers = ThoughtFilter(filters=MetadataFilter.from_mapping({"speaker": ["A", "B"]}))
    assert await store.count_thoughts(speakers) == 2
    assert [t.essence for t in await store.list_thoughts(speakers, priority="P2")] == ["p2"]
    assert await store.count_thoughts(ThoughtFilter(include_expired=True)) == 5
    with pytest.raises(TypeError):
        await store.count_thoughts(speaker="A")


async def test_keyset_pagination_visits_each_thought_once(store):
    await store.bulk_store([thought(f"t{i}") for i in range(7)])
    seen, after = [], None
    while page := await store.list_thoughts(limit=3, after_id=after):
        seen += [t.thought_id for t in page]
        after = page[-1].thought_id
    assert len(seen) == len(set(seen)) == 7


async def test_bulk_store_is_all_or_nothing(store):
    existing = await store.create_thought(thought("exists"))
    with pytest.raises(DuplicateThoughtError):
        await store.bulk_store([thought("new one"), existing])
    assert await store.count_thoughts() == 1
    first = thought("twice")
    with pytest.raises(RepeatedThoughtIdError) as caught:  # a DuplicateThoughtError too
        await store.bulk_store([first, thought("other"), first.model_copy()])
    assert (caught.value.index, caught.value.field) == (2, "thoughts.2.thought_id")
    assert isinstance(caught.value, DuplicateThoughtError)
    assert await store.count_thoughts() == 1


async def test_remember_and_max_cycle(store):
    t = await store.remember("  a bare string memory  ", metadata={"k": "v"})
    assert t.thought_type is ThoughtType.NOTE and t.essence == "a bare string memory"
    assert await store.max_cycle() == 0
    a = await store.create_thought(thought("a", created_cycle=2, updated_cycle=7))
    await store.create_edge(edge(a, t, created_cycle=11))
    assert await store.max_cycle() == 11


async def test_a_read_carries_the_bookmark_of_the_write_before_it(store):
    """Every session of an executor shares one bookmark manager: a read after a write asks the
    server for at least that write (read-your-writes on a cluster, where reads go to readers)."""
    before = set(await store.executor.bookmark_manager.get_bookmarks())
    created = await store.create_thought(thought(essence="causally chained"))
    after = set(await store.executor.bookmark_manager.get_bookmarks())
    assert after and after != before
    assert (await store.get_thought(created.thought_id)).essence == "causally chained"
