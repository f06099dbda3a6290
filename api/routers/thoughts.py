"""Thoughts: create (one or bulk), read, list with filters and a cursor, patch, delete, restore."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response, status
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from api.auth import CreateAccess, ReadAccess, WriteAccess
from engrava_graph.model.bounds import Cycle
from engrava_graph.model.enums import LifecycleStatus, Priority, ThoughtType, ThoughtVisibility
from engrava_graph.model.errors import (
    InvalidFilterError,
    ThoughtNotFoundError,
    ValidationFailedError,
    validation_message,
)
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.records import ThoughtRecord
from engrava_graph.model.temporal import ValidTimeFilter, ValidTimeKind
from engrava_graph.model.thought_filter import ThoughtFilter
from engrava_graph.wire import (
    ERROR_RESPONSES,
    MAX_PAGE_SIZE,
    BulkResult,
    BulkThoughts,
    InvalidThought,
    RestoreRequest,
    ThoughtCreate,
    ThoughtPage,
    ThoughtPatch,
)

router = APIRouter(prefix="/v1", tags=["thoughts"], responses=ERROR_RESPONSES)

ThoughtId = Annotated[str, Path(min_length=1, max_length=128, description="The thought's id.")]


def parse_metadata_filter(text: str | None) -> MetadataFilter | None:
    """The ``metadata_filter`` query parameter: a JSON object ``{"path": value | [values]}``.

    Raises:
        InvalidFilterError: not JSON, not an object, or a bad path or value.
    """
    if text is None:
        return None
    try:
        mapping = json.loads(text)
    except ValueError as exc:
        raise InvalidFilterError(f"metadata_filter is not JSON: {exc}") from exc
    if not isinstance(mapping, dict):
        raise InvalidFilterError('metadata_filter must be a JSON object {"path": value}')
    return MetadataFilter.from_mapping(mapping)


_INTERVAL_HELP = (
    "an ISO-8601 interval START/END, e.g. 2024-05-01/2024-06-01 (naive instants are UTC)"
)


def parse_valid_time(
    valid_at: str | None, valid_within: str | None, valid_between: str | None
) -> ValidTimeFilter | None:
    """The valid-time filter of ``GET /v1/thoughts`` from its three query parameters (at most
    one given): ``valid_at=T`` (valid at instant T), ``valid_within=START/END`` (validity
    overlaps [START, END)), ``valid_between=START/END`` (validity inside [START, END], both
    bounds set); the predicates of :class:`ValidTimeFilter`.

    Raises:
        RequestValidationError: more than one given, a value that is not an instant or an
            interval, or an interval whose end is before its start (a 422 ``invalid_request``
            naming the parameter, as for any other query parameter).
    """
    given = {
        name: text
        for name, text in (
            ("valid_at", valid_at),
            ("valid_within", valid_within),
            ("valid_between", valid_between),
        )
        if text is not None
    }
    if not given:
        return None
    name, text = next(iter(given.items()))

    def refuse(message: str) -> RequestValidationError:
        return RequestValidationError(
            [{"loc": ("query", name), "msg": message, "type": "value_error"}]
        )

    if len(given) > 1:
        raise refuse(f"give one of {sorted(given)}, not several")
    kind = ValidTimeKind(name)
    start, _, end = text.partition("/") if kind is not ValidTimeKind.AT else (text, "", text)
    if not end:
        raise refuse(_INTERVAL_HELP)
    try:
        return ValidTimeFilter(kind=kind, start=start, end=end)
    except ValidationError as exc:
        detail = validation_message(exc.errors()[0])
        expected = "an ISO-8601 instant" if kind is ValidTimeKind.AT else _INTERVAL_HELP
        raise refuse(f"{detail} (expected {expected})") from exc


@router.post(
    "/thoughts",
    status_code=status.HTTP_201_CREATED,
    response_model=ThoughtRecord,
    summary="Store a thought",
    responses={200: {"description": "deduplicated: the existing thought, confirmed"}},
)
async def create_thought(
    body: ThoughtCreate, access: CreateAccess, response: Response
) -> ThoughtRecord:
    """Store a thought with its embedding, entities and tags (one transaction). The namespace
    is created on its first thought."""
    record = body.record()
    stored = await access.store.create_thought(
        record,
        deduplicate=body.deduplicate,
        expires_after_seconds=body.expires_after_seconds,
        embedding=body.embedding,
    )
    if stored.thought_id != record.thought_id:
        response.status_code = status.HTTP_200_OK
    return stored


@router.post(
    "/thoughts:bulk",
    status_code=status.HTTP_201_CREATED,
    response_model=BulkResult,
    summary="Store up to 1000 thoughts in one transaction",
)
async def bulk_store(body: BulkThoughts, access: CreateAccess) -> BulkResult:
    """All or nothing: a duplicate id (in the body or the namespace) stores none (409)."""
    stored = await access.store.bulk_store(body.thoughts, embeddings=body.embeddings)
    return BulkResult(stored=len(stored), thought_ids=[t.thought_id for t in stored])


@router.get("/thoughts", response_model=ThoughtPage, summary="List thoughts by filters")
async def list_thoughts(
    access: ReadAccess,
    thought_type: ThoughtType | None = None,
    priority: Priority | None = None,
    lifecycle_status: LifecycleStatus | None = None,
    visibility: ThoughtVisibility | None = None,
    min_cycle: Cycle | None = None,
    max_cycle: Cycle | None = None,
    include_expired: bool = False,
    include_archived: bool = True,
    metadata_filter: Annotated[
        str | None,
        Query(
            max_length=4096,
            description='JSON object {"path": value | [values]}, e.g. '
            '{"speaker": "Ann", "session": [1, 2]}',
        ),
    ] = None,
    valid_at: Annotated[
        str | None, Query(max_length=64, description="only thoughts valid at this ISO-8601 instant")
    ] = None,
    valid_within: Annotated[
        str | None,
        Query(
            max_length=130,
            description="only thoughts whose valid time overlaps START/END "
            "(ISO-8601 instants, END excluded)",
        ),
    ] = None,
    valid_between: Annotated[
        str | None,
        Query(
            max_length=130,
            description="only thoughts whose valid time lies inside START/END (both bounds set)",
        ),
    ] = None,
    cursor: Annotated[
        str | None,
        Query(min_length=1, max_length=128, description="next_cursor of the previous page"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = 50,
) -> ThoughtPage:
    """Thoughts matching every filter, ordered by id, one page at a time (keyset cursor: pages
    stay consistent while thoughts are added). At most one valid-time filter: ``valid_at``,
    ``valid_within`` or ``valid_between``. A thought edited by hand in Neo4j into something no
    write produces is named in ``invalid`` instead of failing the page (PATCH repairs it)."""
    where = ThoughtFilter(
        thought_type=thought_type,
        priority=priority,
        lifecycle_status=lifecycle_status,
        visibility=visibility,
        min_cycle=min_cycle,
        max_cycle=max_cycle,
        include_expired=include_expired,
        include_archived=include_archived,
        filters=parse_metadata_filter(metadata_filter),
        valid_time=parse_valid_time(valid_at, valid_within, valid_between),
    )
    page = await access.store.list_page(where, after_id=cursor, limit=limit)
    return ThoughtPage(
        thoughts=page.thoughts,
        next_cursor=page.next_cursor,
        invalid=[
            InvalidThought(thought_id=e.record_id, problems=e.problems, message=str(e))
            for e in page.invalid
        ],
    )


@router.get("/thoughts/{thought_id}", response_model=ThoughtRecord, summary="Read a thought")
async def get_thought(thought_id: ThoughtId, access: ReadAccess) -> ThoughtRecord:
    """The thought, or 404."""
    thought = await access.store.get_thought(thought_id)
    if thought is None:
        raise ThoughtNotFoundError(thought_id)
    return thought


@router.patch(
    "/thoughts/{thought_id}", response_model=ThoughtRecord, summary="Change fields of a thought"
)
async def update_thought(
    thought_id: ThoughtId,
    body: ThoughtPatch,  # type: ignore[valid-type]
    access: WriteAccess,
) -> ThoughtRecord:
    """Apply the given fields (``metadata`` and ``tags`` are replaced whole); the embedding is
    recomputed when essence or content change. An illegal lifecycle step is 409."""
    changes: dict[str, Any] = body.model_dump(exclude_unset=True)
    if not changes:
        raise ValidationFailedError("the patch is empty: give at least one field to change")
    return await access.store.update_thought(thought_id, **changes)


@router.delete(
    "/thoughts/{thought_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete a thought and its edges",
)
async def delete_thought(thought_id: ThoughtId, access: WriteAccess) -> Response:
    """Delete the thought with its edges, entity and tag links, in one transaction (404 if
    absent)."""
    if not await access.store.delete_thought(thought_id):
        raise ThoughtNotFoundError(thought_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/thoughts/{thought_id}/restore",
    response_model=ThoughtRecord,
    summary="Restore an archived thought",
)
async def restore_thought(
    thought_id: ThoughtId, access: WriteAccess, body: RestoreRequest | None = None
) -> ThoughtRecord:
    """ARCHIVED -> ACTIVE (409 when the thought is not archived)."""
    cycle = body.current_cycle if body is not None else None
    return await access.store.restore_thought(thought_id, current_cycle=cycle)
