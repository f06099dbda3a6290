"""``engrava-graph demo``: the main job on real data, end to end, in one command.

Finds or starts Neo4j, ingests each LoCoMo conversation into its own namespace (idempotently),
runs a dreaming pass, asks every question through ``retrieve`` and the comparison systems,
writes a report directory and prints the tables and how to explore the graph in Neo4j Browser.
Heavy imports (torch, matplotlib) happen inside the command, so other commands stay quick.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from engrava_graph.cli.common import require_extra
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.registry import cypher
from engrava_graph.model.errors import DatasetError, EngravaGraphError

if TYPE_CHECKING:
    from engrava_graph.demo.locomo import Conversation
    from engrava_graph.demo.pipeline import DemoOptions

DATASET_NAME = "locomo7.json"
_REPO = Path(__file__).resolve().parents[2]
_COMMON_QUERIES = {
    "the ten most mentioned entities and who mentions them": cypher("browser/demo_entities"),
    "the reflections dreaming wrote and their members": cypher("browser/demo_reflections"),
}
BROWSER_QUERIES = {  # by ingest mode; printed at the end, to paste into Neo4j Browser
    "turns": {
        "a session: its messages, MESSAGE_OF its conversation NOTE, in order": cypher(
            "browser/demo_conversation"
        ),
        **_COMMON_QUERIES,
    },
    "observations": {
        "a session, its turns and the observations derived from them": cypher(
            "browser/demo_session"
        ),
        **_COMMON_QUERIES,
    },
}
SESSION_EXAMPLES = {"turns": "session_1", "observations": "S1"}
"""The ``$session`` parameter of the first Browser query, by ingest mode."""

console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)


def default_dataset_candidates() -> list[Path]:
    """Where the demo looks for LoCoMo when ``--dataset`` is not given, in order: ``../shared``
    beside the current directory, beside the repository, and ``/work/shared``."""
    tail = Path("shared") / "data" / "locomo" / DATASET_NAME
    return [Path.cwd().parent / tail, _REPO.parent / tail, Path("/work") / tail]


def resolve_dataset(dataset: Path | None) -> Path:
    """``dataset`` when given (it must exist), else the first default candidate that exists.

    Raises:
        DatasetError: the file is missing; the message says where to get LoCoMo.
    """
    from engrava_graph.demo.locomo import WHERE_TO_GET

    if dataset is not None:
        if not dataset.is_file():
            raise DatasetError(f"{dataset} does not exist. {WHERE_TO_GET}")
        return dataset
    candidates = default_dataset_candidates()
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    raise DatasetError(
        "No --dataset given and no LoCoMo file at "
        + ", ".join(map(str, candidates))
        + ". "
        + WHERE_TO_GET
        + " Then run: engrava-graph demo --dataset path/to/locomo10.json"
    )


def _browser_lines(info: ConnectionInfo, namespaces: list[str], mode: str) -> list[str]:
    """How to open the graph in Neo4j Browser, with queries to paste (``mode``: the ingest
    mode, ``"turns"`` or ``"observations"``)."""
    from urllib.parse import urlparse

    from engrava_graph.graph.server import LocalNeo4jServer

    try:
        server: LocalNeo4jServer | None = LocalNeo4jServer()
    except EngravaGraphError:  # a bad local-server setting: only the generic hint is possible
        server = None
    status = server.status() if server is not None else None
    # the local server, found by the resolution order or named by NEO4J_URI (as `make demo` does)
    if (
        server is not None
        and status is not None
        and status.running
        and (info.origin == "local" or status.uri == info.uri)
    ):
        url = status.browser_url
        password = f"the contents of {server.password_file} (`engrava-graph neo4j env` prints it)"
    else:
        url = f"http://{urlparse(info.uri).hostname}:7474/browser/ (the server's HTTP port)"
        password = "$NEO4J_PASSWORD" if info.origin == "env" else info.password
    lines = [f"Open {url} and connect to {info.uri} as user {info.user!r}, password: {password}."]
    if info.origin == "testcontainers":
        lines.append("This Neo4j is a throw-away container that stops when this command exits.")
    example = namespaces[0] if namespaces else "conv-26"
    lines += [
        "Each conversation is its own namespace: " + ", ".join(namespaces) + ".",
        "Set the parameters in Browser, then paste a query:",
        f"  :param namespace => '{example}'",
        f"  :param session => '{SESSION_EXAMPLES[mode]}'",
    ]
    for about, statement in BROWSER_QUERIES[mode].items():
        body = [ln for ln in statement.text.splitlines() if not ln.startswith("//")]
        lines += ["", f"  // {about}"] + [f"  {ln}" for ln in body]
    return lines


def _quiet_libraries() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import logging
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    logging.getLogger("engrava").setLevel(logging.ERROR)  # the peer's notes on FTS fallbacks


async def _run(
    info: ConnectionInfo, options: DemoOptions, conversations: list[Conversation]
) -> dict[str, Any]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from engrava_graph.core import Neo4jEngravaCore
    from engrava_graph.demo.pipeline import run_demo
    from engrava_graph.embeddings import SentenceTransformerProvider

    base = Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        embedding_provider=SentenceTransformerProvider(),
    )
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    try:
        with Progress(*columns, console=console) as progress:
            return await run_demo(base, options, progress, conversations=conversations)
    finally:
        await base.close()


def demo(
    dataset: Annotated[
        Path | None,
        typer.Option(
            "--dataset",
            help="The LoCoMo JSON file (default: ../shared/data/locomo/locomo7.json "
            "when it is there). LoCoMo: data/locomo10.json of the snap-research/LoCoMo "
            "repository.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Report directory (default: reports/<UTC timestamp>)."),
    ] = None,
    conversations: Annotated[
        str | None,
        typer.Option(
            "--conversations",
            help="Comma-separated sample ids to run, e.g. conv-26,conv-30 (default: all).",
        ),
    ] = None,
    skip_peer: Annotated[
        bool, typer.Option("--skip-peer", help="Leave out the peer package engrava.")
    ] = False,
    top_k: Annotated[
        int, typer.Option("--top-k", min=10, max=100, help="Results per question.")
    ] = 10,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="Delete each conversation's namespace and ingest again, even when it "
            "matches the data set.",
        ),
    ] = False,
    observations: Annotated[
        bool,
        typer.Option(
            "--observations",
            help="Store turns, session notes and LoCoMo's LLM-written "
            "observations (bulk_store) instead of each turn once as a conversation message "
            "(add_messages, the default).",
        ),
    ] = False,
) -> None:
    """Memory of long conversations, end to end, on LoCoMo.

    LoCoMo goes into Neo4j, dreaming consolidates it, and retrieval is scored against the peer
    engrava and vector search; the result is a report directory and the graph to explore."""
    require_extra("demo", "engrava-graph demo")
    _quiet_libraries()
    from engrava_graph.demo.ingest import IngestMode
    from engrava_graph.demo.pipeline import DemoOptions, load_selected
    from engrava_graph.demo.report import (
        block_sections,
        latency_table,
        rich_table,
        routing_lines,
        score_table,
        write_report,
    )
    from engrava_graph.graph.connection import resolve_connection

    started = datetime.now(UTC)
    directory = out or Path("reports") / started.strftime("%Y%m%d-%H%M%S")
    wanted = tuple(c.strip() for c in (conversations or "").split(",") if c.strip())
    if conversations is not None and not wanted:
        err_console.print(
            "[bold red]error:[/] --conversations names no sample id; give e.g. "
            "--conversations conv-26,conv-30, or leave it out to run all"
        )
        raise typer.Exit(2)
    try:
        directory.mkdir(parents=True, exist_ok=True)  # before the work, not after it
        if not os.access(directory, os.W_OK):
            raise PermissionError(f"{directory} is not writable")
    except OSError as error:
        err_console.print(
            f"[bold red]error:[/] cannot write the report to {directory}: {error}; "
            f"choose another --out",
            highlight=False,
        )
        raise typer.Exit(2) from error
    try:
        options = DemoOptions(
            dataset=resolve_dataset(dataset),
            top_k=top_k,
            peer=not skip_peer,
            fresh=fresh,
            conversations=wanted,
            fusion=True,
            routing=True,
            mode=IngestMode.OBSERVATIONS if observations else IngestMode.TURNS,
        )
        selected = load_selected(options)
        console.print(
            f"Data set: {options.dataset} (conversations: "
            f"{', '.join(c.sample_id for c in selected)})"
        )
        with console.status("Finding Neo4j (starting the local server if needed)..."):
            info = resolve_connection()
        console.print(f"Neo4j: {info.uri} ({info.origin})")
        figures = asyncio.run(_run(info, options, selected))
    except EngravaGraphError as error:
        err_console.print(f"[bold red]error:[/] {error}", highlight=False)
        raise typer.Exit(1) from error
    files = write_report(directory, figures)
    console.print(
        rich_table("Evidence recall and session hits", *score_table(figures), grouped=True)
    )
    console.print(rich_table("Latency per call", *latency_table(figures)))
    for line in routing_lines(figures):
        console.print(line, highlight=False, markup=False)
    for block, block_figures in block_sections(figures):
        console.print(
            rich_table(
                f"{block} block: evidence recall and session hits",
                *score_table(block_figures),
                grouped=True,
            )
        )
        console.print(rich_table(f"{block} block: latency per call", *latency_table(block_figures)))
        for line in routing_lines(block_figures):
            console.print(f"{block} block: {line}", highlight=False, markup=False)
    console.print(f"Wall time: {figures['meta']['wall_seconds']} s")
    plots = [p.name for p in (files.recall_plot, files.latency_plot, files.reliability_plot) if p]
    console.print(
        f"Report: {files.directory.resolve()} (figures.json, summary.md, {', '.join(plots)})"
    )
    namespaces = [r["namespace"] for r in figures["ingest"]]
    for line in _browser_lines(info, namespaces, options.mode.value):
        console.print(line, highlight=False, markup=False)
