"""add_messages on a real Neo4j: the graph it builds, positions across calls, idempotent
re-sends, conflicts, one transaction per call."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from engrava_graph.conversations import conversation_thought_id
from engrava_graph.graph.registry import cypher
from engrava_graph.model import ThoughtType, ValidationFailedError
from engrava_graph.model.errors import EmbeddingError, MessageConflictError

MESSAGES = cypher("conversations/messages")
WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


async def _messages(store, conversation_id: str) -> list[dict]:
    return await store.executor.read(
        MESSAGES, namespace=store.namespace, conversation_id=conversation_id
    )


async def test_messages_become_observations_linked_to_their_conversation(store):
    stored = await store.add_messages(
        "session_1",
        [
            {
                "speaker": "Caroline",
                "content": "I went to the LGBTQ support group yesterday.",
                "timestamp": WHEN,
                "metadata": {"turn": "D1:1"},
                "message_id": "D1:1",
            },
            {"role": "assistant", "content": "That sounds meaningful."},
        ],
    )
    assert [(s.position, s.speaker, s.created) for s in stored] == [
        (0, "Caroline", True),
        (1, "assistant", True),
    ]
    first = stored[0].thought
    assert first.thought_type is ThoughtType.OBSERVATION
    assert first.content == "Caroline: I went to the LGBTQ support group yesterday."
    assert first.essence == first.content and first.valid_from == WHEN
    assert first.metadata == {"turn": "D1:1"}
    got = await store.get_thought(first.thought_id)
    assert got is not None and got.content == first.content
    assert await store.get_embedding(first.thought_id) is not None
    rows = await _messages(store, "session_1")
    note_id = conversation_thought_id(store.namespace, "session_1")
    assert [(r["position"], r["message_id"], r["conversation"]) for r in rows] == [
        (0, "D1:1", note_id),
        (1, stored[1].message_id, note_id),
    ]
    assert rows[1]["role"] == "assistant" and rows[1]["message_id"].startswith("#1-")
    note = await store.get_thought(note_id)
    assert note is not None and note.thought_type is ThoughtType.NOTE
    assert (await store.search_fts("LGBTQ support group", 5))[0][0] == first.thought_id


async def test_positions_continue_and_resends_create_nothing(store):
    batch = [{"speaker": "A", "content": f"message {i}"} for i in range(3)]
    await store.add_messages("c1", batch)
    count = await store.count_thoughts()
    again = await store.add_messages("c1", batch)
    assert [s.created for s in again] == [False] * 3 and await store.count_thoughts() == count
    more = await store.add_messages("c1", [*batch[1:], {"speaker": "B", "content": "new"}])
    assert [(s.position, s.created) for s in more] == [(1, False), (2, False), (3, True)]
    later = await store.add_messages("c1", [{"speaker": "A", "content": "message 0"}])
    assert (later[0].position, later[0].created) == (4, True)  # not the tail: a new message
    other = await store.add_messages("c2", batch[:1])
    assert other[0].position == 0 and other[0].thought.thought_id != again[0].thought.thought_id
    assert [r["position"] for r in await _messages(store, "c1")] == [0, 1, 2, 3, 4]
    assert await store.count_thoughts() == count + 2 + 2  # c1: +2 messages; c2: message + note


async def test_same_id_other_content_is_a_conflict_and_writes_nothing(store):
    await store.add_messages("c", [{"speaker": "A", "content": "hello", "message_id": "m1"}])
    count = await store.count_thoughts()
    with pytest.raises(MessageConflictError):
        await store.add_messages(
            "c",
            [
                {"speaker": "A", "content": "new", "message_id": "m2"},
                {"speaker": "A", "content": "edited", "message_id": "m1"},
            ],
        )
    assert await store.count_thoughts() == count


async def test_bad_input_and_failed_embedding_write_nothing(make_store):
    class Broken:
        dimensions = 384
        model_name = "broken"

        def embed(self, texts):
            raise EmbeddingError("provider down")

    store = make_store(embedding_provider=Broken())
    with pytest.raises(ValidationFailedError):
        await store.add_messages("c", [{"content": "no speaker"}])
    with pytest.raises(EmbeddingError):
        await store.add_messages("c", [{"speaker": "A", "content": "hi"}])
    assert not await store.namespace_exists()
    with pytest.raises(ValidationFailedError, match="1-10000 messages"):
        await store.add_messages("c", [])  # as over REST, MCP and the client


async def test_concurrent_calls_on_one_conversation_get_distinct_positions(store):
    results = await asyncio.gather(
        *(store.add_messages("c", [{"speaker": "A", "content": f"text {i}"}]) for i in range(4))
    )
    positions = sorted(r[0].position for r in results)
    assert positions == [0, 1, 2, 3]
