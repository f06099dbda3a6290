"""The Python client's core without a service: error mapping, request building, the retry
operation stepped by hand, and (through ``httpx.MockTransport``, which fakes HTTP only) the
503 + Retry-After retry of both shells."""

from __future__ import annotations

import inspect
from typing import Any

import httpx
import pytest

from engrava_graph.client import AsyncClient, Client
from engrava_graph.client._errors import error_from_response
from engrava_graph.client._ops import Exchange, Run, Sleep
from engrava_graph.client._transport import (
    BACKOFF_INITIAL,
    BACKOFF_JITTER,
    SECONDS_PER_ITEM,
    Call,
    Transport,
    retry_after,
)
from engrava_graph.model.enums import ThoughtType
from engrava_graph.model.errors import (
    ApiError,
    AuthenticationError,
    DuplicateEdgeError,
    InvalidNamespaceError,
    Neo4jUnavailableError,
    PermissionDeniedError,
    ServiceUnreachableError,
    ThoughtNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.records import ThoughtRecord

BASE = "http://engrava.test"
_REQUEST = httpx.Request("GET", f"{BASE}/v1/thoughts/x")


def answer(
    status: int, body: Any = None, headers: dict[str, str] | None = None, text: str | None = None
) -> httpx.Response:
    if text is not None:
        return httpx.Response(status, text=text, headers=headers, request=_REQUEST)
    return httpx.Response(status, json=body, headers=headers, request=_REQUEST)


def error_body(code: str, message: str = "what to do", field: str | None = None) -> dict:
    return {"error": code, "message": message, "field": field}


def thought_json(thought_id: str = "x") -> dict[str, Any]:
    return ThoughtRecord(
        thought_id=thought_id, thought_type=ThoughtType.NOTE, essence="e", content="c", source="s"
    ).model_dump(mode="json")


# -- error mapping ---------------------------------------------------------------------------


def test_a_library_error_keeps_the_service_message_and_the_call_context() -> None:
    error = error_from_response(
        answer(409, error_body("duplicate_edge", "an edge 'a' -[CAUSED_BY]-> 'b' exists")),
        {"from_thought_id": "a", "to_thought_id": "b", "edge_type": "CAUSED_BY"},
    )
    assert isinstance(error, DuplicateEdgeError)
    assert str(error) == "an edge 'a' -[CAUSED_BY]-> 'b' exists"
    assert (error.from_thought_id, error.to_thought_id, error.edge_type, error.edge_id) == (
        "a",
        "b",
        "CAUSED_BY",
        None,
    )
    assert (error.status, error.code, error.field) == (409, "duplicate_edge", None)

    missing = error_from_response(answer(404, error_body("thought_not_found")), {"thought_id": "x"})
    assert isinstance(missing, ThoughtNotFoundError) and missing.thought_id == "x"
    invalid = error_from_response(
        answer(422, error_body("invalid_request", "limit: too big", field="limit"))
    )
    assert isinstance(invalid, ValidationFailedError)
    assert (invalid.errors, invalid.field, invalid.status) == ([], "limit", 422)


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [
        (401, "unauthenticated", AuthenticationError),
        (403, "namespace_forbidden", PermissionDeniedError),
        (403, "read_only_key", PermissionDeniedError),
        (401, "some_new_code", AuthenticationError),
        (403, "some_new_code", PermissionDeniedError),
        (404, "job_not_found", ApiError),
        (418, "teapot", ApiError),
    ],
)
def test_http_layer_errors(status: int, code: str, expected: type[ApiError]) -> None:
    error = error_from_response(answer(status, error_body(code, "go away", "Authorization")))
    assert type(error) is expected
    assert (error.status, error.code, error.message, error.field) == (
        status,
        code,
        "go away",
        "Authorization",
    )


def test_an_answer_that_is_not_the_service_json_is_an_api_error() -> None:
    error = error_from_response(answer(502, text="<html>Bad gateway</html>"))
    assert type(error) is ApiError and error.status == 502 and error.code == "http_error"
    assert "Bad gateway" in str(error)


# -- the retry operation, stepped by hand ----------------------------------------------------


def run_send(transport: Transport, call: Call[Any], outcomes: list[Any]) -> tuple[Any, list]:
    """Drive ``transport.send(call)`` with the given outcomes for its requests; return the
    result and every effect it yielded."""
    run = Run(transport.send(call))
    effects: list[Any] = []
    pending = list(outcomes)
    while run.effect is not None:
        effects.append(run.effect)
        run.resume(pending.pop(0) if isinstance(run.effect, Exchange) else None)
    assert not pending
    return run.result, effects


GET_THOUGHT = Call(
    "GET",
    "/v1/thoughts/x",
    ThoughtRecord.model_validate,
    context={"thought_id": "x"},
    replayable=True,
)


def test_a_503_is_retried_after_its_retry_after() -> None:
    transport = Transport(BASE, max_retry_after=30.0)
    unavailable = answer(503, error_body("neo4j_unavailable"), {"Retry-After": "2"})
    result, effects = run_send(transport, GET_THOUGHT, [unavailable, answer(200, thought_json())])
    assert isinstance(result, ThoughtRecord) and result.thought_id == "x"
    request = Exchange("GET", "/v1/thoughts/x")
    assert effects == [request, Sleep(2.0), request]


def test_retry_after_is_capped_and_the_last_503_is_raised_typed() -> None:
    transport = Transport(BASE, max_retries=2, max_retry_after=5.0)
    unavailable = answer(503, error_body("neo4j_unavailable"), {"Retry-After": "3600"})
    with pytest.raises(Neo4jUnavailableError) as caught:
        run_send(transport, GET_THOUGHT, [unavailable] * 3)
    assert (caught.value.status, str(caught.value)) == (503, "what to do")


def test_connection_errors_back_off_exponentially_then_give_up() -> None:
    transport = Transport(BASE, max_retries=3)
    refused = httpx.ConnectError("refused", request=_REQUEST)
    run = Run(transport.send(GET_THOUGHT))
    delays = []
    with pytest.raises(ServiceUnreachableError) as caught:
        while run.effect is not None:
            if isinstance(run.effect, Sleep):
                delays.append(run.effect.seconds)
            run.resume(refused if isinstance(run.effect, Exchange) else None)
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert len(delays) == 3
    for attempt, delay in enumerate(delays):
        base = BACKOFF_INITIAL * 2**attempt
        assert base <= delay <= base + BACKOFF_JITTER


def test_a_request_that_may_have_arrived_is_retried_only_when_replayable() -> None:
    transport = Transport(BASE)
    timeout = httpx.ReadTimeout("slow", request=_REQUEST)
    create = Call("POST", "/v1/thoughts", ThoughtRecord.model_validate, json={})
    with pytest.raises(ServiceUnreachableError):
        run_send(transport, create, [timeout])
    result, effects = run_send(transport, GET_THOUGHT, [timeout, answer(200, thought_json())])
    assert result.thought_id == "x" and isinstance(effects[1], Sleep)


def test_a_batch_reads_longer_in_proportion_to_its_records() -> None:
    transport = Transport(BASE, timeout=30.0)
    batch = Call("POST", "/v1/conversations/c/messages", None, json={}, items=10_000)
    first = next(transport.send(batch))
    assert isinstance(first, Exchange) and first.timeout is not None
    assert first.timeout.read == pytest.approx(30.0 + 10_000 * SECONDS_PER_ITEM)
    assert first.timeout.connect == 30.0 and first.request_args()["timeout"] is first.timeout
    single = next(transport.send(GET_THOUGHT))
    assert single.timeout is None and "timeout" not in single.request_args()  # the client's


def test_error_answers_are_not_retried() -> None:
    with pytest.raises(ThoughtNotFoundError):
        run_send(Transport(BASE), GET_THOUGHT, [answer(404, error_body("thought_not_found"))])


def test_an_unexpected_success_answer_is_an_api_error() -> None:
    with pytest.raises(ApiError) as caught:
        run_send(Transport(BASE), GET_THOUGHT, [answer(200, {"not": "a thought"})])
    assert caught.value.code == "unexpected_answer"


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("5", 5.0),
        ("0", 0.0),
        ("1.5", 1.5),
        ("-1", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", None),
        (None, None),
    ],
)
def test_retry_after_header(header: str | None, seconds: float | None) -> None:
    headers = {} if header is None else {"Retry-After": header}
    assert retry_after(answer(503, {}, headers)) == seconds


def test_settings_are_checked_and_sent() -> None:
    with pytest.raises(ValidationFailedError):
        Transport("ftp://engrava.test")
    with pytest.raises(ValidationFailedError):
        Transport(BASE, timeout=0)
    with pytest.raises(InvalidNamespaceError):
        Transport(BASE, namespace="no spaces")
    options = Transport(BASE, api_key="k" * 20, namespace="agent-1").http_options()
    assert options["headers"]["Authorization"] == "Bearer " + "k" * 20
    assert options["headers"]["X-Namespace"] == "agent-1"
    assert "Authorization" not in Transport(BASE).http_options()["headers"]


def test_the_shared_methods_show_their_own_signature_and_docs() -> None:
    client = Client(BASE)
    assert list(inspect.signature(client.get_thought).parameters) == ["thought_id"]
    assert client.get_thought.__doc__ == Client.get_thought.__doc__
    assert "ThoughtNotFoundError" in (client.get_thought.__doc__ or "")
    client.close()


# -- both shells over a mocked HTTP transport ------------------------------------------------


class FlakyService:
    """Answers 503 with ``Retry-After: 0`` once, then the thought; records the requests."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if len(self.requests) == 1:
            return httpx.Response(
                503, json=error_body("neo4j_unavailable"), headers={"Retry-After": "0"}
            )
        return httpx.Response(200, json=thought_json("a?b"))


def check_flaky(service: FlakyService, thought: ThoughtRecord) -> None:
    assert thought.thought_id == "a?b" and len(service.requests) == 2
    request = service.requests[-1]
    assert request.url.raw_path == b"/v1/thoughts/a%3Fb"
    assert request.headers["Authorization"] == "Bearer secret-key-0123456789"
    assert request.headers["X-Namespace"] == "ns-1"


def test_sync_client_retries_a_503() -> None:
    service = FlakyService()
    with Client(
        BASE, "secret-key-0123456789", namespace="ns-1", transport=httpx.MockTransport(service)
    ) as client:
        check_flaky(service, client.get_thought("a?b"))


async def test_async_client_retries_a_503() -> None:
    service = FlakyService()
    async with AsyncClient(
        BASE, "secret-key-0123456789", namespace="ns-1", transport=httpx.MockTransport(service)
    ) as client:
        check_flaky(service, await client.get_thought("a?b"))
