"""Probes without authentication: ``/healthz`` (the process answers) and ``/readyz`` (Neo4j
answers and the schema is current; else 503 with Retry-After)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from engrava_graph.graph.schema import SCHEMA_VERSION
from engrava_graph.wire import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, summary="Liveness")
async def healthz() -> Health:
    """200 while the process serves requests, with the schema version it serves (verified or
    migrated when it started; no Neo4j call: ``/readyz`` reads the graph's)."""
    return Health(status="ok", schema_version=SCHEMA_VERSION)


@router.get(
    "/readyz",
    response_model=Health,
    summary="Readiness",
    responses={503: {"description": "Neo4j unreachable or schema not current"}},
)
async def readyz(request: Request) -> Health:
    """200 when Neo4j answers and the graph's schema is the version this service needs."""
    version = await request.app.state.api.ready()
    return Health(status="ready", schema_version=version)


@router.head("/healthz", include_in_schema=False)
async def healthz_head() -> Response:
    """``HEAD /healthz`` (uptime monitors): the status of ``GET``, no body."""
    return Response(status_code=200)


@router.head("/readyz", include_in_schema=False)
async def readyz_head(request: Request) -> Response:
    """``HEAD /readyz``: 200, or the 503 of ``GET`` (its headers, no body)."""
    await request.app.state.api.ready()
    return Response(status_code=200)
