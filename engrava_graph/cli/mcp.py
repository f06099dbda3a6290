"""``engrava-graph mcp``: serve the memory to MCP clients over stdio or streamable HTTP.

Configuration is the REST service's (environment and ``.env``: ``NEO4J_*``, ``ENGRAVA_EMBEDDER``,
``ENGRAVA_API_KEYS``; see docs/api.md). Over stdio nothing but the protocol goes to stdout;
messages go to stderr. A configuration problem is one line and exit code 2; Neo4j not answering
is one line and exit code 1.
"""

from __future__ import annotations

import asyncio
from enum import StrEnum
from importlib import import_module
from pathlib import Path
from typing import Annotated

import typer

from engrava_graph.cli.serve import check_neo4j, check_port
from engrava_graph.model.errors import EngravaGraphError
from engrava_graph.model.namespace import DEFAULT_NAMESPACE

CONFIG_ERROR_EXIT = 2


class Transport(StrEnum):
    """How the client talks to the server."""

    STDIO = "stdio"
    HTTP = "http"


def _exit(message: str, code: int) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def mcp(
    transport: Annotated[
        Transport,
        typer.Option(
            help="stdio (a client starts this command) or http (streamable HTTP at /mcp)."
        ),
    ] = Transport.STDIO,
    namespace: Annotated[
        str,
        typer.Option("--namespace", "-n", help="The memory a tool call uses when it names none."),
    ] = DEFAULT_NAMESPACE,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only", help="Offer only the tools that read (no store, link, delete, dream)."
        ),
    ] = False,
    host: Annotated[str, typer.Option(help="http: the interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="http: the TCP port.")] = 8765,
    env_file: Annotated[
        Path, typer.Option(help="Settings file, read after the environment.")
    ] = Path(".env"),
    insecure_dev: Annotated[
        bool,
        typer.Option(
            "--insecure-dev", help="http: serve WITHOUT API keys (a development machine only)."
        ),
    ] = False,
) -> None:
    """Serve the memory's tools to MCP clients (Claude Desktop, Claude Code, Cursor, ...)."""
    try:
        server = import_module("api.mcp")  # the library does not import the server package
    except ImportError as error:
        raise _exit(
            f"the MCP server needs the `mcp` extra: pip install 'engrava-graph[mcp]' ({error})",
            CONFIG_ERROR_EXIT,
        ) from None
    try:
        settings = import_module("api.settings").load_settings(env_file, insecure_dev=insecure_dev)
    except ValueError as error:
        raise _exit(str(error), CONFIG_ERROR_EXIT) from None
    try:
        if transport is Transport.STDIO:
            asyncio.run(server.run_stdio(settings, namespace=namespace, read_only=read_only))
            return
        import uvicorn

        app = server.http_app(settings, namespace=namespace, read_only=read_only, host=host)
    except EngravaGraphError as error:
        raise _exit(str(error), 1) from None
    except ValueError as error:  # no API key and no --insecure-dev, a bad namespace
        raise _exit(str(error), CONFIG_ERROR_EXIT) from None
    check_port(host, port)
    check_neo4j(settings)
    typer.echo(
        f"engrava-graph MCP on http://{host}:{port}/mcp (ready once the model is loaded)", err=True
    )
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)
