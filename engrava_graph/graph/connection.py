"""Where the Neo4j server is: one resolution order for code, tests and the CLI.

1. ``NEO4J_URI`` (with ``NEO4J_USER``, default ``neo4j``; ``NEO4J_PASSWORD``; ``NEO4J_DATABASE``;
   without ``NEO4J_URI`` these three are ignored, and a warning says so).
2. A Docker engine that answers: a ``neo4j:5.26-community`` container through testcontainers,
   kept alive for the rest of the process.
3. The local server that ``engrava-graph neo4j start`` assembles from Maven Central.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from collections.abc import Mapping
from typing import Any

from engrava_graph.extras import require
from engrava_graph.graph.connection_info import ConnectionInfo
from engrava_graph.graph.server import LocalNeo4jServer
from engrava_graph.model.errors import Neo4jUnavailableError

CONTAINER_IMAGE = "neo4j:5.26-community"
DOCKER_PING_TIMEOUT = 3  # seconds

#: Settings that only apply with NEO4J_URI (a server of one's own).
_WITH_URI_ONLY = ("NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE")
log = logging.getLogger(__name__)

__all__ = ["CONTAINER_IMAGE", "ConnectionInfo", "connection_from_env", "resolve_connection"]

_container: Any = None  # the testcontainers Neo4jContainer started by this process, if any
_container_lock = threading.Lock()


def resolve_connection(*, start_local: bool = True) -> ConnectionInfo:
    """Return the Neo4j to use, following the resolution order of this module.

    ``start_local`` lets step 3 start the local server (up to a few minutes on the very first run,
    which downloads Neo4j); when False, a local server that is not running is an error.

    Raises:
        Neo4jUnavailableError: no step yields a server.
    """
    info = connection_from_env()
    if info is not None:
        return info
    ignored = [name for name in _WITH_URI_ONLY if os.environ.get(name)]
    if ignored:
        log.warning(
            "%s set without NEO4J_URI: ignored, using a local Neo4j; set NEO4J_URI to use "
            "your server",
            ", ".join(ignored),
        )
    if _docker_answers():
        return _container_connection()
    return _local_connection(start_local)


def connection_from_env(environ: Mapping[str, str] | None = None) -> ConnectionInfo | None:
    """Read NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD and NEO4J_DATABASE; None when there is no URI."""
    env = os.environ if environ is None else environ
    uri = env.get("NEO4J_URI")
    if not uri:
        return None
    return ConnectionInfo(
        uri=uri,
        user=env.get("NEO4J_USER") or "neo4j",
        password=env.get("NEO4J_PASSWORD", ""),
        database=env.get("NEO4J_DATABASE") or None,
        origin="env",
    )


def _docker_answers() -> bool:
    """True when a Docker engine answers a ping within ``DOCKER_PING_TIMEOUT`` seconds."""
    try:
        import docker

        # mypy may resolve `docker` to the repository's docker/ folder (a namespace package)
        client = docker.from_env(  # type: ignore[attr-defined,unused-ignore]
            timeout=DOCKER_PING_TIMEOUT
        )
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - no SDK, no socket, refused, timed out: all mean "no Docker"
        return False


def _container_connection() -> ConnectionInfo:
    """Start (once per process) a Neo4j container and return how to reach it.

    Raises:
        MissingExtraError: the ``docker`` extra (testcontainers) is not installed.
    """
    global _container
    require("docker", "Neo4j in Docker (no NEO4J_URI set, Docker found)")
    from testcontainers.neo4j import Neo4jContainer

    with _container_lock:
        if _container is None:
            container = Neo4jContainer(
                CONTAINER_IMAGE, username="neo4j", password=secrets.token_urlsafe(18)
            )
            container.start()
            _container = container
        return ConnectionInfo(
            uri=_container.get_connection_url(),
            user=_container.username,
            password=_container.password,
            origin="testcontainers",
        )


def _local_connection(start_local: bool) -> ConnectionInfo:
    """Return the local server's connection, starting it when ``start_local`` is True.

    Raises:
        Neo4jUnavailableError: it is not running and ``start_local`` is False, or it cannot start.
    """
    server = LocalNeo4jServer()
    if start_local:
        return server.start()
    if server.status().running:
        return server.connection_info()
    raise Neo4jUnavailableError(
        "No Neo4j: NEO4J_URI is not set, no Docker engine answers, and the local server is not "
        "running. Run `engrava-graph neo4j start`, or set NEO4J_URI."
    )
