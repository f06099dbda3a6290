"""The REST service run for real on 127.0.0.1 (uvicorn in a background thread, on a free port,
with the API keys of ``tests/integration/api/conftest.py``) for the Python client's tests, plus
an adapter that lets one test body drive ``Client`` and ``AsyncClient`` alike."""

from __future__ import annotations

import inspect
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

from api.app import create_app
from engrava_graph.client import AsyncClient, Client
from engrava_graph.embeddings.base import EmbeddingProvider
from engrava_graph.graph.connection import ConnectionInfo
from tests.integration.api.conftest import ADMIN, api_settings

START_TIMEOUT = 120.0  # seconds for the lifespan (connect, migrate, warm the model) on 2 cores
STOP_TIMEOUT = 30.0  # seconds for a graceful shutdown


@dataclass(frozen=True)
class Service:
    """A running service: its URL and the admin key."""

    base_url: str
    api_key: str = ADMIN

    def client(self, kind: str, namespace: str, **options: Any) -> Client | AsyncClient:
        """A ``Client`` (``kind="sync"``) or ``AsyncClient`` (``"async"``) on ``namespace``."""
        options.setdefault("api_key", self.api_key)
        cls = Client if kind == "sync" else AsyncClient
        return cls(self.base_url, namespace=namespace, **options)


@contextmanager
def running_service(connection: ConnectionInfo, provider: EmbeddingProvider) -> Iterator[Service]:
    """Serve ``api.app`` with the test keys (see :func:`serving`) until the block ends."""
    with serving(create_app(api_settings(connection), embedding_provider=provider)) as base_url:
        yield Service(base_url)


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port until the block ends; yields its URL.

    Raises:
        RuntimeError: the service did not start within :data:`START_TIMEOUT` seconds.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="client-test-service"
    )
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the REST service did not start (is Neo4j up? see the log)")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STOP_TIMEOUT)
        sock.close()


class Awaiting:
    """One test body for both clients: ``await adapter.call(...)`` runs ``client.call(...)``
    and awaits the result when the client is an ``AsyncClient``; ``await adapter.collect(it)``
    lists an iterator or async iterator."""

    def __init__(self, client: Client | AsyncClient) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            return await result if inspect.isawaitable(result) else result

        return call

    @staticmethod
    async def collect(items: Any) -> list[Any]:
        """The items of an iterator or an async iterator, as a list."""
        if hasattr(items, "__aiter__"):
            return [item async for item in items]
        return list(items)

    async def close(self) -> None:
        """Close the client."""
        if isinstance(self.client, AsyncClient):
            await self.client.aclose()
        else:
            self.client.close()
