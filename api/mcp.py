"""Running the MCP server of :mod:`engrava_graph.mcp`: over stdio (:func:`run_stdio`) or as a
streamable-HTTP ASGI app (:func:`http_app`), each opening one Neo4j connection with the REST
service's settings (:class:`api.settings.ApiSettings`: ``NEO4J_*``, ``ENGRAVA_EMBEDDER``,
``ENGRAVA_API_KEYS``, ...).

The HTTP app admits a request only with a configured API key (``Authorization: Bearer <key>``,
the REST service's keys, 401 otherwise), unless it was built with ``insecure_dev``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from api.app import embedding_provider_for
from api.auth import KeyRing
from api.errors import error_body
from api.settings import ApiSettings
from api.state import ApiState
from engrava_graph.embeddings.base import EmbeddingProvider
from engrava_graph.mcp.access import StoreSource, bearer_key, local_user
from engrava_graph.mcp.server import build_server

MCP_PATH = "/mcp"
_SETTINGS_PROVIDER: Any = object()


@asynccontextmanager
async def connected(
    source: StoreSource, settings: ApiSettings, keyring: KeyRing, provider: EmbeddingProvider | None
) -> AsyncIterator[ApiState]:
    """Connect to Neo4j as the REST service does (migrate or check the schema, warm the model
    up), attach the connection to ``source`` and close it on exit.

    Raises:
        Neo4jUnavailableError: Neo4j does not answer.
        SchemaVersionError: the schema is not current and ``migrate_on_start`` is off.
    """
    state = await ApiState.open(settings, keyring, provider)
    source.attach(state.base)
    try:
        yield state
    finally:
        source.attach(None)
        await state.close()


async def run_stdio(
    settings: ApiSettings,
    *,
    namespace: str,
    read_only: bool,
    provider: EmbeddingProvider | None | Any = _SETTINGS_PROVIDER,
) -> None:
    """Serve the tools on stdin/stdout until the client closes them (every namespace is
    allowed: the local user runs the process).

    Raises:
        Neo4jUnavailableError: Neo4j does not answer.
        InvalidNamespaceError: a malformed ``namespace``.
    """
    source = StoreSource(local_user, namespace)
    server = build_server(source, read_only=read_only)
    chosen = embedding_provider_for(settings) if provider is _SETTINGS_PROVIDER else provider
    async with connected(source, settings, KeyRing((), insecure_dev=True), chosen):
        await server.run_stdio_async()


class KeyGate:
    """ASGI middleware: an HTTP request without a configured API key gets the REST service's
    401 body (``{"error": "unauthenticated", ...}``) and never reaches the MCP server."""

    def __init__(self, app: ASGIApp, keyring: KeyRing) -> None:
        self.app = app
        self.keyring = keyring

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and self.keyring.authenticate(bearer_key(Headers(scope=scope))) is None
        ):
            response = JSONResponse(
                error_body(
                    "unauthenticated",
                    "missing or unknown API key: send "
                    "`Authorization: Bearer <key>` with a configured key",
                    "Authorization",
                ),
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def http_app(
    settings: ApiSettings,
    *,
    namespace: str,
    read_only: bool,
    host: str = "127.0.0.1",
    provider: EmbeddingProvider | None | Any = _SETTINGS_PROVIDER,
) -> Starlette:
    """The streamable-HTTP MCP server at ``/mcp``, behind the REST service's API keys.

    Args:
        settings: the configuration (``insecure_dev`` serves without keys).
        namespace: the namespace of a call that names none.
        read_only: register the read tools only.
        host: the interface it will listen on (the SDK checks ``Host`` headers against it).
        provider: use this embedding provider instead of the one the settings name.

    Raises:
        ValueError: no API key is configured and ``insecure_dev`` is off.
        InvalidNamespaceError: a malformed ``namespace``.
    """
    keyring = KeyRing(settings.api_keys, insecure_dev=settings.insecure_dev)
    source = StoreSource(keyring.authenticate, namespace)
    server = build_server(source, read_only=read_only)
    chosen = embedding_provider_for(settings) if provider is _SETTINGS_PROVIDER else provider
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    sessions = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(starlette: Starlette) -> AsyncIterator[None]:
        async with connected(source, settings, keyring, chosen), sessions(starlette):
            yield

    app.router.lifespan_context = lifespan
    app.add_middleware(KeyGate, keyring=keyring)
    return app
