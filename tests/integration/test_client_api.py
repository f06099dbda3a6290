"""Every call of the Python client, and its typed errors, against the real service (uvicorn on
127.0.0.1) on the real Neo4j; each test runs with ``Client`` and with ``AsyncClient`` through
the :class:`Awaiting` adapter (one body, ``await`` on both)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from engrava_graph.client import AsyncClient, Client
from engrava_graph.conversations import Message
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.model.enums import EdgeType, LifecycleStatus, ThoughtType
from engrava_graph.model.errors import (
    ApiError,
    AuthenticationError,
    DuplicateEdgeError,
    DuplicateThoughtError,
    EdgeNotFoundError,
    InvalidTransitionError,
    MessageConflictError,
    PermissionDeniedError,
    ReferentialIntegrityError,
    ThoughtNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.records import EdgeRecord, ThoughtRecord
from engrava_graph.model.temporal import ValidTimeFilter
from engrava_graph.wire import BulkResult, DreamJob, Health, JobStatus, MessagesResult
from tests.integration.api.conftest import READER, SCOPED, SCOPED_NS
from tests.integration.client_service import Awaiting, Service, running_service

KINDS = ["sync", "async"]


@pytest.fixture(scope="module")
def service(connection: Any, provider: Any) -> Iterator[Service]:
    with running_service(connection, provider) as running:
        yield running


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    """``"sync"`` (``Client``) or ``"async"`` (``AsyncClient``): every test runs with both."""
    return str(request.param)


@pytest.fixture
async def make_client(
    kind: str, service: Service, executor: GraphExecutor
) -> AsyncIterator[Callable[..., Awaiting]]:
    """A factory of adapted clients of the test's kind on fresh namespaces (or on a given
    one); every namespace made is deleted after the test."""
    made: list[Awaiting] = []

    def make(namespace: str | None = None, **options: Any) -> Awaiting:
        name = namespace or f"clapi-{uuid.uuid4().hex[:12]}"
        made.append(Awaiting(service.client(kind, name, **options)))
        return made[-1]

    yield make
    for adapter in made:
        await adapter.close()
        await Neo4jEngravaCore(executor, namespace=adapter.client.namespace).delete_namespace()


@pytest.fixture
def client(make_client: Callable[..., Awaiting]) -> Awaiting:
    return make_client()


async def test_thought_calls_round_trip(client: Awaiting) -> None:
    stored = await client.remember(
        "User prefers email over phone", {"channel": "email"}, tags=["Contact"]
    )
    assert isinstance(stored, ThoughtRecord) and stored.created_at is not None
    assert (stored.thought_type, stored.source, stored.tags) == (
        "OBSERVATION",
        "client",
        ["contact"],
    )
    assert await client.get_thought(stored.thought_id) == stored

    changed = await client.update_thought(
        stored.thought_id,
        essence="User prefers email",
        metadata={"channel": "email", "since": 2024},
    )
    assert changed.essence == "User prefers email" and changed.metadata["since"] == 2024

    archived = await client.update_thought(stored.thought_id, lifecycle_status="ARCHIVED")
    assert archived.lifecycle_status is LifecycleStatus.ARCHIVED
    restored = await client.restore_thought(stored.thought_id, current_cycle=3)
    assert restored.lifecycle_status is LifecycleStatus.ACTIVE and restored.updated_cycle == 3

    await client.delete_thought(stored.thought_id)
    with pytest.raises(ThoughtNotFoundError) as caught:
        await client.get_thought(stored.thought_id)
    assert (caught.value.status, caught.value.code) == (404, "thought_not_found")
    assert caught.value.thought_id == stored.thought_id
    assert stored.thought_id in str(caught.value)
    # An id no URL can address (and no thought can have) is not found too, not the router's 404.
    for unaddressable in ("a/b", "..", "a\\b"):
        with pytest.raises(ThoughtNotFoundError, match="does not exist"):
            await client.get_thought(unaddressable)
        with pytest.raises(ThoughtNotFoundError):
            await client.delete_thought(unaddressable)


async def test_create_thought_takes_records_and_mappings(client: Awaiting) -> None:
    record = ThoughtRecord(
        thought_id="t-1",
        thought_type=ThoughtType.NOTE,
        essence="Standup at 9",
        content="Standup is at 9am every weekday",
        source="calendar",
    )
    first = await client.create_thought(record)
    assert first.thought_id == "t-1" and first.content == record.content
    again = await client.create_thought(
        {**record.model_dump(), "thought_id": "t-2"}, deduplicate=True
    )
    assert again.thought_id == "t-1" and again.confirmation_count == 1
    with pytest.raises(DuplicateThoughtError) as caught:
        await client.create_thought(record)
    assert (caught.value.status, caught.value.thought_id) == (409, "t-1")


async def test_list_thoughts_walks_every_page(client: Awaiting) -> None:
    result = await client.bulk_store(
        [
            {
                "thought_id": f"n-{i}",
                "thought_type": "NOTE",
                "essence": f"note {i}",
                "content": f"note number {i}",
                "source": "bulk",
                "metadata": {"even": i % 2 == 0},
            }
            for i in range(5)
        ]
    )
    assert isinstance(result, BulkResult) and result.stored == 5
    every = await client.collect(client.client.list_thoughts(page_size=2))
    assert [t.thought_id for t in every] == [f"n-{i}" for i in range(5)]
    even = await client.collect(client.client.list_thoughts(metadata_filter={"even": True}))
    assert [t.thought_id for t in even] == ["n-0", "n-2", "n-4"]
    rest = await client.collect(client.client.list_thoughts(page_size=2, cursor="n-2"))
    assert [t.thought_id for t in rest] == ["n-3", "n-4"]


async def test_edge_calls_and_their_errors(client: Awaiting) -> None:
    for thought_id in ("effect", "cause"):
        await client.remember(f"the {thought_id}", thought_id=thought_id)
    edge = await client.create_edge(
        from_thought_id="effect", to_thought_id="cause", edge_type="CAUSED_BY", confidence=0.9
    )
    assert isinstance(edge, EdgeRecord) and edge.edge_type is EdgeType.CAUSED_BY
    assert await client.get_edge(edge.edge_id) == edge
    assert await client.get_edges("cause", "IN") == [edge]
    assert await client.get_edges("cause", "OUT") == []

    with pytest.raises(DuplicateEdgeError) as duplicate:
        await client.create_edge(
            EdgeRecord(
                from_thought_id="effect", to_thought_id="cause", edge_type=EdgeType.CAUSED_BY
            )
        )
    error = duplicate.value
    assert (error.status, error.code) == (409, "duplicate_edge")
    assert (error.from_thought_id, error.to_thought_id, error.edge_type) == (
        "effect",
        "cause",
        "CAUSED_BY",
    )
    with pytest.raises(ReferentialIntegrityError):
        await client.create_edge(
            from_thought_id="effect", to_thought_id="nowhere", edge_type="LEADS_TO"
        )

    await client.delete_edge(edge.edge_id)
    with pytest.raises(EdgeNotFoundError) as missing:
        await client.get_edge(edge.edge_id)
    assert missing.value.edge_id == edge.edge_id
    with pytest.raises(EdgeNotFoundError):
        await client.get_edge("a/b")
    with pytest.raises(ThoughtNotFoundError):
        await client.get_edges("nowhere")


async def test_invalid_requests_raise_validation_failed(client: Awaiting) -> None:
    stored = await client.remember("something")
    with pytest.raises(ValidationFailedError) as empty_patch:  # the service's 422
        await client.update_thought(stored.thought_id)
    assert (empty_patch.value.status, empty_patch.value.code) == (422, "validation_failed")
    with pytest.raises(ValidationFailedError) as too_big:  # FastAPI's 422
        await client.collect(client.client.list_thoughts(page_size=501))
    assert (too_big.value.code, too_big.value.field) == ("invalid_request", "limit")
    with pytest.raises(ValidationFailedError):  # checked before sending
        await client.retrieve(query="", top_k=5)
    with pytest.raises(InvalidTransitionError) as transition:
        await client.restore_thought(stored.thought_id)
    assert transition.value.status == 409


async def test_keys_are_checked(make_client: Callable[..., Awaiting]) -> None:
    owner = make_client()
    await owner.remember("a private memory")
    with pytest.raises(AuthenticationError) as unknown:
        await make_client(owner.client.namespace, api_key="not-a-configured-key").retrieve(
            query="memory"
        )
    assert (unknown.value.status, unknown.value.code) == (401, "unauthenticated")
    with pytest.raises(PermissionDeniedError) as read_only:
        await make_client(owner.client.namespace, api_key=READER).remember("a write")
    assert (read_only.value.status, read_only.value.code) == (403, "read_only_key")
    with pytest.raises(PermissionDeniedError) as elsewhere:
        await make_client(owner.client.namespace, api_key=SCOPED).retrieve(query="memory")
    assert elsewhere.value.code == "namespace_forbidden"
    scoped = make_client(SCOPED_NS, api_key=SCOPED)
    assert (await scoped.remember("allowed here")).essence == "allowed here"


async def test_conversation_messages(make_client: Callable[..., Awaiting]) -> None:
    client = make_client()
    messages = [
        {
            "speaker": "Caroline",
            "content": "I adopted a puppy.",
            "message_id": "m1",
            "timestamp": "2023-05-08T13:56:00Z",
        },
        Message(role="assistant", content="What is its name?", message_id="m2"),
    ]
    stored = await client.add_messages("chat-1", messages, source="chat")
    assert isinstance(stored, MessagesResult) and stored.created == 2
    assert [(m.position, m.speaker, m.created) for m in stored.messages] == [
        (0, "Caroline", True),
        (1, "assistant", True),
    ]
    thought = await client.get_thought(stored.messages[0].thought_id)
    assert (thought.content, thought.source) == ("Caroline: I adopted a puppy.", "chat")
    again = await client.add_messages("chat-1", messages, source="chat")
    assert again.created == 0 and again.messages == [
        m.model_copy(update={"created": False}) for m in stored.messages
    ]
    with pytest.raises(MessageConflictError) as conflict:
        await client.add_messages(
            "chat-1", [{"speaker": "Caroline", "content": "Other.", "message_id": "m1"}]
        )
    assert (conflict.value.status, conflict.value.code) == (409, "message_conflict")
    assert conflict.value.conversation_id == "chat-1"
    with pytest.raises(ValidationFailedError) as bad:  # checked before sending
        await client.add_messages("chat-1", [{"content": "no speaker"}])
    assert bad.value.errors[0]["loc"][:2] == ("messages", 0)
    with pytest.raises(ValidationFailedError) as slashed:  # no URL path carries it: not a 404
        await client.add_messages("a/b", messages)
    assert slashed.value.errors[0]["loc"] == ("conversation_id",)
    with pytest.raises(ValidationFailedError, match="must be a list of messages"):
        await client.add_messages("chat-1", "hello")  # type: ignore[arg-type]
    with pytest.raises(ValidationFailedError, match="1-10000 messages"):
        await client.add_messages("chat-1", [])  # as the library, REST and MCP
    with pytest.raises(PermissionDeniedError) as read_only:
        await make_client(client.client.namespace, api_key=READER).add_messages("chat-1", messages)
    assert read_only.value.code == "read_only_key"
    with pytest.raises(PermissionDeniedError) as elsewhere:
        await make_client(client.client.namespace, api_key=SCOPED).add_messages("chat-1", messages)
    assert elsewhere.value.code == "namespace_forbidden"


async def test_dreaming_job_is_followed_to_the_end(client: Awaiting) -> None:
    for i in range(4):
        await client.remember(f"The build broke because the cache was stale (case {i})")
    job = await client.dream(current_cycle=100)
    assert isinstance(job, DreamJob) and job.namespace == client.client.namespace
    done = await client.wait_for_dream(job.job_id, timeout=120, poll_interval=0.2)
    assert done.status is JobStatus.COMPLETED, done.error
    assert await client.get_dream(job.job_id) == done
    with pytest.raises(ApiError) as unknown:
        await client.get_dream("no-such-job")
    assert (unknown.value.status, unknown.value.code) == (404, "job_not_found")


async def test_health_and_context_managers(service: Service, kind: str) -> None:
    if kind == "sync":
        with Client(service.base_url, service.api_key) as sync_client:
            health = sync_client.health()
        assert sync_client._http.is_closed
    else:
        async with AsyncClient(service.base_url, service.api_key) as async_client:
            health = await async_client.health()
        assert async_client._http.is_closed
    assert isinstance(health, Health) and health.status == "ready"
    assert health.schema_version is not None


async def test_list_thoughts_filters_by_valid_time(client: Awaiting) -> None:
    for thought_id, start, end in (
        ("q1", "2024-01-01", "2024-04-01"),
        ("q2", "2024-04-01", "2024-07-01"),
    ):
        await client.create_thought(
            {
                "thought_id": thought_id,
                "thought_type": "NOTE",
                "essence": f"quarter {thought_id}",
                "content": "a quarter",
                "source": "calendar",
                "valid_from": start,
                "valid_until": end,
            }
        )
    listed = client.client.list_thoughts
    at = await client.collect(listed(valid_time=ValidTimeFilter.at("2024-05-15T00:00:00Z")))
    within = await client.collect(
        listed(valid_time=ValidTimeFilter.within("2024-03-01", "2024-05-01"))
    )
    between = await client.collect(
        listed(valid_time=ValidTimeFilter.between("2024-01-01", "2024-04-01"))
    )
    assert [t.thought_id for t in at] == ["q2"]
    assert [t.thought_id for t in within] == ["q1", "q2"]
    assert [t.thought_id for t in between] == ["q1"]
