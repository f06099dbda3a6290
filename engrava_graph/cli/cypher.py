"""``engrava-graph cypher``: read the statements and see what one retrieve asks of Neo4j.

* ``list``: every statement and fragment under ``cypher/`` with the first line of its header;
* ``show NAME``: a statement's header and its Cypher with the fragments expanded (identifier slots
  other than ``{{ALL_EDGE_TYPES}}`` stay as ``{{slot}}``: code fills them from enums);
* ``profile "QUESTION"``: one real retrieve with every read under ``PROFILE``; db hits, rows and
  time per statement, and with ``--browser`` each statement with a ``:params`` block to paste
  into Neo4j Browser.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from engrava_graph.cli.common import EXIT_USAGE, err_console
from engrava_graph.cli.options import Neo4jOptions, TopK, with_options
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.headers import body, header
from engrava_graph.graph.profiling import ProfiledRun, ProfilingExecutor, browser_params
from engrava_graph.graph.registry import CypherRegistryError, cypher_root
from engrava_graph.model.enums import EdgeType
from engrava_graph.model.errors import NamespaceNotFoundError
from engrava_graph.model.namespace import DEFAULT_NAMESPACE

cypher_app = typer.Typer(
    help="Read the Cypher statements and profile what a retrieve runs.", no_args_is_help=True
)
console = Console(soft_wrap=True)


def all_names() -> list[str]:
    """Every file under ``cypher/`` as a registry name, fragments (``_name``) included."""
    root = cypher_root()
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher"))


@cypher_app.command("list")
def list_command() -> None:
    """List every statement and fragment with what it does."""
    table = Table("name", "what it does", box=None)
    for name in all_names():
        lines = header(name).lines
        table.add_row(name, lines[0] if lines else "")
    console.print(table)


@cypher_app.command("show")
def show(
    name: Annotated[
        str, typer.Argument(help="A name from `cypher list`, e.g. retrieval/activate_index.")
    ],
) -> None:
    """Print a statement's header and its Cypher with the fragments expanded."""
    try:
        head = header(name)
        text = body(name)
    except CypherRegistryError as error:
        err_console.print(
            f"[bold red]error:[/] {error}; `engrava-graph cypher list` names them", highlight=False
        )
        raise typer.Exit(EXIT_USAGE) from error
    text = text.replace("{{ALL_EDGE_TYPES}}", "|".join(t.value for t in EdgeType))
    for line in head.lines:
        console.print(f"// {line}", highlight=False, markup=False)
    console.print(text, highlight=False, markup=False)


async def _profile(
    info: ConnectionInfo, question: str, namespace: str, top_k: int
) -> list[ProfiledRun]:
    from engrava_graph.core import Neo4jEngravaCore
    from engrava_graph.embeddings import SentenceTransformerProvider

    executor = ProfilingExecutor.connect(info.uri, (info.user, info.password), info.database)
    assert isinstance(executor, ProfilingExecutor)
    store = Neo4jEngravaCore(
        executor, namespace=namespace, embedding_provider=SentenceTransformerProvider()
    )
    async with store:
        if not await store.namespace_exists():
            raise NamespaceNotFoundError(namespace)
        await store.embed_query(question)  # load the model before the profiled run
        executor.profiled.clear()
        await store.retrieve(question, top_k=top_k, now=datetime.now(UTC))
        return list(executor.profiled)


def print_profile(runs: list[ProfiledRun], *, browser: bool) -> None:
    """A table of db hits, rows and time per statement, and with ``browser`` each statement as
    a ``:params`` block and ``PROFILE`` statement to paste into Neo4j Browser."""
    table = Table("#", "statement", "db hits", "rows", "server ms", "wall ms")
    for i, run in enumerate(runs, start=1):
        table.add_row(
            str(i),
            run.name,
            f"{run.db_hits:,}",
            str(run.rows),
            f"{run.server_ms:.0f}",
            f"{run.wall_ms:.1f}",
        )
    table.add_row(
        "",
        "total",
        f"{sum(r.db_hits for r in runs):,}",
        str(sum(r.rows for r in runs)),
        f"{sum(r.server_ms for r in runs):.0f}",
        f"{sum(r.wall_ms for r in runs):.1f}",
        style="bold",
    )
    console.print(table)
    if browser:
        for i, run in enumerate(runs, start=1):
            console.print(f"\n// #{i} {run.name}", highlight=False, markup=False)
            console.print(browser_params(run.params), highlight=False, markup=False)
            console.print(f"PROFILE {run.text};", highlight=False, markup=False)


def profile(
    question: Annotated[str, typer.Argument(help="The question to retrieve memories for.")],
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="The memory (namespace) to search.")
    ] = DEFAULT_NAMESPACE,
    top_k: TopK = 10,
    browser: Annotated[
        bool,
        typer.Option(
            help="Also print each statement with a :params block, to paste into Neo4j Browser."
        ),
    ] = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Run one retrieve with every read under PROFILE: db hits, rows and time per statement."""
    runs = asyncio.run(_profile(neo4j.connection(), question, namespace, top_k))
    print_profile(runs, browser=browser)


cypher_app.command("profile")(with_options(profile))
