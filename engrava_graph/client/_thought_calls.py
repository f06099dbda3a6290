"""The client's thought calls: remember, create, bulk store, add messages, get, update, delete,
restore and list thoughts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engrava_graph.client._base import ClientBase, path, sent, thought_path
from engrava_graph.client._ops import Op, Page, listing, operation
from engrava_graph.client._transport import Call, log, validated
from engrava_graph.conversations import Message, validate_messages
from engrava_graph.model.enums import (
    LifecycleStatus,
    Priority,
    ThoughtType,
    ThoughtVisibility,
)
from engrava_graph.model.records import ESSENCE_MAX_CHARS, ThoughtRecord
from engrava_graph.model.temporal import ValidTimeFilter, ValidTimeKind
from engrava_graph.wire import (
    BulkResult,
    BulkThoughts,
    MessagesRequest,
    MessagesResult,
    RestoreRequest,
    ThoughtCreate,
    ThoughtPage,
    ThoughtPatch,
)

REMEMBER_SOURCE = "client"
"""The ``source`` of a thought stored by :meth:`ClientApi.remember` unless one is given."""
DEFAULT_PAGE_SIZE = 100
"""Thoughts per ``GET /v1/thoughts`` request of :meth:`ClientApi.list_thoughts`."""


def _valid_time_params(valid_time: ValidTimeFilter | None) -> dict[str, str]:
    """The ``GET /v1/thoughts`` query parameter of a valid-time filter: ``valid_at=T``,
    ``valid_within=START/END`` or ``valid_between=START/END``; none for None."""
    if valid_time is None:
        return {}
    start, end = valid_time.start, valid_time.end
    assert start is not None and end is not None  # guaranteed by ValidTimeFilter
    if valid_time.kind in (ValidTimeKind.AT, ValidTimeKind.NOW):
        return {"valid_at": start.isoformat()}
    return {valid_time.kind.value: f"{start.isoformat()}/{end.isoformat()}"}


def _essence(text: str) -> str:
    """A one-line essence of ``text``: white space folded, cut to 200 characters."""
    line = " ".join(text.split())
    return line if len(line) <= ESSENCE_MAX_CHARS else line[: ESSENCE_MAX_CHARS - 1] + "…"


class ThoughtCalls(ClientBase):
    """The thought calls of :class:`ClientApi`."""

    @operation
    def remember(
        self, text: str, metadata: Mapping[str, Any] | None = None, **fields: Any
    ) -> Op[ThoughtRecord]:
        """Store ``text`` as a memory: an OBSERVATION whose content is ``text`` and whose essence
        is ``text`` on one line (cut to 200 characters), from source ``"client"``.

        Args:
            text: what to remember.
            metadata: caller-defined attributes (filterable in retrieval).
            **fields: other :class:`ThoughtRecord` fields to set (``thought_type``, ``tags``,
                ``source``, ``thought_id``, ``valid_from``, ...).

        Returns:
            The stored thought (with its id and store timestamps).

        Raises:
            ValidationFailedError: an empty text or a bad field.
            DuplicateThoughtError: ``thought_id`` is taken.
        """
        record = validated(
            ThoughtRecord,
            {
                "thought_type": ThoughtType.OBSERVATION,
                "source": REMEMBER_SOURCE,
                "essence": _essence(text),
                "content": text,
                "metadata": dict(metadata or {}),
                **fields,
            },
        )
        return (yield from self._create(record, {}))

    @operation
    def create_thought(
        self,
        thought: ThoughtRecord | Mapping[str, Any],
        *,
        deduplicate: bool = False,
        expires_after_seconds: float | None = None,
        embedding: Sequence[float] | None = None,
    ) -> Op[ThoughtRecord]:
        """Store a thought (``POST /v1/thoughts``); the namespace is created on its first one.

        Args:
            thought: the record, or its fields as a mapping.
            deduplicate: when a thought with the same content exists and its valid time
                covers this one's, confirm it (its ``confirmation_count`` grows) and return it
                instead of storing another.
            expires_after_seconds: time to live, seconds.
            embedding: a precomputed vector to store instead of embedding the text.

        Returns:
            The stored (or, deduplicated, the existing) thought.

        Raises:
            ValidationFailedError: a bad field.
            DuplicateThoughtError: ``thought_id`` is taken.
        """
        record = (
            thought if isinstance(thought, ThoughtRecord) else validated(ThoughtRecord, thought)
        )
        options = {
            "deduplicate": deduplicate,
            "expires_after_seconds": expires_after_seconds,
            "embedding": None if embedding is None else list(embedding),
        }
        return (yield from self._create(record, options))

    def _create(self, record: ThoughtRecord, options: dict[str, Any]) -> Op[ThoughtRecord]:
        body = validated(ThoughtCreate, {**record.model_dump(), **options})
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/thoughts",
                    ThoughtRecord.model_validate,
                    json=body.model_dump(mode="json", exclude_none=True),
                    context={"thought_id": record.thought_id},
                )
            )
        )

    @operation
    def bulk_store(
        self,
        thoughts: Sequence[ThoughtRecord | Mapping[str, Any]],
        embeddings: Sequence[Sequence[float] | None] | None = None,
    ) -> Op[BulkResult]:
        """Store up to 1000 thoughts in one transaction, all or nothing (``POST
        /v1/thoughts:bulk``).

        Args:
            thoughts: the records (or their fields), ids unique and new to the namespace.
            embeddings: optional precomputed vectors, one per thought (None = embed that one).

        Returns:
            How many were stored and their ids, in input order.

        Raises:
            ValidationFailedError: a bad record, or more than 1000.
            DuplicateThoughtError: an id repeats or is taken (nothing is stored).
        """
        body = validated(BulkThoughts, {"thoughts": list(thoughts), "embeddings": embeddings})
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/thoughts:bulk",
                    BulkResult.model_validate,
                    json=body.model_dump(mode="json", exclude_none=True),
                    items=len(body.thoughts),
                )
            )
        )

    @operation
    def add_messages(
        self,
        conversation_id: str,
        messages: Sequence[Message | Mapping[str, Any]],
        *,
        source: str | None = None,
    ) -> Op[MessagesResult]:
        """Append a conversation's messages, in order, as thoughts (``POST
        /v1/conversations/{conversation_id}/messages``; one transaction, idempotent on re-send).

        Args:
            conversation_id: the conversation (1-256 characters, one URL path segment, e.g.
                ``"session_3"``: the rule of
                :func:`~engrava_graph.conversations.checked_conversation_id`).
            messages: 1-10,000 messages: ``content``, ``speaker`` and/or ``role``, optional
                ``timestamp``, ``metadata``, ``message_id`` (mappings or
                :class:`~engrava_graph.conversations.Message` objects).
            source: the thoughts' ``source`` (default ``"conversation"``).

        Returns:
            The conversation's NOTE thought id, how many messages were new, and each message's
            thought id, position, message id and ``created`` flag, in input order.

        Raises:
            ValidationFailedError: an invalid conversation id (before anything is sent) or
                message (``errors[].loc`` holds its index).
            MessageConflictError: a stored message id with other content (nothing is stored).
        """
        checked = validate_messages(conversation_id, messages)  # the library's checks, once
        options = {} if source is None else {"source": source}
        body = validated(MessagesRequest, {"messages": checked, **options})
        return (
            yield from self._send(
                Call(
                    "POST",
                    path("conversations", conversation_id, "messages"),
                    MessagesResult.model_validate,
                    json=sent(body),
                    context={"conversation_id": conversation_id},
                    replayable=True,
                    items=len(body.messages),
                )
            )
        )

    @operation
    def get_thought(self, thought_id: str) -> Op[ThoughtRecord]:
        """The thought ``thought_id`` (``GET /v1/thoughts/{id}``).

        Raises:
            ThoughtNotFoundError: no such thought in the namespace.
        """
        return (
            yield from self._send(
                Call(
                    "GET",
                    thought_path(thought_id),
                    ThoughtRecord.model_validate,
                    context={"thought_id": thought_id},
                    replayable=True,
                )
            )
        )

    @operation
    def update_thought(self, thought_id: str, **changes: Any) -> Op[ThoughtRecord]:
        """Change fields of a thought (``PATCH /v1/thoughts/{id}``); ``metadata`` and ``tags``
        are replaced whole, and the embedding is recomputed when essence or content change.

        Args:
            thought_id: the thought.
            **changes: the fields to change (``essence``, ``content``, ``priority``,
                ``lifecycle_status``, ``metadata``, ``tags``, ``pinned``, ...; see
                ``engrava_graph.wire.PATCHABLE_FIELDS``); None clears a nullable field.

        Returns:
            The updated thought.

        Raises:
            ValidationFailedError: no change, or a field that cannot be changed or is invalid.
            ThoughtNotFoundError: no such thought.
            InvalidTransitionError: an illegal lifecycle step.
        """
        patch = validated(ThoughtPatch, changes)
        return (
            yield from self._send(
                Call(
                    "PATCH",
                    thought_path(thought_id),
                    ThoughtRecord.model_validate,
                    json=sent(patch),
                    context={"thought_id": thought_id},
                )
            )
        )

    @operation
    def delete_thought(self, thought_id: str) -> Op[None]:
        """Delete a thought with its edges (``DELETE /v1/thoughts/{id}``).

        Raises:
            ThoughtNotFoundError: no such thought.
        """
        yield from self._send(
            Call(
                "DELETE",
                thought_path(thought_id),
                context={"thought_id": thought_id},
                replayable=True,
            )
        )

    @operation
    def restore_thought(
        self, thought_id: str, current_cycle: int | None = None
    ) -> Op[ThoughtRecord]:
        """ARCHIVED -> ACTIVE (``POST /v1/thoughts/{id}/restore``).

        Args:
            thought_id: the archived thought.
            current_cycle: when given, ``updated_cycle`` becomes at least this cycle.

        Raises:
            ThoughtNotFoundError: no such thought.
            InvalidTransitionError: the thought is not archived.
        """
        body = validated(RestoreRequest, {"current_cycle": current_cycle})
        return (
            yield from self._send(
                Call(
                    "POST",
                    thought_path(thought_id, "restore"),
                    ThoughtRecord.model_validate,
                    json=sent(body),
                    context={"thought_id": thought_id},
                    replayable=True,
                )
            )
        )

    @listing
    def list_thoughts(
        self,
        *,
        thought_type: ThoughtType | str | None = None,
        priority: Priority | str | None = None,
        lifecycle_status: LifecycleStatus | str | None = None,
        visibility: ThoughtVisibility | str | None = None,
        min_cycle: int | None = None,
        max_cycle: int | None = None,
        include_expired: bool = False,
        include_archived: bool = True,
        metadata_filter: Mapping[str, Any] | None = None,
        valid_time: ValidTimeFilter | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        cursor: str | None = None,
    ) -> Op[Page[ThoughtRecord]]:
        """Every thought matching all the filters, ordered by id, fetched ``page_size`` at a
        time with the service's cursor (``GET /v1/thoughts``) as the iteration goes.

        Args:
            thought_type, priority, lifecycle_status, visibility: exact matches.
            min_cycle, max_cycle: bounds on ``created_cycle``.
            include_expired: also thoughts past ``expires_at``.
            include_archived: also ARCHIVED thoughts (default True).
            metadata_filter: exact metadata matches, ``{"path": value | [values]}``.
            valid_time: a bi-temporal predicate (``ValidTimeFilter.at(...)``, ``.within``,
                ``.between``; ``.now`` is sent as ``valid_at``).
            page_size: thoughts per request, 1-500.
            cursor: start after this thought id (a page's ``next_cursor``).

        Returns:
            An iterator (``AsyncClient``: an async iterator) over the thoughts. A thought the
            service names as not valid (edited by hand in Neo4j, ``ThoughtPage.invalid``) is
            left out, with a warning in the ``engrava_graph.client`` log.

        Raises:
            ValidationFailedError / InvalidFilterError: a bad filter (on the first request).
        """
        params = {
            "thought_type": thought_type,
            "priority": priority,
            "lifecycle_status": lifecycle_status,
            "visibility": visibility,
            "min_cycle": min_cycle,
            "max_cycle": max_cycle,
            "include_expired": include_expired,
            "include_archived": include_archived,
            "cursor": cursor,
            "limit": page_size,
            "metadata_filter": None if metadata_filter is None else json.dumps(metadata_filter),
            **_valid_time_params(valid_time),
        }
        page = yield from self._send(
            Call(
                "GET",
                "/v1/thoughts",
                ThoughtPage.model_validate,
                params={k: v for k, v in params.items() if v is not None},
                replayable=True,
            )
        )
        for invalid in page.invalid:
            log.warning("%s; left out of the listing", invalid.message)
        return page.thoughts, page.next_cursor
