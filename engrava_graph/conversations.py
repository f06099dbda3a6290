"""Conversation ingest without I/O: the message model, its validation, ids and placement.

``add_messages(conversation_id, messages)`` is the store's
(:class:`~engrava_graph.store.conversations.ConversationsMixin`); what it decides before
writing (which messages are re-sends, which positions the new ones get) is here.

The graph as built (the shared data model of conversation messages):

- each message -> one ``(:Thought:Observation)`` with the properties ``conversation_id``
  (STRING), ``position`` (INTEGER, 0-based order within the conversation), ``speaker`` (the
  speaker, else the role), ``role`` (when given), ``message_id`` (the caller's, else
  ``#<position>-<first 16 hex of the content hash>``) and ``valid_from`` = the message's
  timestamp; essence = "Speaker: text" clipped to 200 characters at a word boundary, content =
  the full "Speaker: text"; the message's metadata as the thought's metadata;
- one ``(:Thought:Note {conversation_id, next_position})`` per conversation (``position`` null;
  ``next_position`` = the position the next message gets), and
  ``(message)-[:MESSAGE_OF {edge_id: "MESSAGE_OF:<message thought id>"}]->(conversation)``;
- the range index ``thought_conversation`` on (namespace, conversation_id, position) finds a
  conversation's messages at positions p-w..p+w without NEXT edges.

Ids are deterministic: a message thought's id is the UUID5 of (namespace, conversation_id,
message_id), the conversation thought's the UUID5 of (namespace, conversation_id). Re-sending
is idempotent: a message whose id is stored creates nothing (with other content it is a
:class:`~engrava_graph.model.errors.MessageConflictError`); without message ids, a batch whose
leading messages repeat the conversation's last stored ones (same speaker and text, in order)
is taken as a re-send of them, and only the rest is stored, after the last stored position
(give message ids to store a repeated text as a new message). One call is one transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Self

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from engrava_graph.graph.registry import cypher
from engrava_graph.model.bounds import BoundedModel, text_problem, visible_text
from engrava_graph.model.errors import (
    MessageConflictError,
    RepeatedMessageIdError,
    ValidationFailedError,
)
from engrava_graph.model.ids import id_problem
from engrava_graph.model.metadata import MetadataValue
from engrava_graph.model.records import (
    ThoughtRecord,
    checked_metadata,
    content_hash,
)
from engrava_graph.model.temporal import UtcDateTime

_STATE = cypher("conversations/state")
MAX_CONTENT_CHARS = 1_000_000
"""The longest content a thought holds, the speaker prefix included."""
MAX_MESSAGES = 10_000
"""Most messages one ``add_messages`` call takes (one transaction)."""
MAX_CONVERSATION_ID_CHARS = 256
"""The longest conversation id."""
MessageSource = Annotated[str, Field(min_length=1, max_length=256), BeforeValidator(visible_text)]
"""The ``source`` of a conversation's thoughts: 1-256 characters, at least one of them visible,
as a thought's own ``source`` (an empty text and one of spaces are refused alike)."""
_ID_NAMESPACE = uuid.UUID("5d0c6f7e-3b8a-5c4e-9f1d-2a6b7c8d9e0f")  # fixed: ids stay stable
ESSENCE_CHARS = 200


def clip(text: str, limit: int = ESSENCE_CHARS) -> str:
    """``text`` with runs of whitespace collapsed, cut to at most ``limit`` characters at a word
    boundary (ending in an ellipsis when cut)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"


class Message(BoundedModel):
    """One message of a conversation, as ``add_messages`` takes it.

    Attributes:
        content: the text (not blank: at least one visible character, the rule of a blank
            query, :func:`~engrava_graph.model.bounds.blank`; with ``"Speaker: "`` in front at
            most 1,000,000 characters, the longest content a thought holds).
        speaker: who said it ("Caroline"); 1-256 characters.
        role: the chat role ("user", "assistant"); stands for the speaker when there is none.
        timestamp: when it was said (aware, or naive = UTC); the thought's ``valid_from``.
        metadata: caller attributes (scalar leaves), stored as the thought's metadata.
        message_id: the caller's id, unique within the conversation (1-256 characters).

    Raises:
        pydantic.ValidationError: neither speaker nor role, a blank text field (``content``,
            ``speaker``, ``role``, ``message_id``), unknown fields, bad metadata.
    """

    model_config = ConfigDict(frozen=True)

    content: str = Field(min_length=1, max_length=1_000_000)
    speaker: str | None = Field(default=None, min_length=1, max_length=256)
    role: str | None = Field(default=None, min_length=1, max_length=64)
    timestamp: UtcDateTime = None
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    message_id: str | None = Field(default=None, min_length=1, max_length=256)

    @field_validator("content", "speaker", "role", "message_id", mode="before")
    @classmethod
    def _not_blank(cls, value: Any, info: ValidationInfo) -> Any:
        return visible_text(value, info)

    @field_validator("metadata", mode="before")
    @classmethod
    def _check_metadata(cls, value: Any, info: ValidationInfo) -> Any:
        return checked_metadata(value, info)

    @model_validator(mode="after")
    def _needs_a_voice(self) -> Self:
        if self.speaker is None and self.role is None:
            raise ValueError("a message needs a speaker or a role")
        if len(self.text) > MAX_CONTENT_CHARS:
            raise ValueError(
                f"the message as stored ('{self.voice}: ' and its content) is over "
                f"{MAX_CONTENT_CHARS:,} characters; split it"
            )
        return self

    @property
    def voice(self) -> str:
        """The speaker, else the role."""
        return self.speaker or self.role or ""

    @property
    def text(self) -> str:
        """What is stored as the thought's content: ``"Speaker: text"``."""
        return f"{self.voice}: {self.content}"


@dataclass(frozen=True)
class StoredMessage:
    """One message as stored, in the order it was given.

    Attributes:
        thought: the message's thought (OBSERVATION).
        conversation_id, position, speaker, message_id: its place in the conversation.
        created: False when it was already stored (a re-send).
    """

    thought: ThoughtRecord
    conversation_id: str
    position: int
    speaker: str
    message_id: str
    created: bool


@dataclass(frozen=True)
class StoredRow:
    """A stored message found by ``conversations/state`` (``position``, ids, content hash)."""

    thought_id: str
    position: int
    message_id: str
    content_hash: str


@dataclass(frozen=True)
class Placement:
    """Where one message of a batch goes: an existing position (a re-send) or a new one.

    Attributes:
        position: its position in the conversation.
        message_id: the given or generated message id.
        existing: the stored thought's id for a re-send (``"(batch)"`` when it repeats an
            earlier message of the same batch), else None.
    """

    position: int
    message_id: str
    existing: str | None


def conversation_thought_id(namespace: str, conversation_id: str) -> str:
    """The deterministic id of a conversation's NOTE thought (a UUID5 string)."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"conversation\n{namespace}\n{conversation_id}"))


def message_thought_id(namespace: str, conversation_id: str, message_id: str) -> str:
    """The deterministic id of a message's thought (a UUID5 string)."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"message\n{namespace}\n{conversation_id}\n{message_id}"))


def generated_message_id(position: int, hash_hex: str) -> str:
    """The message id of a message given without one: ``#<position>-<16 hex of its hash>``."""
    return f"#{position}-{hash_hex[:16]}"


def checked_conversation_id(conversation_id: object) -> str:
    """``conversation_id`` when it can name a conversation: a string of 1-256 characters that
    REST can carry as the one path segment of ``POST
    /v1/conversations/{conversation_id}/messages``, by the rule of thought and edge ids
    (:func:`~engrava_graph.model.ids.id_problem`: not blank, i.e. at least one visible
    character (:func:`~engrava_graph.model.bounds.blank`), no ``/``, ``\\`` or control
    character, not ``.`` or ``..``) and valid Unicode. The library, the CLI, MCP, REST and the
    Python client take the same ids (``conv-26``, ``session_3``, ``D1:3``, ``café``).

    Raises:
        ValidationFailedError: any other value (``"a/b"``, ``".."``, ``" "``, ``"\\u200b"``),
            naming the field ``conversation_id``.

    Examples:
        >>> checked_conversation_id("conv-26")
        'conv-26'
    """
    if not isinstance(conversation_id, str):
        problem = f"must be a string, not {type(conversation_id).__name__}"
    elif not 1 <= len(conversation_id) <= MAX_CONVERSATION_ID_CHARS:
        problem = f"must be 1-{MAX_CONVERSATION_ID_CHARS} characters, not {len(conversation_id)}"
    elif found := id_problem(conversation_id) or text_problem(conversation_id):
        problem = found
    else:
        return conversation_id
    shown = repr(conversation_id)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    raise ValidationFailedError(
        f"conversation_id {shown} {problem}",
        errors=[{"loc": ("conversation_id",), "msg": problem, "type": "value_error"}],
    )


class _Source(BoundedModel):
    """The ``source`` argument alone, checked as the REST body checks it (its field name is
    what a message names)."""

    source: MessageSource


def validate_messages(
    conversation_id: object,
    messages: Sequence[Message | Mapping[str, Any]],
    *,
    source: object = "conversation",
) -> list[Message]:
    """Check the arguments of ``add_messages``.

    Args:
        conversation_id: the conversation.
        messages: the batch.
        source: the thoughts' ``source`` (:data:`MessageSource`).

    Returns:
        The messages as :class:`Message` objects, in order.

    Raises:
        ValidationFailedError: a conversation id :func:`checked_conversation_id` refuses, a
            source :data:`MessageSource` refuses (``loc`` ``("source",)``), no message or more
            than :data:`MAX_MESSAGES`, or an invalid message (its index in ``loc``).
    """
    checked_conversation_id(conversation_id)
    try:
        _Source.model_validate({"source": source})
    except ValidationError as exc:
        raise ValidationFailedError.from_pydantic(exc) from exc
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise ValidationFailedError("messages must be a list of messages")
    if not 1 <= len(messages) <= MAX_MESSAGES:
        raise ValidationFailedError.of_field(
            "messages",
            f"send 1-{MAX_MESSAGES} messages per call, got {len(messages)}"
            + ("; send them in parts" if messages else ""),
        )
    parsed: list[Message] = []
    for index, item in enumerate(messages):
        try:
            parsed.append(item if isinstance(item, Message) else Message.model_validate(item))
        except ValidationError as exc:
            raise ValidationFailedError.from_pydantic(exc, loc=("messages", index)) from exc
    return parsed


def place(
    conversation_id: str,
    messages: Sequence[Message],
    stored: Sequence[StoredRow],
    next_position: int,
) -> list[Placement]:
    """Decide, without I/O, which messages are re-sends and which positions the new ones get.

    A message with an id is a re-send when the conversation holds that id. Otherwise the batch
    is aligned with the stored tail: the smallest position p >= next_position - len(batch) at
    which batch[i] matches the stored message at p + i for every stored p + i (same id when
    one is given, else the same content hash) makes those its re-sends. New messages get
    next_position, next_position + 1, ... in batch order.

    Args:
        messages: the batch.
        stored: the stored messages sharing an id or content hash with the batch.
        next_position: the position the conversation's next message gets.

    Raises:
        MessageConflictError: a message id stored with other content.
        RepeatedMessageIdError: a message id repeated in the batch with other content.
    """
    hashes = [content_hash(m.text) for m in messages]
    by_id = {row.message_id: row for row in stored}
    by_position = {row.position: row for row in stored}

    def matches(i: int, row: StoredRow | None) -> bool:
        if row is None:
            return False
        given = messages[i].message_id
        return row.message_id == given if given is not None else row.content_hash == hashes[i]

    start = next_position
    for p in range(max(0, next_position - len(messages)), next_position):
        if all(matches(i, by_position.get(p + i)) for i in range(next_position - p)):
            start = p
            break
    placements: list[Placement] = []
    batch_ids: dict[str, tuple[str, Placement]] = {}
    position = next_position
    for i, message in enumerate(messages):
        given = message.message_id
        row = by_position.get(start + i) if start + i < next_position else None
        if row is None and given is not None:
            row = by_id.get(given)
        if given is not None and given in batch_ids:
            earlier_hash, earlier = batch_ids[given]
            if earlier_hash != hashes[i]:
                raise RepeatedMessageIdError(
                    conversation_id=conversation_id, message_id=given, index=i
                )
            placements.append(Placement(earlier.position, given, earlier.existing or "(batch)"))
            continue
        if row is not None:
            if row.content_hash != hashes[i]:
                raise MessageConflictError(
                    conversation_id=conversation_id,
                    message_id=row.message_id,
                    position=row.position,
                )
            placement = Placement(row.position, row.message_id, row.thought_id)
        else:
            placement = Placement(
                position, given or generated_message_id(position, hashes[i]), None
            )
            position += 1
        placements.append(placement)
        if given is not None:
            batch_ids[given] = (hashes[i], placement)
    return placements


async def read_state(
    run: Any, namespace: str, conversation_id: str, conversation_tid: str, messages: list[Message]
) -> tuple[bool, list[StoredRow], int]:
    """Read a conversation's state for a batch, through ``run`` (a read or a transaction's run).

    Args:
        run: ``await run(statement, **params)`` returning the rows as dicts
            (:meth:`~engrava_graph.graph.executor.GraphExecutor.read`, or
            :func:`~engrava_graph.graph.executor.run_in` bound to a transaction).
        namespace: the namespace.
        conversation_id: the conversation.
        conversation_tid: its conversation thought's id (:func:`conversation_thought_id`).
        messages: the batch (its message ids and content hashes are looked up).

    Returns:
        ``(conversation thought exists, stored rows sharing an id or content hash with the
        batch, the position the next message gets)``.
    """
    state = (
        await run(
            _STATE,
            namespace=namespace,
            conversation_id=conversation_id,
            conversation_thought_id=conversation_tid,
            message_ids=[m.message_id for m in messages if m.message_id is not None],
            content_hashes=[content_hash(m.text) for m in messages],
        )
    )[0]
    return (
        bool(state["exists"]),
        [StoredRow(**row) for row in state["matches"]],
        int(state["next_position"]),
    )
