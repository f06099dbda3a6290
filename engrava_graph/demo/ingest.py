"""Idempotent ingest of one LoCoMo conversation into its own namespace.

Two modes (:class:`IngestMode`): ``turns`` stores every turn once through ``add_messages``
(conversation ``session_<n>``, the session date as the message time); ``observations`` stores
the records of :mod:`engrava_graph.demo.locomo` (turns, session notes and LoCoMo's
LLM-written observations) through ``bulk_store``.

The namespace carries a marker annotation, the mode and the fingerprint of the data-set entry it
was loaded from (:attr:`~engrava_graph.demo.locomo.Conversation.fingerprint`), written only
after every thought and edge is stored. On the next run the same fingerprint means "already
ingested, reusing"; anything else (another fingerprint, or thoughts without a marker after an
interrupted run) means "delete the namespace and ingest again".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.locomo import Conversation

FINGERPRINT_KEY = "locomo_fingerprint"
"""The namespace annotation that holds the fingerprint of the stored copy."""

CHUNK = 256
"""Thoughts per ``bulk_store`` call: one provider batch and one transaction each."""


class IngestMode(StrEnum):
    """How a LoCoMo conversation is stored."""

    TURNS = "turns"  # every turn once through add_messages, nothing an LLM wrote
    OBSERVATIONS = "observations"  # turns + session notes + LoCoMo's observations (bulk_store)


class IngestStatus(StrEnum):
    """What :func:`ingest_conversation` found and did."""

    INGESTED = "ingested"  # the namespace was empty
    REUSED = "reused"  # the stored copy has the same fingerprint
    REPLACED = "replaced"  # a different or incomplete copy was deleted first


@dataclass(frozen=True)
class IngestResult:
    """The outcome for one conversation.

    Attributes:
        namespace: where it is stored.
        status: see :class:`IngestStatus`.
        thoughts, edges: how many thoughts and edges the namespace holds afterwards.
        seconds: wall time of the step (embedding included).
    """

    namespace: str
    status: IngestStatus
    thoughts: int
    edges: int
    seconds: float

    def describe(self) -> str:
        """One line for the console."""
        what = {
            IngestStatus.INGESTED: "ingested into a new namespace",
            IngestStatus.REUSED: "already ingested (same fingerprint), reusing",
            IngestStatus.REPLACED: "stored copy differed or was incomplete: deleted the "
            "namespace and ingested again",
        }[self.status]
        return (
            f"{self.namespace}: {what} ({self.thoughts} thoughts, {self.edges} edges, "
            f"{self.seconds:.1f} s)"
        )


def ingest_size(conversation: Conversation, mode: IngestMode) -> int:
    """How many items :func:`ingest_conversation` reports progress over (messages or thoughts)."""
    if mode is IngestMode.TURNS:
        return sum(len(s.messages) for s in conversation.sessions_messages)
    return len(conversation.thoughts)


async def ingest_conversation(
    store: Neo4jEngravaCore,
    conversation: Conversation,
    *,
    mode: IngestMode = IngestMode.OBSERVATIONS,
    fresh: bool = False,
    advance: Callable[[int], None] | None = None,
) -> IngestResult:
    """Store ``conversation`` in ``store``'s namespace unless an identical copy is there.

    ``turns``: each session through ``add_messages`` (one transaction and one provider batch
    per session). ``observations``: thoughts through ``bulk_store`` in chunks of :data:`CHUNK`
    (the store's provider embeds each chunk in one batch; entities are extracted at write
    time), then every edge through ``bulk_create_edges`` in one transaction. Then the marker.

    Args:
        store: a store opened on the conversation's namespace, with an embedding provider.
        conversation: the records to store.
        mode: see :class:`IngestMode`.
        fresh: delete whatever the namespace holds and ingest again, even when it matches.
        advance: called with the number of messages or thoughts stored after each step.

    Returns:
        What was found and done.

    Raises:
        EmbeddingError: the provider failed.
        DuplicateThoughtError, DuplicateEdgeError, ReferentialIntegrityError: the records are
            inconsistent (a loader bug; nothing is marked, so the next run starts over).
    """
    began = time.perf_counter()
    marker = f"{mode.value}:{conversation.fingerprint}"
    annotations = await store.namespace_annotations()
    if not fresh and annotations.get(FINGERPRINT_KEY) == marker:
        return await _result(store, conversation, IngestStatus.REUSED, began)
    status = IngestStatus.INGESTED
    if annotations or await store.count_thoughts(include_expired=True) > 0:
        status = IngestStatus.REPLACED
    await store.delete_namespace()
    await store.ensure_namespace()
    if mode is IngestMode.TURNS:
        for session in conversation.sessions_messages:
            await store.add_messages(session.conversation_id, session.messages, source="locomo")
            if advance is not None:
                advance(len(session.messages))
    else:
        for start in range(0, len(conversation.thoughts), CHUNK):
            chunk = conversation.thoughts[start : start + CHUNK]
            await store.bulk_store(chunk)
            if advance is not None:
                advance(len(chunk))
        await store.bulk_create_edges(conversation.edges)
    await store.annotate_namespace(**{FINGERPRINT_KEY: marker})
    return await _result(store, conversation, status, began)


async def _result(
    store: Neo4jEngravaCore, conversation: Conversation, status: IngestStatus, began: float
) -> IngestResult:
    thoughts = await store.count_thoughts(include_expired=True)
    edges = len(await store.list_edges(limit=100_000))
    return IngestResult(
        namespace=store.namespace,
        status=status,
        thoughts=thoughts,
        edges=edges,
        seconds=time.perf_counter() - began,
    )
