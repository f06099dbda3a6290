"""Thoughts edited by hand in Neo4j (as a person would in Neo4j Browser): an extra property is
kept and ignored; a value no write produces is named by a typed error on read, and ranked with
defaults by retrieval, so one such node never fails its whole namespace."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engrava_graph.model import InvalidStoredRecordError
from tests.factories import thought

NOW = datetime(2026, 1, 1, tzinfo=UTC)


async def _in_browser(store, statement: str, thought_id: str) -> None:
    """Run what a person would type in Neo4j Browser against one thought."""
    async with store.executor.driver.session(database=store.executor.database) as session:
        result = await session.run(
            f"MATCH (t:Thought {{namespace: $ns, thought_id: $id}}) {statement}",
            ns=store.namespace,
            id=thought_id,
        )
        await result.consume()


async def test_a_hand_edited_thought_is_named_on_read_and_ranked_by_retrieval(store):
    urgent, plain, extra = await store.bulk_store(
        [
            thought("The deployment window is Tuesday 2-4pm UTC"),
            thought("Lunch is at noon on Fridays"),
            thought("The deploy checklist lives in the wiki"),
        ]
    )
    await _in_browser(store, "SET t.priority = 'URGENT', t.confidence = 7", urgent.thought_id)
    await _in_browser(store, "SET t.reviewed = true", extra.thought_id)

    assert (await store.get_thought(extra.thought_id)).essence == extra.essence
    with pytest.raises(InvalidStoredRecordError) as caught:
        await store.get_thought(urgent.thought_id)
    assert caught.value.record_id == urgent.thought_id
    assert "priority" in str(caught.value) and "Neo4j" in str(caught.value)
    with pytest.raises(InvalidStoredRecordError):
        await store.list_thoughts()

    response = await store.retrieve("deploy schedule", top_k=3, now=NOW)
    assert urgent.thought_id in [r.thought_id for r in response.results]


async def test_a_text_edited_by_hand_is_searched_as_edited(store):
    """An edit in Neo4j Browser is what the keyword arm searches and scores next, even a text
    set to a value that is not a string (read as empty; the essence still counts)."""
    first, second = await store.bulk_store(
        [thought("The deployment window is Tuesday 2-4pm UTC"), thought("Yak shearing in spring")]
    )
    await _in_browser(
        store,
        "SET t.essence = 'Xylophone lessons', t.content = 'Xylophone lessons on Monday'",
        first.thought_id,
    )
    await _in_browser(store, "SET t.essence = 'Xylophone', t.content = 42", second.thought_id)
    found = {tid for tid, _ in await store.search_fts("xylophone")}
    assert found == {first.thought_id, second.thought_id}
    assert await store.search_fts("deployment window") == []
    response = await store.retrieve("xylophone lessons", top_k=5, now=NOW)
    assert {r.thought_id for r in response.results} == found  # no query fails on the 42
