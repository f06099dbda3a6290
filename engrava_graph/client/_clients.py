"""The two shells over :class:`ClientApi`: :class:`Client` (blocking) and :class:`AsyncClient`
(asyncio). Each only performs the effects the shared operations yield: it sends a request with
its ``httpx`` client and sleeps its way (see :mod:`engrava_graph.client._ops`)."""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any, Self

import httpx

from engrava_graph.client._api import ClientApi
from engrava_graph.client._ops import AsyncDriver, Effect, Sleep, SyncDriver


class Client(SyncDriver, ClientApi):
    """The blocking Python client of the engrava-graph REST service.

    Every call returns the library's own models and raises the library's typed errors
    (``ThoughtNotFoundError``, ``DuplicateEdgeError``, ...; ``AuthenticationError`` and
    ``PermissionDeniedError`` for 401/403; ``ApiError`` otherwise). See :class:`ClientApi` for
    the arguments and the calls.

    Examples:
        >>> from engrava_graph.client import Client
        >>> with Client("http://127.0.0.1:8000", "my-key", namespace="agent-1") as client:
        ...     client.remember("The deployment window is Tuesday 2-4pm UTC")
        ...     for r in client.retrieve(query="deploy schedule", top_k=5):
        ...         print(f"{r.confidence:.0%} — {r.text}")  # doctest: +SKIP
    """

    _http: httpx.Client

    def _open(self, options: dict[str, Any], transport: Any) -> httpx.Client:
        return httpx.Client(transport=transport, **options)

    def _perform(self, effect: Effect) -> Any:
        if isinstance(effect, Sleep):
            return time.sleep(effect.seconds)
        try:
            return self._http.request(**effect.request_args())
        except httpx.TransportError as error:
            return error

    def close(self) -> None:
        """Close the connections (also done on leaving a ``with`` block)."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncClient(AsyncDriver, ClientApi):
    """The asyncio Python client: the same calls, arguments and results as :class:`Client`,
    awaited (``await client.retrieve(query=...)``; ``list_thoughts`` is an async iterator).

    Examples:
        >>> async with AsyncClient("http://127.0.0.1:8000", "my-key") as client:
        ...     results = await client.retrieve(query="deploy schedule")  # doctest: +SKIP
    """

    _http: httpx.AsyncClient

    def _open(self, options: dict[str, Any], transport: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=transport, **options)

    async def _perform(self, effect: Effect) -> Any:
        if isinstance(effect, Sleep):
            return await asyncio.sleep(effect.seconds)
        try:
            return await self._http.request(**effect.request_args())
        except httpx.TransportError as error:
            return error

    async def aclose(self) -> None:
        """Close the connections (also done on leaving an ``async with`` block)."""
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
