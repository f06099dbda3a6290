"""The `engrava-graph` console script.

Each area is a Typer sub-app or command registered on ``app``; ``neo4j`` manages the local server.
Errors end as one line and an exit code (:mod:`engrava_graph.cli.errors`), never a traceback.
Run it as ``engrava-graph ...`` or ``python -m engrava_graph.cli ...``.
"""

from __future__ import annotations

import shlex
import time

import typer
from rich.console import Console

from engrava_graph.cli.cypher import cypher_app
from engrava_graph.cli.demo import demo
from engrava_graph.cli.dream import dream
from engrava_graph.cli.errors import GuardedTyper
from engrava_graph.cli.explore import register as register_explore_commands
from engrava_graph.cli.mcp import mcp
from engrava_graph.cli.memory import register as register_memory_commands
from engrava_graph.cli.options import Neo4jOptions, with_options
from engrava_graph.cli.serve import serve
from engrava_graph.graph.schema import MAX_VECTOR_DIMENSIONS
from engrava_graph.graph.server import LocalNeo4jServer

EXIT_NOT_RUNNING = 3

app = GuardedTyper(
    help="engrava-graph: a thought-graph memory service on Neo4j.", no_args_is_help=True
)
neo4j_app = typer.Typer(
    help="Run Neo4j Community locally, assembled from Maven Central (no Docker needed).",
    no_args_is_help=True,
)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(cypher_app, name="cypher")
app.command("dream")(with_options(dream))
register_explore_commands(app)
app.command("serve")(with_options(serve))
app.command("mcp")(with_options(mcp))
register_memory_commands(app)

console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)


def migrate(
    namespace: str = typer.Option("default", help="Namespace to register."),
    dimensions: int = typer.Option(
        384,
        min=1,
        max=MAX_VECTOR_DIMENSIONS,
        help="Vector index dimensions (all-MiniLM-L6-v2: 384).",
    ),
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Create every constraint and index (idempotent) and record the schema version."""
    import asyncio

    from engrava_graph.core import Neo4jEngravaCore

    async def run() -> int:
        info = neo4j.connection(start_local=True)
        # Entering the store checks the connection once, so an unreachable server is one error
        # line at once, not the schema read's retries logged for 15 s before it.
        async with Neo4jEngravaCore.from_uri(
            info.uri,
            auth=(info.user, info.password),
            database=info.database,
            namespace=namespace,
            vector_dimensions=dimensions,
        ) as store:
            return await store.ensure_schema()

    version = asyncio.run(run())
    console.print(
        f"[green]schema version {version}[/] is in place; namespace {namespace!r} registered"
    )


def _server() -> LocalNeo4jServer:
    """The default local instance, configured from the environment."""
    return LocalNeo4jServer()


@neo4j_app.command("start")
def neo4j_start(
    timeout: float = typer.Option(180.0, help="Seconds to wait for the server to answer."),
) -> None:
    """Start the local server (or reuse it) and print how to connect."""
    server = _server()
    began = time.monotonic()
    with err_console.status("Starting Neo4j (the first run downloads it with Maven)..."):
        info = server.start(timeout=timeout)
    status = server.status()
    console.print(f"[green]Neo4j {status.version} is running[/] (pid {status.pid})")
    console.print(f"  version  : {server.version_reason}")
    console.print(f"  bolt URI : {info.uri}")
    console.print(f"  user     : {info.user}")
    console.print(f"  password : in {server.password_file}")
    console.print(f"  browser  : {status.browser_url}")
    console.print(f"  home     : {status.home}")
    console.print(f"  ready in : {time.monotonic() - began:.1f} s")


@neo4j_app.command("stop")
def neo4j_stop(
    timeout: float = typer.Option(120.0, help="Seconds to wait after SIGTERM before SIGKILL."),
) -> None:
    """Stop the local server."""
    stopped = _server().stop(timeout=timeout)
    console.print("Neo4j stopped." if stopped else "Neo4j was not running.")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Show the local server's state; exit code 0 when running, 3 when not."""
    status = _server().status()
    if not status.running:
        console.print(f"Neo4j {status.version} is [yellow]not running[/] (home {status.home})")
        raise typer.Exit(EXIT_NOT_RUNNING)
    console.print(f"Neo4j {status.version} is [green]running[/] (pid {status.pid})")
    console.print(f"  bolt URI : {status.uri}")
    console.print(f"  browser  : {status.browser_url}")
    console.print(f"  home     : {status.home}")


@neo4j_app.command("env")
def neo4j_env() -> None:
    """Print `export NEO4J_...` lines for the running server: eval "$(engrava-graph neo4j env)"."""
    server = _server()
    if not server.status().running:
        err_console.print("Neo4j is not running: run `engrava-graph neo4j start` first.")
        raise typer.Exit(EXIT_NOT_RUNNING)
    info = server.connection_info()
    for name, value in (
        ("NEO4J_URI", info.uri),
        ("NEO4J_USER", info.user),
        ("NEO4J_PASSWORD", info.password),
    ):
        typer.echo(f"export {name}={shlex.quote(value)}")


app.command("migrate")(with_options(migrate))
app.command("demo")(demo)
