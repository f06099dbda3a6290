"""Request and response bodies of the REST API.

The library's pydantic models are the API's models: :class:`ThoughtRecord`, :class:`EdgeRecord`,
:class:`RetrieveRequest`, :class:`RetrievalResponse` and :class:`Explanation` travel as they are;
this module only adds what HTTP needs around them (creation options, a patch, pages, bulk, jobs).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, create_model, field_validator
from pydantic.config import JsonDict

from engrava_graph.conversations import MAX_MESSAGES, Message, MessageSource
from engrava_graph.model.bounds import BoundedModel, Cycle, visible_text
from engrava_graph.model.records import MAX_TTL_SECONDS, ThoughtRecord
from engrava_graph.retrieval.request import RetrieveRequest

MAX_PAGE_SIZE = 500
"""Most thoughts per ``GET /v1/thoughts`` page."""
MAX_BULK_THOUGHTS = 1000
"""Most thoughts per ``POST /v1/thoughts:bulk``."""
MAX_EMBEDDING_DIMENSIONS = 4096
"""Longest vector a request may carry (the store then checks its own dimensions)."""

Vector = Annotated[list[float], Field(max_length=MAX_EMBEDDING_DIMENSIONS)]
"""An embedding; its items must be finite (every body model is a :class:`BoundedModel`)."""


class ExplainRequest(RetrieveRequest):
    """``POST /v1/explain``: the retrieve parameters plus the level of detail.

    Attributes:
        level: ``"summary"`` (intent, pathway, counts, timings) or ``"debug"`` (also every
            candidate's signals and the phase that dropped it).
    """

    level: Literal["summary", "debug"] = "summary"


class ExplainFormat(StrEnum):
    """``POST /v1/explain?format=``: the answer's form.

    ``json``: the :class:`Explanation`; ``html``: the standalone page that draws the run (what
    ``engrava-graph explain QUERY --html FILE`` writes).
    """

    JSON = "json"
    HTML = "html"


API_SOURCE = "api"
"""The ``source`` of a thought ``POST /v1/thoughts`` stores without one (the CLI fills in
``"cli"``, MCP ``"agent"``, the Python client's ``remember`` ``"client"``)."""


class ThoughtCreate(ThoughtRecord):
    """``POST /v1/thoughts``: a :class:`ThoughtRecord` plus how to store it.

    Attributes:
        source: as in the record, but optional here: default ``"api"``.
        deduplicate: when a thought with the same content exists, confirm it (its
            ``confirmation_count`` grows) and return it with status 200 instead of creating one.
        expires_after_seconds: time to live in seconds (sets ``expires_at``).
        embedding: a precomputed vector to store instead of embedding the text.
    """

    source: str = Field(
        default=API_SOURCE,
        min_length=1,
        max_length=256,
        description=(
            'Free-form origin of the thought ("human", "ingest", a component name); default "api".'
        ),
    )
    deduplicate: bool = False
    expires_after_seconds: float | None = Field(default=None, gt=0, le=MAX_TTL_SECONDS)
    embedding: Vector | None = None

    def record(self) -> ThoughtRecord:
        """The thought itself, without the creation options."""
        return ThoughtRecord.model_validate(
            self.model_dump(exclude={"deduplicate", "expires_after_seconds", "embedding"})
        )


PATCHABLE_FIELDS = (
    "thought_type",
    "essence",
    "content",
    "priority",
    "lifecycle_status",
    "updated_cycle",
    "source",
    "confidence",
    "source_type",
    "visibility",
    "expires_at",
    "valid_from",
    "valid_until",
    "metadata",
    "tags",
    "pinned",
)
"""The fields ``PATCH /v1/thoughts/{id}`` may change (ids, creation stamps and telemetry are
the store's)."""


def _optional(name: str) -> tuple[Any, Any]:
    """``ThoughtRecord``'s field ``name`` with its constraints, optional and defaulting to unset."""
    info = ThoughtRecord.model_fields[name]
    inner: Any = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    return inner | None, Field(default=None, description=info.description)


def _patched_text_shows_something(cls: type, value: Any, info: ValidationInfo) -> Any:
    """The record's rule for its texts (:func:`~engrava_graph.model.bounds.visible_text`), so a
    patch's empty text is refused as the record's is, with the same message."""
    return visible_text(value, info)


ThoughtPatch = create_model(  # type: ignore[call-overload]
    "ThoughtPatch",
    __base__=BoundedModel,
    __doc__=(
        "``PATCH /v1/thoughts/{id}``: the fields to change (omitted = unchanged; null "
        "clears a nullable field). A ``lifecycle_status`` change must be a legal step of "
        "the lifecycle (else 409)."
    ),
    __validators__={
        "_not_blank": field_validator("essence", "content", "source", mode="before")(
            _patched_text_shows_something
        )
    },
    **{name: _optional(name) for name in PATCHABLE_FIELDS},
)


class RestoreRequest(BoundedModel):
    """``POST /v1/thoughts/{id}/restore``: ARCHIVED -> ACTIVE.

    Attributes:
        current_cycle: when given, ``updated_cycle`` becomes at least this cycle.
    """

    current_cycle: Cycle | None = None


class InvalidThought(BaseModel):
    """A thought of a ``GET /v1/thoughts`` page that, as stored in Neo4j, is not a valid thought
    (edited by hand: ``SET t.content = 42``), so it is not in the page's ``thoughts``.

    Attributes:
        thought_id: its id.
        problems: ``"field: reason"`` per invalid field.
        message: what is wrong and how to repair it (``PATCH /v1/thoughts/{thought_id}`` with
            valid values for those fields, or delete it).
    """

    thought_id: str
    problems: list[str]
    message: str


class ThoughtPage(BaseModel):
    """One page of ``GET /v1/thoughts``, ordered by ``thought_id``.

    Attributes:
        thoughts: up to ``limit`` thoughts.
        next_cursor: pass as ``cursor`` for the next page; null on the last page.
        invalid: the page's thoughts left out of ``thoughts`` because, as stored, they are not
            valid thoughts (usually empty); they count towards ``limit``.
    """

    thoughts: list[ThoughtRecord]
    next_cursor: str | None
    invalid: list[InvalidThought] = Field(default_factory=list)


class BulkThoughts(BoundedModel):
    """``POST /v1/thoughts:bulk``: store many thoughts in one transaction (all or nothing).

    Attributes:
        thoughts: 1-1000 records with ids unique among them and new to the namespace;
            ``source`` defaults to ``"api"``, as for one thought.
        embeddings: optional precomputed vectors, one per thought (null = embed that one's text).
    """

    thoughts: list[ThoughtRecord] = Field(min_length=1, max_length=MAX_BULK_THOUGHTS)
    embeddings: list[Vector | None] | None = Field(default=None, max_length=MAX_BULK_THOUGHTS)

    @field_validator("thoughts", mode="before")
    @classmethod
    def _default_source(cls, thoughts: Any) -> Any:
        """A thought without ``source`` gets ``"api"``, as ``POST /v1/thoughts`` gives it."""
        if not isinstance(thoughts, list):
            return thoughts
        return [
            {"source": API_SOURCE, **t} if isinstance(t, dict) and "source" not in t else t
            for t in thoughts
        ]


class BulkResult(BaseModel):
    """What ``POST /v1/thoughts:bulk`` stored.

    Attributes:
        stored: how many thoughts.
        thought_ids: their ids, in input order.
    """

    stored: int
    thought_ids: list[str]


_MESSAGES_EXAMPLE: JsonDict = {
    "messages": [
        {
            "speaker": "Caroline",
            "content": "I went to the LGBTQ support group yesterday.",
            "timestamp": "2023-05-08T13:56:00Z",
            "message_id": "D1:3",
        },
        {
            "speaker": "Melanie",
            "content": "That's great! How did it go?",
            "timestamp": "2023-05-08T13:57:00Z",
            "message_id": "D1:4",
        },
    ],
}


class MessagesRequest(BoundedModel):
    """``POST /v1/conversations/{conversation_id}/messages``: messages to append, in order.

    Attributes:
        messages: 1-10,000 :class:`~engrava_graph.conversations.Message` objects (``content``;
            ``speaker`` and/or ``role``; optional ``timestamp``, ``metadata``, ``message_id``).
        source: the stored thoughts' ``source`` (default ``"conversation"``).
    """

    model_config = ConfigDict(json_schema_extra={"examples": [_MESSAGES_EXAMPLE]})

    messages: list[Message] = Field(min_length=1, max_length=MAX_MESSAGES)
    source: MessageSource = "conversation"


class StoredMessageRef(BaseModel):
    """One message as stored (``POST /v1/conversations/{id}/messages``), in input order.

    Attributes:
        thought_id: the message's OBSERVATION thought (deterministic: a UUID5).
        position: its 0-based place in the conversation.
        speaker: the speaker, else the role.
        message_id: the given id, else the generated ``#<position>-<hash>``.
        created: False for a re-sent message (nothing was written for it).
    """

    thought_id: str
    position: int
    speaker: str
    message_id: str
    created: bool


class MessagesResult(BaseModel):
    """What ``POST /v1/conversations/{conversation_id}/messages`` stored.

    Attributes:
        conversation_id: the conversation.
        conversation_thought_id: its NOTE thought (every message ``MESSAGE_OF`` it).
        created: how many messages were new.
        messages: one entry per message sent, in input order.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "conversation_id": "session_1",
                    "conversation_thought_id": "0c5cbd55-5ad4-5a7e-8b0b-0f1f3c5e2a11",
                    "created": 2,
                    "messages": [
                        {
                            "thought_id": "5b8f3a43-1d0e-5f0c-9a39-2d4a7b7f1c01",
                            "position": 0,
                            "speaker": "Caroline",
                            "message_id": "D1:3",
                            "created": True,
                        },
                        {
                            "thought_id": "9e2a6c1d-7b44-5e61-8f0a-6c3d2b1a0f02",
                            "position": 1,
                            "speaker": "Melanie",
                            "message_id": "D1:4",
                            "created": True,
                        },
                    ],
                }
            ]
        }
    )

    conversation_id: str
    conversation_thought_id: str
    created: int
    messages: list[StoredMessageRef]


class DreamRequest(BoundedModel):
    """``POST /v1/dream``: one consolidation pass over the namespace.

    Attributes:
        current_cycle: the caller's cognitive cycle "now" (dreaming's age and schedule gates
            are counted in cycles).
    """

    current_cycle: Cycle


class JobStatus(StrEnum):
    """Where a background job is."""

    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class DreamJob(BaseModel):
    """A consolidation pass run in the background (``POST /v1/dream``, ``GET /v1/dream/{id}``).

    Attributes:
        job_id: the job's id.
        namespace: the namespace it consolidates.
        status: queued (waiting for an earlier pass of the namespace), running, completed, failed.
        current_cycle: the cycle it runs at.
        created_at, started_at, finished_at: UTC instants.
        run_id: the pass's ``DreamRun`` in the graph (provenance), once completed.
        due: False when the schedule gate skipped the pass, once completed.
        counts: what the pass did, once completed: ``candidates_evaluated``,
            ``clusters_found``, ``clusters_rejected``, ``reflections_created``,
            ``reflections_existing``, ``edges_created``, ``orphans_retired``,
            ``reflections_unretired``, ``archived`` (by the hygiene pass it may end with).
        error: why it failed.
    """

    model_config = ConfigDict(frozen=True)

    job_id: str
    namespace: str
    status: JobStatus
    current_cycle: int
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    run_id: str | None = None
    due: bool | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    error: str | None = None


class ErrorBody(BaseModel):
    """Every error response (see :mod:`api.errors`).

    Attributes:
        error: a stable machine code (``thought_not_found``, ``duplicate_edge``, ...).
        message: what went wrong and what to do.
        field: the request field at fault (dotted path or header name), else null.
    """

    error: str
    message: str
    field: str | None


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in (
        (401, "missing or unknown API key"),
        (403, "the key may not use this namespace, or is read-only and the request writes"),
        (404, "unknown namespace, thought, edge or job"),
        (
            409,
            "duplicate id or edge, an illegal lifecycle transition, or a message id re-sent "
            "with other content",
        ),
        (413, "request body too large"),
        (422, "invalid request: the field and the reason are in the body"),
        (503, "Neo4j unreachable: retry after the Retry-After header's seconds"),
    )
}
"""The error responses every ``/v1`` route documents."""


class Health(BaseModel):
    """``/healthz`` and ``/readyz`` when all is well.

    Attributes:
        status: ``"ok"`` (process up) or ``"ready"`` (Neo4j answers, schema current).
        schema_version: the schema version: the one this process serves, verified or migrated
            at start (``/healthz``), or the one read from the graph just now (``/readyz``);
            the same number while the service is ready.
    """

    status: Literal["ok", "ready"]
    schema_version: int | None = None
