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
from typing import Annotated

import typer

from engrava_graph.cli.common import error_exit, url
from engrava_graph.cli.options import McpServerOptions
from engrava_graph.cli.serve import check_neo4j, check_port
from engrava_graph.model.namespace import DEFAULT_NAMESPACE


class Transport(StrEnum):
    """How the client talks to the server."""

    STDIO = "stdio"
    HTTP = "http"


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
    *,
    server: McpServerOptions,
) -> None:
    """Serve the memory's tools to MCP clients (Claude Desktop, Claude Code, Cursor, ...)."""
    try:
        mcp_server = import_module("api.mcp")  # the library does not import the server package
    except ImportError as error:
        raise error_exit(
            f"the MCP server needs the `mcp` extra: pip install 'engrava-graph[mcp]' ({error})",
        ) from None
    try:
        settings = import_module("api.settings").load_settings(
            server.env_file, insecure_dev=server.insecure_dev
        )
    except ValueError as error:
        raise error_exit(str(error)) from None
    try:
        if transport is Transport.STDIO:
            asyncio.run(mcp_server.run_stdio(settings, namespace=namespace, read_only=read_only))
            return
        import uvicorn

        app = mcp_server.http_app(
            settings, namespace=namespace, read_only=read_only, host=server.host
        )
    except ValueError as error:  # no API key and no --insecure-dev, a bad namespace
        raise error_exit(str(error)) from None
    check_port(server.host, server.port)
    check_neo4j(settings)
    typer.echo(
        f"engrava-graph MCP on {url(server.host, server.port)}/mcp (ready once the model is "
        f"loaded)",
        err=True,
    )
    uvicorn.run(app, host=server.host, port=server.port, log_level="warning", server_header=False)
