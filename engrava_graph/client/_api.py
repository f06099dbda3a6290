"""Every call of the REST API, written once for ``Client`` and ``AsyncClient``.

Each method builds and validates its request locally (a bad argument raises
:class:`ValidationFailedError` before anything is sent), sends it through
:meth:`Transport.send` and returns the library's own models: :class:`RetrievalResponse`,
:class:`Explanation`, :class:`ThoughtRecord`, :class:`EdgeRecord`, and the service's
:class:`DreamJob`, :class:`BulkResult` and :class:`Health` (``engrava_graph.wire``, plain pydantic).
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypedDict, TypeVar, Unpack
from urllib.parse import quote

from pydantic import BaseModel, TypeAdapter

from engrava_graph.client._ops import Op, Page, Sleep, listing, operation
from engrava_graph.client._transport import Call, Transport, validated
from engrava_graph.model.enums import (
    EdgeDirection,
    LifecycleStatus,
    Priority,
    ThoughtType,
    ThoughtVisibility,
)
from engrava_graph.model.errors import DreamTimeoutError
from engrava_graph.model.namespace import DEFAULT_NAMESPACE
from engrava_graph.model.records import ESSENCE_MAX_CHARS, EdgeRecord, ThoughtRecord
from engrava_graph.model.temporal import ValidTimeFilter, ValidTimeKind
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.results import Explanation, RetrievalResponse
from engrava_graph.wire import (
    BulkResult,
    BulkThoughts,
    DreamJob,
    DreamRequest,
    ExplainRequest,
    Health,
    JobStatus,
    MessagesRequest,
    MessagesResult,
    RestoreRequest,
    ThoughtCreate,
    ThoughtPage,
    ThoughtPatch,
)

T = TypeVar("T")

REMEMBER_SOURCE = "client"
"""The ``source`` of a thought stored by :meth:`ClientApi.remember` unless one is given."""
DEFAULT_PAGE_SIZE = 100
"""Thoughts per ``GET /v1/thoughts`` request of :meth:`ClientApi.list_thoughts`."""
_EDGES = TypeAdapter(list[EdgeRecord])
_FINISHED = (JobStatus.COMPLETED, JobStatus.FAILED)


class RetrieveParams(TypedDict, total=False):
    """The tuning parameters of ``retrieve`` and ``explain`` (see docs/retrieval.md); the
    same fields, ranges and defaults as :class:`RetrieveRequest`. Only the ones given are sent.

    Attributes:
        top_k: results returned, 1-100 (Phase 10; default 10).
        pathway: ``"auto"`` (default), ``"exact"``, ``"energy"`` or ``"attention"`` (Phase 2).
        min_confidence: Phase 8 threshold on confidence in [0, 1] (default 0).
        metadata_filter: exact metadata matches, ``{"path": value | [values]}``.
        temporal_weight: Phase 5/7 recency bias in [0, 1] (None = the pathway's).
        causal_weight: Phase 6/7 causal weight and depth in [0, 1] (None = default).
        spread_depth: Phase 4 hops, 0-3.
        current_cycle: decay by cognitive cycles (Phase 5).
        recency_now: decay by transaction time from this instant (Phase 5).
        now: the request's clock (default: the service's time of arrival).
        include_archived: re-admit archived memories.
    """

    top_k: int
    pathway: str
    min_confidence: float
    metadata_filter: dict[str, Any] | None
    temporal_weight: float | None
    causal_weight: float | None
    spread_depth: int | None
    current_cycle: int | None
    recency_now: datetime | str | None
    now: datetime | str | None
    include_archived: bool


def _path(*parts: str) -> str:
    """``/v1/<part>/<part>…`` with each part URL-quoted (an id may hold ``/`` or ``?``)."""
    return "/v1/" + "/".join(quote(part, safe="") for part in parts)


def _sent(model: BaseModel) -> dict[str, Any]:
    """The JSON body of a request model: only the fields the caller set."""
    return model.model_dump(mode="json", exclude_unset=True)


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


class ClientApi(ABC):
    """The calls of the REST API (``/v1``), shared by ``Client`` and ``AsyncClient``.

    Args:
        base_url: the service's root URL, e.g. ``http://127.0.0.1:8000``.
        api_key: a key the service is configured with (``ENGRAVA_API_KEYS``); None for a
            service run with ``--insecure-dev``.
        namespace: the namespace every call works in (``X-Namespace``); writing a thought
            creates it.
        timeout: seconds for each of connect, read, write and pool wait of one request.
        max_retries: retries of a 503 or a transport failure after the first attempt.
        max_retry_after: the longest ``Retry-After`` the client honours, seconds.
        transport: an ``httpx`` transport to send through (tests, proxies); default: httpx's.

    Raises:
        ValidationFailedError: a base URL that is not http(s), or a negative number.
        InvalidNamespaceError: a malformed namespace.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_after: float = 30.0,
        transport: Any = None,
    ) -> None:
        self._core = Transport(base_url, api_key, namespace, timeout, max_retries, max_retry_after)
        self._http = self._open(self._core.http_options(), transport)

    @abstractmethod
    def _open(self, options: dict[str, Any], transport: Any) -> Any:
        """The shell's ``httpx`` client built from ``options`` (and ``transport``, if any)."""

    @property
    def namespace(self) -> str:
        """The namespace this client works in."""
        return self._core.namespace

    def _send(self, call: Call[T]) -> Op[T]:
        return self._core.send(call)

    # -- retrieval cycle --------------------------------------------------------------------

    @operation
    def retrieve(self, query: str, **params: Unpack[RetrieveParams]) -> Op[RetrievalResponse]:
        """Recall memories with the 10-phase cognitive retrieval cycle (``POST /v1/retrieve``).

        Args:
            query: the question, 1-2000 characters.
            **params: the tuning parameters, :class:`RetrieveParams` (``top_k``, ``pathway``,
                ``min_confidence``, ``temporal_weight``, ``causal_weight``, ...).

        Returns:
            The response; iterating over it gives the results (``RetrievedMemory``: ``text``,
            ``pattern_id``, ``confidence``, ``pathway``, ``metadata``, ``created_at``,
            ``last_accessed_at``, ``causal_links``) by confidence, highest first. It also has
            ``pathway_scores``, ``intent``, ``phase_timings`` (ms) and the candidate counts.

        Raises:
            ValidationFailedError: a parameter out of range (checked before sending).
            InvalidFilterError: a malformed ``metadata_filter``.
        """
        body = RetrieveRequest.build(query=query, **params)
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/retrieve",
                    RetrievalResponse.model_validate,
                    json=_sent(body),
                    replayable=True,
                )
            )
        )

    @operation
    def explain(
        self, query: str, level: str = "summary", **params: Unpack[RetrieveParams]
    ) -> Op[Explanation]:
        """Run the retrieval cycle and show its internals (``POST /v1/explain``).

        Args:
            query: the question.
            level: ``"summary"`` (intent, pathway scores and choice, candidate counts, phase
                timings) or ``"debug"`` (also every candidate's signals and the phase that
                dropped it, in ``candidates``).
            **params: the tuning parameters of :meth:`retrieve`.

        Returns:
            The explanation: ``intent``, ``pathway_scores``, ``pathway_selected``,
            ``candidates_activated``, ``candidates_after_spread``, ``candidates_final``,
            ``phase_timings`` (ms for each of the ten phases), ``results``.

        Raises:
            ValidationFailedError: a bad level or parameter (checked before sending).
        """
        body = ExplainRequest.build(query=query, level=level, **params)
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/explain",
                    Explanation.model_validate,
                    json=_sent(body),
                    replayable=True,
                )
            )
        )

    # -- thoughts ----------------------------------------------------------------------------

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
                )
            )
        )

    @operation
    def add_messages(
        self,
        conversation_id: str,
        messages: Sequence[Mapping[str, Any] | BaseModel],
        *,
        source: str | None = None,
    ) -> Op[MessagesResult]:
        """Append a conversation's messages, in order, as thoughts (``POST
        /v1/conversations/{conversation_id}/messages``; one transaction, idempotent on re-send).

        Args:
            conversation_id: the conversation (1-256 characters, e.g. ``"session_3"``).
            messages: 1-10,000 messages: ``content``, ``speaker`` and/or ``role``, optional
                ``timestamp``, ``metadata``, ``message_id`` (mappings or
                :class:`~engrava_graph.conversations.Message` objects).
            source: the thoughts' ``source`` (default ``"conversation"``).

        Returns:
            The conversation's NOTE thought id, how many messages were new, and each message's
            thought id, position, message id and ``created`` flag, in input order.

        Raises:
            ValidationFailedError: an invalid message (``errors[].loc`` holds its index).
            MessageConflictError: a stored message id with other content (nothing is stored).
        """
        options = {} if source is None else {"source": source}
        body = validated(MessagesRequest, {"messages": list(messages), **options})
        return (
            yield from self._send(
                Call(
                    "POST",
                    _path("conversations", conversation_id, "messages"),
                    MessagesResult.model_validate,
                    json=_sent(body),
                    context={"conversation_id": conversation_id},
                    replayable=True,
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
                    _path("thoughts", thought_id),
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
                    _path("thoughts", thought_id),
                    ThoughtRecord.model_validate,
                    json=_sent(patch),
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
                _path("thoughts", thought_id),
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
                    _path("thoughts", thought_id, "restore"),
                    ThoughtRecord.model_validate,
                    json=_sent(body),
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
            An iterator (``AsyncClient``: an async iterator) over the thoughts.

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
        return page.thoughts, page.next_cursor

    # -- edges -------------------------------------------------------------------------------

    @operation
    def create_edge(
        self, edge: EdgeRecord | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> Op[EdgeRecord]:
        """Link two thoughts with a typed, weighted edge (``POST /v1/edges``).

        Args:
            edge: the record, or its fields as a mapping (optional when ``fields`` give them).
            **fields: :class:`EdgeRecord` fields, over ``edge``'s: ``from_thought_id``,
                ``to_thought_id``, ``edge_type`` (e.g. ``"CAUSED_BY"``), ``weight``,
                ``confidence``, ``metadata``, ...

        Returns:
            The stored edge.

        Raises:
            ValidationFailedError: a bad field or a self-loop.
            ReferentialIntegrityError: an endpoint does not exist in the namespace.
            DuplicateEdgeError: the id, or the (from, to, type) triple, is taken.
        """
        base = edge.model_dump() if isinstance(edge, EdgeRecord) else dict(edge or {})
        record = validated(EdgeRecord, {**base, **fields})
        context = {
            "from_thought_id": record.from_thought_id,
            "to_thought_id": record.to_thought_id,
            "edge_type": record.edge_type.value,
        }
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/edges",
                    EdgeRecord.model_validate,
                    json=record.model_dump(mode="json", exclude_none=True),
                    context=context,
                )
            )
        )

    @operation
    def get_edge(self, edge_id: str) -> Op[EdgeRecord]:
        """The edge ``edge_id`` (``GET /v1/edges/{id}``).

        Raises:
            EdgeNotFoundError: no such edge.
        """
        return (
            yield from self._send(
                Call(
                    "GET",
                    _path("edges", edge_id),
                    EdgeRecord.model_validate,
                    context={"edge_id": edge_id},
                    replayable=True,
                )
            )
        )

    @operation
    def get_edges(
        self, thought_id: str, direction: EdgeDirection | str = EdgeDirection.BOTH
    ) -> Op[list[EdgeRecord]]:
        """A thought's edges, oldest first (``GET /v1/thoughts/{id}/edges``).

        Args:
            thought_id: the thought.
            direction: ``"OUT"``, ``"IN"`` or ``"BOTH"``.

        Raises:
            ThoughtNotFoundError: no such thought.
        """
        return (
            yield from self._send(
                Call(
                    "GET",
                    _path("thoughts", thought_id, "edges"),
                    _EDGES.validate_python,
                    params={"direction": str(direction)},
                    context={"thought_id": thought_id},
                    replayable=True,
                )
            )
        )

    @operation
    def delete_edge(self, edge_id: str) -> Op[None]:
        """Delete an edge (``DELETE /v1/edges/{id}``).

        Raises:
            EdgeNotFoundError: no such edge.
        """
        yield from self._send(
            Call("DELETE", _path("edges", edge_id), context={"edge_id": edge_id}, replayable=True)
        )

    # -- dreaming ----------------------------------------------------------------------------

    @operation
    def dream(self, current_cycle: int) -> Op[DreamJob]:
        """Start one dreaming (consolidation) pass over the namespace in the background
        (``POST /v1/dream``); passes of one namespace run one after another.

        Args:
            current_cycle: the caller's cognitive cycle "now" (dreaming's gates count cycles).

        Returns:
            The queued job; follow it with :meth:`get_dream` or :meth:`wait_for_dream`.
        """
        body = validated(DreamRequest, {"current_cycle": current_cycle})
        return (
            yield from self._send(
                Call("POST", "/v1/dream", DreamJob.model_validate, json=_sent(body))
            )
        )

    @operation
    def get_dream(self, job_id: str) -> Op[DreamJob]:
        """A dreaming job's status, timestamps, counts and error (``GET /v1/dream/{id}``).

        Raises:
            ApiError: no such job in this namespace (code ``job_not_found``; jobs are kept in
                the service's memory until it restarts).
        """
        return (yield from self._get_dream(job_id))

    def _get_dream(self, job_id: str) -> Op[DreamJob]:
        return (
            yield from self._send(
                Call(
                    "GET",
                    _path("dream", job_id),
                    DreamJob.model_validate,
                    context={"job_id": job_id},
                    replayable=True,
                )
            )
        )

    @operation
    def wait_for_dream(
        self, job_id: str, timeout: float = 300.0, poll_interval: float = 1.0
    ) -> Op[DreamJob]:
        """Poll a dreaming job until it is completed or failed.

        Args:
            job_id: the job (from :meth:`dream`).
            timeout: seconds to wait at most.
            poll_interval: seconds between polls.

        Returns:
            The finished job: check ``status`` (``"completed"`` with ``counts``, or ``"failed"``
            with ``error``).

        Raises:
            DreamTimeoutError: still queued or running after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            job = yield from self._get_dream(job_id)
            remaining = deadline - time.monotonic()
            if job.status in _FINISHED:
                return job
            if remaining <= 0:
                raise DreamTimeoutError(job_id, job.status.value, timeout)
            yield Sleep(min(poll_interval, remaining))

    # -- service -----------------------------------------------------------------------------

    @operation
    def health(self) -> Op[Health]:
        """Readiness (``GET /readyz``): Neo4j answers and the graph's schema is current.

        Returns:
            ``Health(status="ready", schema_version=N)``.

        Raises:
            Neo4jUnavailableError / SchemaVersionError: not ready (after the client's retries).
        """
        return (
            yield from self._send(Call("GET", "/readyz", Health.model_validate, replayable=True))
        )
