"""Console commands to look at a memory: ``explain`` (table or interactive HTML graph),
``browser-guide`` (serve the Neo4j Browser style and guide) and ``import-engrava`` (bring a
memory over from the peer package's SQLite file). :func:`register` adds them to the
``engrava-graph`` app, whose error boundary (:mod:`engrava_graph.cli.errors`) turns a failure
into one line and an exit code."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engrava_graph.browser_assets import DEFAULT_PORT, asset_server, browser_commands
from engrava_graph.cli.common import error_exit, port_refused, request_clock, require_extra
from engrava_graph.cli.json_input import open_output
from engrava_graph.cli.memory import SpreadDepth, default_embedding_provider, run
from engrava_graph.cli.options import Neo4jOptions, Port, TopK, with_options
from engrava_graph.cli.text import counted, shown
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.migrate_engrava import ImportReport, import_snapshot, read_engrava
from engrava_graph.model.errors import NamespaceNotFoundError
from engrava_graph.model.namespace import DEFAULT_NAMESPACE
from engrava_graph.retrieval.results import CandidateTrace, Explanation
from engrava_graph.retrieval.subgraph import load_subgraph
from engrava_graph.retrieval.visual import render_explanation_html

console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

EXIT_COUNT_MISMATCH = 3
"""``import-engrava``'s exit code when the count check fails: not a usage error (2: a missing or
unreadable file, a bad option) nor another failure (1), so a script can tell them apart."""


@asynccontextmanager
async def _store(
    info: ConnectionInfo, namespace: str, **options: Any
) -> AsyncIterator[Neo4jEngravaCore]:
    """A store on ``info``'s Neo4j."""
    store = Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        namespace=namespace,
        **options,
    )
    async with store:
        yield store


async def _explain(
    info: ConnectionInfo, query: str, namespace: str, html: Path | None, params: dict[str, Any]
) -> Explanation:
    async with _store(info, namespace, embedding_provider=default_embedding_provider()) as store:
        if not await store.namespace_exists():
            raise NamespaceNotFoundError(namespace)
        await store.embed_query(query)  # load the model first, so "encode" times the query alone
        explanation = await store.explain(query, level="debug", **params)
        if html is not None:
            subgraph = await load_subgraph(store, explanation)
            with open_output(html, "--html") as sink:
                sink.write(render_explanation_html(explanation, subgraph))
        return explanation


def ranked_candidates(ex: Explanation) -> list[tuple[int | None, CandidateTrace]]:
    """``ex``'s candidates in the order the table lists them, each with its rank among the
    results (``#``): the returned ones first, in result order (confidence, the score retrieval
    ranks by), then the dropped ones (rank None) in the cycle's order (composite score)."""
    ranks = {r.thought_id: i for i, r in enumerate(ex.results, start=1)}
    unranked = len(ranks) + 1
    traces = sorted(ex.candidates or [], key=lambda c: ranks.get(c.thought_id, unranked))
    return [(ranks.get(c.thought_id), c) for c in traces]


def _print_explanation(ex: Explanation, rows: int) -> None:
    scores = ex.pathway_scores
    console.print(shown(ex.query), style="bold", markup=False, highlight=False)
    console.print(
        f"intent {ex.intent.value} · pathway {ex.pathway_selected.value} (exact "
        f"{scores.exact:.2f}, energy {scores.energy:.2f}, attention "
        f"{scores.attention:.2f}) · entities {ex.entities or '-'}"
    )
    console.print(
        f"candidates {ex.candidates_activated} activated → "
        f"{ex.candidates_after_spread} after spread → {ex.candidates_final} returned"
    )
    console.print("phases (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in ex.phase_timings.items()))
    for phase, why in ex.skipped_phases.items():
        console.print(f"skipped {phase}: {why}", style="dim")
    table = Table()
    table.add_column("#", justify="right")
    table.add_column("thought", min_width=24, ratio=3)
    table.add_column("via", min_width=10)
    for column in ("sim", "score", "conf"):
        table.add_column(column, justify="right")
    table.add_column("dropped", ratio=1)
    candidates = ranked_candidates(ex)
    for rank, c in candidates[: rows or None]:
        reached = c.reached_by if c.reached_by == "activation" else f"{c.reached_by} ({c.hops})"
        dropped = "" if c.dropped_in is None else f"{c.dropped_in}: {c.reason}"
        table.add_row(
            "" if rank is None else str(rank),
            Text(shown(c.text)),
            reached,
            f"{c.similarity:.3f}",
            f"{c.composite:.3f}",
            f"{c.confidence:.3f}",
            Text(shown(dropped)),
        )
    console.print(table)
    if rows and len(candidates) > rows:
        console.print(
            f"{len(candidates) - rows} more candidate(s): --rows 0 lists them all", style="dim"
        )


def explain(
    query: Annotated[str, typer.Argument(help="The question to retrieve memories for.")],
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="The memory (namespace) to search.")
    ] = DEFAULT_NAMESPACE,
    html: Annotated[
        Path | None, typer.Option(help="Write an interactive graph of the run to this file.")
    ] = None,
    now: Annotated[
        str | None,
        typer.Option(
            help="The request's clock, ISO 8601 (default: now, UTC); resolves 'last Tuesday'."
        ),
    ] = None,
    top_k: TopK = 10,
    pathway: Annotated[str, typer.Option(help="auto, exact, energy or attention.")] = "auto",
    rows: Annotated[int, typer.Option(min=0, help="Candidates listed, best first (0 = all).")] = 20,
    spread_depth: SpreadDepth = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the whole explanation as JSON on stdout (every candidate)."
        ),
    ] = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Run the retrieval cycle for QUERY and show how it decided, step by step."""
    if html is not None:
        require_extra("viz", "explain --html")
    params = {
        "now": request_clock(now),
        "top_k": top_k,
        "pathway": pathway,
        "spread_depth": spread_depth,
    }
    explanation = run(_explain(neo4j.connection(), query, namespace, html, params))
    if as_json:
        typer.echo(explanation.model_dump_json())
    else:
        _print_explanation(explanation, rows)
    if html is not None:  # on stderr with --json, so stdout stays one JSON document
        (err_console if as_json else console).print(
            f"graph written to {html} (open it in a browser)"
        )


def browser_guide(port: Port = DEFAULT_PORT) -> None:
    """Serve the Neo4j Browser style (GraSS) and guide on 127.0.0.1 until Ctrl-C."""
    host = "127.0.0.1"
    try:
        server = asset_server(host, port)
    except OSError as error:  # the port is taken: the call must choose another (exit 2)
        raise port_refused(host, port, error.strerror or str(error)) from None
    commands = browser_commands(server.server_address[1])
    console.print("In Neo4j Browser (`engrava-graph neo4j status` prints its URL), run:")
    console.print(f"  {commands['style']}", highlight=False)
    console.print(f"  {commands['guide']}", highlight=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _print_report(report: ImportReport) -> None:
    table = Table(title=f"engrava -> namespace {report.namespace}")
    for column in ("", "expected", "written", "updated", "already there", "found"):
        table.add_column(column, justify="left" if not column else "right")
    for name in ("thoughts", "embeddings", "edges"):
        table.add_row(
            name,
            *(
                str(getattr(c, name))
                for c in (
                    report.expected,
                    report.written,
                    report.updated,
                    report.skipped,
                    report.found,
                )
            ),
        )
    console.print(table)
    if report.embedding_model:
        console.print(f"embeddings: {report.embedding_model}")
    for name, count in report.dropped.items():
        console.print(f"not carried over: {name} on {counted(count, 'thought')}", style="yellow")


async def _import(
    info: ConnectionInfo, path: Path, namespace: str, re_embed: bool, chunk_size: int
) -> ImportReport:
    snapshot = await read_engrava(path)
    options: dict[str, Any] = {"vector_dimensions": snapshot.dimensions or 384}
    if re_embed:
        options = {"embedding_provider": default_embedding_provider()}
    async with _store(info, namespace, **options) as store:
        await store.ensure_schema()
        return await import_snapshot(store, snapshot, re_embed=re_embed, chunk_size=chunk_size)


def import_engrava(
    path: Annotated[
        Path,
        typer.Argument(
            help="The engrava SQLite file (.db).", exists=True, dir_okay=False, readable=True
        ),
    ],
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="The namespace to import into.")
    ] = DEFAULT_NAMESPACE,
    re_embed: Annotated[
        bool,
        typer.Option(
            help="Embed with all-MiniLM-L6-v2 instead of copying the file's vectors (when the file "
            "was embedded with another model); thoughts imported before get new vectors too."
        ),
    ] = False,
    chunk_size: Annotated[int, typer.Option(min=1, help="Records per write transaction.")] = 500,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Copy thoughts, edges and embeddings from an engrava SQLite file into Neo4j.

    At the end the counts are checked: exit code 3 when Neo4j does not hold what the file holds
    (2 for a missing or unreadable file, 1 for other failures).
    """
    require_extra("peer", "engrava-graph import-engrava")
    report = run(_import(neo4j.connection(), path, namespace, re_embed, chunk_size))
    _print_report(report)
    check_counts(report)


def check_counts(report: ImportReport) -> None:
    """Print that the count check passed, or fail the command with its own exit code.

    Raises:
        typer.Exit: :data:`EXIT_COUNT_MISMATCH` (3) after one ``error:`` line on stderr when
            Neo4j does not hold what the file holds (:attr:`ImportReport.ok` is false).
    """
    if not report.ok:
        raise error_exit(
            "count check failed: Neo4j does not hold what the file holds; run the import "
            "again to finish it",
            EXIT_COUNT_MISMATCH,
        )
    console.print("[green]count check passed[/]")


def register(app: typer.Typer) -> None:
    """Add ``explain``, ``browser-guide`` and ``import-engrava`` to ``app``."""
    app.command("explain")(with_options(explain))
    app.command("browser-guide")(browser_guide)
    app.command("import-engrava")(with_options(import_engrava))
