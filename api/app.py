"""The FastAPI application: ``create_app(settings)``.

Routes are versioned under ``/v1`` (OpenAPI at ``/docs`` and ``/openapi.json``); ``/healthz`` and
``/readyz`` are unauthenticated probes. Every ``/v1`` request names its namespace in the
``X-Namespace`` header (default ``"default"``) and carries ``Authorization: Bearer <key>``; see
:mod:`api.auth`. Errors are JSON ``{error, message, field}`` (:mod:`api.errors`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from api.auth import KeyRing
from api.errors import install_error_handlers
from api.middleware import BodyLimitMiddleware, PathEncodingMiddleware, RequestLogMiddleware
from api.openapi_examples import install_examples
from api.routers import conversations, dream, edges, health, retrieval, thoughts
from api.settings import ApiSettings
from api.state import ApiState
from engrava_graph.embeddings.base import EmbeddingProvider

log = logging.getLogger("api")

API_VERSION = "1.0.0"
_DEFAULT_PROVIDER = object()


def embedding_provider_for(settings: ApiSettings) -> EmbeddingProvider | None:
    """The provider ``settings.embedder`` names (None for ``"none"``: keyword search only)."""
    if settings.embedder == "none":
        return None
    from engrava_graph.embeddings import SentenceTransformerProvider

    return SentenceTransformerProvider(
        settings.embedding_model_path,
        workers=settings.embedding_workers,
        cache_size=settings.embedding_cache_size,
        backend=settings.embedding_backend,
    )


def create_app(
    settings: ApiSettings | None = None,
    *,
    embedding_provider: EmbeddingProvider | None | object = _DEFAULT_PROVIDER,
) -> FastAPI:
    """Build the service.

    Args:
        settings: the configuration; default: read from the environment and ``.env``.
        embedding_provider: use this provider instead of the one ``settings.embedder`` names
            (tests share one loaded model); ``None`` = keyword search only.

    Returns:
        The application. Its lifespan connects to Neo4j, migrates or checks the schema and warms
        the embedding model up; it fails to start when Neo4j is unreachable.

    Raises:
        ValueError: no API key is configured and ``insecure_dev`` is off.
    """
    settings = settings or ApiSettings()
    keyring = KeyRing(settings.api_keys, insecure_dev=settings.insecure_dev)
    provider = (
        embedding_provider_for(settings)
        if embedding_provider is _DEFAULT_PROVIDER
        else embedding_provider
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if keyring.open:
            log.warning(
                "serving WITHOUT authentication (--insecure-dev): every caller may read "
                "and write every namespace; never expose this server"
            )
        app.state.api = await ApiState.open(settings, keyring, provider)  # type: ignore[arg-type]
        try:
            yield
        finally:
            await app.state.api.close()

    app = FastAPIOffline(  # Swagger UI and ReDoc served from the package: /docs works offline
        title="engrava-graph",
        version=API_VERSION,
        lifespan=lifespan,
        description=(
            "A thought-graph memory service for AI agents, native on Neo4j. Send "
            "`Authorization: Bearer <key>` and `X-Namespace: <namespace>` with every "
            "/v1 request."
        ),
    )
    app.state.settings = settings
    install_error_handlers(app)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(PathEncodingMiddleware)
    app.add_middleware(RequestLogMiddleware)
    for module in (retrieval, thoughts, conversations, edges, dream, health):
        app.include_router(module.router)
    install_examples(app)
    return app
