"""``engrava-graph serve``: run the REST service (``api/``) with uvicorn.

The library does not import the server package: this command loads it by name when it runs.

Configuration comes from the environment and ``.env`` (see docs/api.md). Without an API key the
command refuses to start unless ``--insecure-dev`` is given on the command line (the environment
cannot switch authentication off). A configuration problem (a variable that does not parse or
validate, no key, an embedding model that cannot be loaded, a port another process holds) is one
paragraph on stderr and exit code 2, never a traceback; the address is printed only once the
port is known to be free.
"""

from __future__ import annotations

import asyncio
import gc
import socket
from importlib import import_module
from typing import Any

import typer

from engrava_graph.cli.common import error_exit, port_refused, url
from engrava_graph.cli.options import ServerOptions
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher

GRACEFUL_SHUTDOWN_SECONDS = 10
_PING = cypher("hygiene/ping")


def check_neo4j(settings: Any) -> None:
    """Connect, authenticate and run one read in the configured database with the service's
    settings (an ``ApiSettings``), so that a wrong password, a bad URI, an unreachable server
    or a database that does not exist is the CLI's one-line error before the server starts
    (inside uvicorn's start-up it would be a traceback).

    Raises:
        neo4j.exceptions.AuthError: the credentials are refused.
        neo4j.exceptions.ClientError: the database does not exist (``DatabaseNotFound``).
        Neo4jUnavailableError: the server does not answer or cannot be found.
    """
    info = settings.connection()

    async def probe() -> None:
        executor = GraphExecutor.connect(
            info.uri,
            (info.user, info.password),
            info.database,
            connection_timeout=settings.neo4j_connection_timeout,
        )
        try:
            await executor.verify()
            await executor.read(_PING)
        finally:
            await executor.close()

    asyncio.run(probe())


def _port_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (``"Address already in use"``), or None.

    Binds the way uvicorn does (``SO_REUSEADDR``) and releases the socket at once; a process
    that takes the port in the instant between is still refused by uvicorn itself."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        socket.create_server((host, port), family=family).close()
    except OSError as error:
        return error.strerror or str(error)
    return None


def check_port(host: str, port: int) -> None:
    """Exit 2 with one line when ``host:port`` cannot be listened on.

    Raises:
        typer.Exit: the port is taken (or the address is not this machine's).
    """
    problem = _port_problem(host, port)
    if problem is not None:
        raise port_refused(host, port, problem)


FULL_COLLECTION_EVERY = 1_000
"""Collections of CPython's middle generation between two full collections when serving
(Python's default: 10)."""


def tune_gc_for_serving() -> None:
    """Tune CPython's cyclic garbage collector for the service, once its modules and app are
    loaded: freeze the heap built so far (``gc.freeze``: tens of thousands of module, class and
    model objects that live as long as the process, never scanned again), and run a full
    collection after :data:`FULL_COLLECTION_EVERY` collections of the middle generation
    instead of 10 (``gc.set_threshold``; the young generation keeps its 700).

    Measured with 8 clients on 100,000 thoughts (docs/benchmarks.md): with the defaults a full
    collection ran every 2-3 s and held the interpreter, so every request in flight, for
    105-150 ms; tuned, the longest pause was 53 ms and p99 fell by 35-53 ms, at the cost of
    cyclic garbage waiting longer (peak RSS 313 -> 381 MiB over 60 s). ``ENGRAVA_GC_TUNING=false``
    keeps Python's defaults.
    """
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def serve(*, server: ServerOptions) -> None:
    """Serve the REST API (OpenAPI at /docs) until interrupted."""
    import uvicorn

    api = import_module("api.app")
    try:
        settings = import_module("api.settings").load_settings(
            server.env_file, insecure_dev=server.insecure_dev
        )
    except ValueError as error:
        raise error_exit(str(error)) from None
    import_module("api.logs").configure_logging(settings.log_level)
    try:
        app = api.create_app(settings)
    except ValueError as error:  # no API key and no --insecure-dev
        raise error_exit(str(error)) from None
    except OSError as error:  # ENGRAVA_EMBEDDING_MODEL_PATH names no loadable model
        raise error_exit(
            f"cannot load the embedding model from ENGRAVA_EMBEDDING_MODEL_PATH="
            f"{settings.embedding_model_path!r} ({error}); point it at a local "
            f"sentence-transformers model directory, or unset it to use the bundled "
            f"all-MiniLM-L6-v2 (docs/api.md)"
        ) from None
    check_port(server.host, server.port)
    check_neo4j(settings)
    typer.echo(f"engrava-graph API on {url(server.host, server.port)} (docs at /docs)")
    if settings.gc_tuning:
        tune_gc_for_serving()
    uvicorn.run(
        app,
        host=server.host,
        port=server.port,
        access_log=False,
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        server_header=False,
    )
