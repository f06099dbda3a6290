"""ReadOnlyEngrava on a real store: reads pass (recording no access), every write raises
ReadOnlyViolationError and writes nothing."""

from __future__ import annotations

import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.model.errors import ReadOnlyViolationError
from engrava_graph.read_only import WRITE_METHODS, ReadOnlyEngrava
from tests.factories import edge, thought


async def test_every_write_raises_read_only_violation_and_writes_nothing(make_store) -> None:
    store: Neo4jEngravaCore = make_store()
    a, b = thought("alpha"), thought("beta")
    await store.bulk_store([a, b])
    view = ReadOnlyEngrava(store)
    for name in sorted(WRITE_METHODS):
        with pytest.raises(ReadOnlyViolationError) as caught:
            await getattr(view, name)(a.thought_id)
        assert caught.value.method == name
    with pytest.raises(ReadOnlyViolationError):
        await view.bulk_create_edges([edge(a, b)])
    with pytest.raises(ReadOnlyViolationError):
        await view.annotate_namespace(source="test")
    assert await store.count_thoughts() == 2
    assert await store.list_edges() == []
    assert await store.namespace_annotations() == {}


async def test_reads_pass_and_record_no_access(make_store) -> None:
    store: Neo4jEngravaCore = make_store(access_tracking_enabled=True)
    a = await store.create_thought(thought("gamma ray burst"))
    await store.annotate_namespace(source="test")
    view = ReadOnlyEngrava(store)
    assert (await view.get_thought(a.thought_id)).thought_id == a.thought_id
    assert set(await view.get_embeddings([a.thought_id])) == {a.thought_id}
    assert await view.namespace_annotations() == {"source": "test"}
    assert await view.namespace_exists()
    assert [tid for tid, _ in (await view.recall("gamma ray")).results] == [a.thought_id]
    assert await store.flush_access_buffer() == 0


def test_a_name_the_store_does_not_offer_is_an_attribute_error(make_store) -> None:
    view = ReadOnlyEngrava(make_store())
    with pytest.raises(AttributeError):
        view.retrievable_scope  # noqa: B018 - the lookup itself is the test
