"""The base of the client's calls: the transport, the namespace and how a call is sent; the
request helpers every area uses."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

from engrava_graph.client._ops import Op, operation
from engrava_graph.client._transport import Call, Transport
from engrava_graph.model.errors import EdgeNotFoundError, ThoughtNotFoundError
from engrava_graph.model.ids import id_problem
from engrava_graph.model.namespace import DEFAULT_NAMESPACE
from engrava_graph.wire import Health

T = TypeVar("T")


def path(*parts: str) -> str:
    """``/v1/<part>/<part>…`` with each part URL-quoted (an id may hold ``?``, ``#`` or ``%``)."""
    return "/v1/" + "/".join(quote(part, safe="") for part in parts)


def thought_path(thought_id: str, *rest: str) -> str:
    """``/v1/thoughts/<thought_id>…``.

    Raises:
        ThoughtNotFoundError: an id no thought can have
            (:func:`~engrava_graph.model.ids.id_problem`: ``a/b``, ``..``), which no URL could
            address either (the server would answer its router's 404).
    """
    if id_problem(thought_id):
        raise ThoughtNotFoundError(thought_id)
    return path("thoughts", thought_id, *rest)


def edge_path(edge_id: str) -> str:
    """``/v1/edges/<edge_id>``.

    Raises:
        EdgeNotFoundError: an id no edge can have, as :func:`thought_path` says of thoughts.
    """
    if id_problem(edge_id):
        raise EdgeNotFoundError(edge_id)
    return path("edges", edge_id)


def sent(model: BaseModel) -> dict[str, Any]:
    """The JSON body of a request model: only the fields the caller set."""
    return model.model_dump(mode="json", exclude_unset=True)


class ClientBase(ABC):
    """The transport and namespace the calls share (the arguments: :class:`ClientApi`)."""

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
