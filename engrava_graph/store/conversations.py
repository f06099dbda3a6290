"""The store's conversation area: chat messages stored as thoughts that keep their order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engrava_graph import conversations
from engrava_graph.store._base import StoreBase
from engrava_graph.store.modes import writes


class ConversationsMixin(StoreBase):
    """Conversation ingest of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    @writes
    async def add_messages(
        self,
        conversation_id: str,
        messages: Sequence[conversations.Message | Mapping[str, Any]],
        *,
        source: str = "conversation",
    ) -> list[conversations.StoredMessage]:
        """Store a conversation's messages: one OBSERVATION thought per message (with its
        ``conversation_id``, ``position``, ``speaker``, ``message_id``, ``valid_from`` = its
        timestamp), one NOTE thought per conversation, MESSAGE_OF edges; idempotent on re-send,
        one transaction per call (see :mod:`engrava_graph.conversations`).

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
            StaleDataError: concurrent calls kept moving the conversation.
            EmbeddingError: the provider failed (nothing is written).
        """
        return await conversations.add_messages(
            self,  # type: ignore[arg-type]  # a mixin of Neo4jEngravaCore
            conversation_id,
            messages,
            source=source,
        )
