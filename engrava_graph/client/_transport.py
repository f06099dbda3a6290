"""The client's request/response core, shared by ``Client`` and ``AsyncClient``.

:class:`Transport` holds the connection settings, builds each request, retries it and reads the
answer, as an operation (see :mod:`engrava_graph.client._ops`): it yields the request and any
retry delay, and the shell sends and sleeps. Retries (tenacity):

- HTTP 503 (Neo4j away or busy; the service promises that nothing was committed unless it was
  acknowledged): after the ``Retry-After`` seconds, capped at ``max_retry_after``;
- a request that never left (connection refused, connect or pool timeout), and for a call that
  is safe to repeat (reads, deletes) any transport failure: bounded exponential backoff
  (0.5 s doubling to at most 8 s, plus up to 0.5 s of jitter);
- at most ``max_retries`` times; then the last 503 is raised as its typed error
  (``Neo4jUnavailableError``) and a transport failure as ``ServiceUnreachableError``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import httpx
from pydantic import BaseModel, ValidationError
from tenacity import (
    RetryCallState,
    Retrying,
    before_sleep_log,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from engrava_graph.client._errors import error_from_response
from engrava_graph.client._ops import Exchange, Op, Sleep
from engrava_graph.model.errors import ApiError, ServiceUnreachableError, ValidationFailedError
from engrava_graph.model.namespace import DEFAULT_NAMESPACE, validate_namespace

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

log = logging.getLogger("engrava_graph.client")

NAMESPACE_HEADER = "X-Namespace"
BACKOFF_INITIAL = 0.5
"""Seconds before the first retry of a transport failure (or a 503 without Retry-After)."""
BACKOFF_MAX = 8.0
"""Longest backoff delay before jitter, seconds."""
BACKOFF_JITTER = 0.5
"""Random seconds (uniform in [0, this]) added to each backoff delay."""
_BACKOFF = wait_exponential(multiplier=BACKOFF_INITIAL, max=BACKOFF_MAX) + wait_random(
    0, BACKOFF_JITTER
)
_UNSENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
"""Transport failures before the request left: always safe to retry."""


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request of the API and how to read its answer.

    Attributes:
        method, path: the route (``path`` with its ids already URL-quoted).
        parse: turns the JSON answer into the result; None for an answer without a body.
        json: the request body, or None.
        params: query parameters, or None.
        context: what the call is about (``thought_id``, ...), for the typed error of a failure.
        replayable: sending it twice does no harm (reads, deletes), so a request that may have
            reached the service is retried too.
        items: how many records the body carries (a batch): the answer may take
            :data:`SECONDS_PER_ITEM` longer for each, on top of the client's timeout.
    """

    method: str
    path: str
    parse: Callable[[Any], T] | None = None
    json: Any = None
    params: Mapping[str, Any] | None = None
    context: Mapping[str, Any] = field(default_factory=dict)
    replayable: bool = False
    items: int = 0


SECONDS_PER_ITEM = 0.01
"""How much longer a batch's answer may take per record: the service stored 10,000 messages in
40 s on a 2-core machine; 10 ms each gives such a batch 130 s with the default 30 s."""


class _Unavailable(Exception):
    """A 503 answer, raised inside a retry attempt so that tenacity retries it."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(
            f"HTTP 503 from the service (Retry-After: {response.headers.get('Retry-After', '-')})"
        )
        self.response = response


def retry_after(response: httpx.Response) -> float | None:
    """The ``Retry-After`` delay of an answer in seconds, or None when absent or not a
    non-negative number of seconds (an HTTP date is not used: the service sends seconds)."""
    try:
        seconds = float(response.headers.get("Retry-After", ""))
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def validated(model: type[M], data: Any) -> M:
    """``model.model_validate(data)``, a failure raised as :class:`ValidationFailedError` (with
    pydantic's per-field ``errors``) before any request is sent."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ValidationFailedError.from_pydantic(exc) from exc


@dataclass(frozen=True)
class Transport:
    """Connection settings and the request/retry/answer logic of one client.

    Attributes:
        base_url: the service's root URL (``http://127.0.0.1:8000``).
        api_key: the bearer key; None for a service run with ``--insecure-dev``.
        namespace: the namespace every call works in (``X-Namespace``).
        timeout: seconds for each of connect, read, write and pool wait of one request; a batch
            reads longer (``Call.items``).
        max_retries: retries after the first attempt (0 = none).
        max_retry_after: the longest ``Retry-After`` honoured, seconds.

    Raises:
        ValidationFailedError: a base URL that is not http(s), or negative numbers.
        InvalidNamespaceError: a malformed namespace.
    """

    base_url: str
    api_key: str | None = None
    namespace: str = DEFAULT_NAMESPACE
    timeout: float = 30.0
    max_retries: int = 3
    max_retry_after: float = 30.0

    def __post_init__(self) -> None:
        if httpx.URL(self.base_url).scheme not in ("http", "https"):
            raise ValidationFailedError(
                f"base_url {self.base_url!r} must be an http:// or https:// URL of the service"
            )
        if self.timeout <= 0 or self.max_retries < 0 or self.max_retry_after < 0:
            raise ValidationFailedError(
                "timeout must be > 0 and max_retries, max_retry_after >= 0 (seconds, counts)"
            )
        validate_namespace(self.namespace)

    def http_options(self) -> dict[str, Any]:
        """Keyword arguments of ``httpx.Client`` / ``httpx.AsyncClient``: base URL, headers
        (key, namespace) and timeout."""
        headers = {
            NAMESPACE_HEADER: self.namespace,
            "Accept": "application/json",
            "User-Agent": "engrava-graph-client",
        }
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return {
            "base_url": self.base_url,
            "headers": headers,
            "timeout": httpx.Timeout(self.timeout),
        }

    def send(self, call: Call[T]) -> Op[T]:
        """The operation that sends ``call`` (retrying as the module docstring says) and returns
        its parsed answer.

        Raises:
            EngravaGraphError: the typed error of an error answer (see :func:`error_from_response`).
            ServiceUnreachableError: no answer after the retries.
            ApiError: an answer that is not what the call expects.
        """
        delays: list[float] = []
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(lambda error: _retryable(call, error)),
            sleep=delays.append,
            before_sleep=before_sleep_log(log, logging.INFO),
            reraise=True,
        )
        timeout = None
        if call.items:
            timeout = httpx.Timeout(self.timeout, read=self.timeout + call.items * SECONDS_PER_ITEM)
        request = Exchange(call.method, call.path, call.json, call.params, timeout)
        try:
            for attempt in retrying:
                if delays:
                    yield Sleep(delays.pop())
                with attempt:
                    answer = yield request
                    if isinstance(answer, httpx.TransportError):
                        raise answer
                    if answer.status_code == httpx.codes.SERVICE_UNAVAILABLE:
                        raise _Unavailable(answer)
        except _Unavailable as unavailable:
            answer = unavailable.response
        except httpx.TransportError as error:
            raise ServiceUnreachableError(
                f"no answer from {self.base_url} to {call.method} {call.path} after "
                f"{self.max_retries + 1} attempt(s): {type(error).__name__}: {error}"
            ) from error
        return parse(call, answer)

    def _wait(self, state: RetryCallState) -> float:
        """Seconds before the next attempt: a 503's Retry-After (capped), else the backoff."""
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _Unavailable):
            delay = retry_after(error.response)
            if delay is not None:
                return min(delay, self.max_retry_after)
        return float(_BACKOFF(state))


def _retryable(call: Call[Any], error: BaseException) -> bool:
    if isinstance(error, (_Unavailable, *_UNSENT)):
        return True
    return call.replayable and isinstance(error, httpx.TransportError)


def parse(call: Call[T], response: httpx.Response) -> T:
    """The result of ``call`` from its answer.

    Raises:
        EngravaGraphError: the typed error of an error answer.
        ApiError: a success answer that ``call.parse`` cannot read.
    """
    if not response.is_success:
        raise error_from_response(response, call.context)
    if call.parse is None:
        return cast(T, None)
    try:
        return call.parse(response.json())
    except ValueError as exc:  # not JSON, or pydantic's ValidationError
        raise ApiError(
            f"the answer to {call.method} {call.path} is not what this client expects ({exc}); "
            f"are the client and the service the same version?",
            status=response.status_code,
            code="unexpected_answer",
        ) from exc
