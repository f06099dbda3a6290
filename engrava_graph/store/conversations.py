"""The store's conversation area: chat messages stored as thoughts that keep their order.

The graph it builds, the ids and the re-send rules are :mod:`engrava_graph.conversations`'s
(which holds everything that needs no store: the message model, validation and placement).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from neo4j.exceptions import ConstraintError

from engrava_graph.conversations import (
    Message,
    Placement,
    StoredMessage,
    clip,
    conversation_thought_id,
    message_thought_id,
    place,
    read_state,
    validate_messages,
)
from engrava_graph.graph.executor import run_in
from engrava_graph.graph.mapping import record_properties
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import EdgeType, ThoughtType
from engrava_graph.model.errors import StaleDataError
from engrava_graph.model.records import EdgeRecord, ThoughtRecord
from engrava_graph.store._base import StoreBase
from engrava_graph.store.modes import writes

Q = {
    name: cypher(name)
    for name in (
        "conversations/lock",
        "conversations/advance",
        "thoughts/create",
        "edges/bulk_create",
    )
}
_BATCH = 500  # rows per UNWIND statement
_ATTEMPTS = 3  # placements tried when concurrent calls move the same conversation


class _Moved(Exception):
    """Under the lock, the batch needs a vector that was not computed before (another call
    changed the conversation in between): place and embed again."""


class ConversationsMixin(StoreBase):
    """Conversation ingest of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    @writes
    async def add_messages(
        self,
        conversation_id: str,
        messages: Sequence[Message | Mapping[str, Any]],
        *,
        source: str = "conversation",
    ) -> list[StoredMessage]:
        """Store a conversation's messages: one OBSERVATION thought per message (with its
        ``conversation_id``, ``position``, ``speaker``, ``message_id``, ``valid_from`` = its
        timestamp), one NOTE thought per conversation, MESSAGE_OF edges; idempotent on re-send,
        one transaction per call (see :mod:`engrava_graph.conversations`).

        The batch is placed once to find the new messages, which are embedded in one batched
        provider call (on a worker thread) before anything is written; then, in one transaction
        that holds the conversation thought's lock, it is placed again against what is
        committed and written with entities extracted as ``bulk_store`` does: the conversation
        thought, the messages, their MESSAGE_OF edges and the namespace registration, all or
        nothing. Concurrent calls on one conversation therefore get distinct positions.

        Args:
            conversation_id: the conversation, 1-256 characters that are one URL path segment
                (e.g. ``"session_3"``; no ``/``: see
                :func:`~engrava_graph.conversations.checked_conversation_id`).
            messages: :class:`~engrava_graph.conversations.Message` objects or mappings with
                ``content``, ``speaker`` and/or ``role``, optional ``timestamp``, ``metadata``,
                ``message_id``; in conversation order (new ones continue after the last
                stored position).
            source: the thoughts' ``source``.

        Returns:
            One :class:`~engrava_graph.conversations.StoredMessage` per message, in input
            order (``created=False`` for a re-send).

        Raises:
            ValidationFailedError: bad arguments (the message index in ``errors[].loc``).
            MessageConflictError: a stored message id comes with other content.
            StaleDataError: concurrent calls kept moving the conversation (3 tries).
            EmbeddingError: the provider failed (nothing is written).
        """
        parsed = validate_messages(conversation_id, messages, source=source)
        conversation_tid = conversation_thought_id(self.namespace, conversation_id)
        vectors: dict[str, list[float] | None] = {}
        for _ in range(_ATTEMPTS):
            exists, stored, next_position = await read_state(
                self.executor.read, self.namespace, conversation_id, conversation_tid, parsed
            )
            placements = place(conversation_id, parsed, stored, next_position)
            texts = sorted(
                {m.text for m, p in zip(parsed, placements, strict=True) if p.existing is None}
                - set(vectors)
            )
            if texts:
                records = [
                    ThoughtRecord(
                        thought_type=ThoughtType.OBSERVATION,
                        essence=clip(t),
                        content=t,
                        source=source,
                    )
                    for t in texts
                ]
                vectors.update(zip(texts, await self._vectors_for(records, None), strict=True))
            try:
                return await self._write_messages(
                    conversation_id,
                    conversation_tid,
                    parsed,
                    vectors,
                    None if exists else source,
                    source,
                )
            except (_Moved, ConstraintError):
                continue
        raise StaleDataError(conversation_tid)

    async def _write_messages(
        self,
        conversation_id: str,
        conversation_tid: str,
        messages: list[Message],
        vectors: Mapping[str, list[float] | None],
        create_note: str | None,
        source: str,
    ) -> list[StoredMessage]:
        """One transaction: lock the conversation, place the batch, write what is new."""
        namespace = self.namespace
        now = self._clock()
        note_rows = []
        if create_note is not None:
            first = next((m.timestamp for m in messages if m.timestamp is not None), None)
            note = self._stamp(
                ThoughtRecord(
                    thought_id=conversation_tid,
                    thought_type=ThoughtType.NOTE,
                    essence=clip(f"Conversation {conversation_id}"),
                    content=f"Conversation {conversation_id}",
                    source=source,
                    valid_from=first,
                ),
                now,
                None,
            )
            note_row = self._row(note, None)
            note_row["entities"] = []
            note_row["props"].update(conversation_id=conversation_id, next_position=0)
            note_rows.append(note_row)

        async def work(tx: Any) -> tuple[list[Placement], list[ThoughtRecord]]:
            await self._register_in(tx)
            if note_rows:
                await run_in(
                    tx,
                    Q["thoughts/create"],
                    namespace=namespace,
                    ns_token=self._ns_token,
                    rows=note_rows,
                )
            await run_in(
                tx,
                Q["conversations/lock"],
                namespace=namespace,
                thought_id=conversation_tid,
                now=now,
            )
            _, stored, next_position = await read_state(
                lambda stmt, **params: run_in(tx, stmt, **params),
                namespace,
                conversation_id,
                conversation_tid,
                messages,
            )
            placements = place(conversation_id, messages, stored, next_position)
            new = [(m, p) for m, p in zip(messages, placements, strict=True) if p.existing is None]
            if any(m.text not in vectors for m, _ in new):
                raise _Moved
            records = [
                self._stamp(
                    ThoughtRecord(
                        thought_id=message_thought_id(namespace, conversation_id, p.message_id),
                        thought_type=ThoughtType.OBSERVATION,
                        essence=clip(m.text),
                        content=m.text,
                        source=source,
                        valid_from=m.timestamp,
                        metadata=m.metadata,
                    ),
                    now,
                    None,
                )
                for m, p in new
            ]
            rows = []
            for record, (message, placement) in zip(records, new, strict=True):
                row = self._row(record, vectors[message.text])
                row["props"].update(
                    {
                        k: v
                        for k, v in {
                            "conversation_id": conversation_id,
                            "position": placement.position,
                            "speaker": message.voice,
                            "role": message.role,
                            "message_id": placement.message_id,
                        }.items()
                        if v is not None
                    }
                )
                rows.append(row)
            edges = [
                {
                    "edge_type": EdgeType.MESSAGE_OF.value,
                    "props": record_properties(
                        EdgeRecord(
                            edge_id=f"MESSAGE_OF:{r.thought_id}",
                            from_thought_id=r.thought_id,
                            to_thought_id=conversation_tid,
                            edge_type=EdgeType.MESSAGE_OF,
                            created_at=now,
                        )
                    ),
                }
                for r in records
            ]
            for start in range(0, len(rows), _BATCH):
                await run_in(
                    tx,
                    Q["thoughts/create"],
                    namespace=namespace,
                    ns_token=self._ns_token,
                    rows=rows[start : start + _BATCH],
                )
                await run_in(
                    tx,
                    Q["edges/bulk_create"],
                    namespace=namespace,
                    rows=edges[start : start + _BATCH],
                )
            if records:
                await run_in(
                    tx,
                    Q["conversations/advance"],
                    namespace=namespace,
                    thought_id=conversation_tid,
                    next_position=next_position + len(records),
                )
            return placements, records

        placements, records = await self.executor.transaction(work)
        created = {r.thought_id: r for r in records}
        tids = [message_thought_id(namespace, conversation_id, p.message_id) for p in placements]
        existing_ids = sorted(set(tids) - set(created))
        fetched = await self.get_thoughts(existing_ids) if existing_ids else {}
        return [
            StoredMessage(
                thought=created.get(tid) or fetched[tid],
                conversation_id=conversation_id,
                position=placement.position,
                speaker=message.voice,
                message_id=placement.message_id,
                created=placement.existing is None,
            )
            for message, placement, tid in zip(messages, placements, tids, strict=True)
        ]
