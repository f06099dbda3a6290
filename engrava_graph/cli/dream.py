"""``engrava-graph dream``: one consolidation pass as a batch job.

Shows progress (a bar on a terminal, plain lines otherwise) and prints a summary. A failure is
one line from the app's error boundary (:mod:`engrava_graph.cli.errors`): exit 2 for an invalid
argument or connection setting (credentials, URI, database) or a namespace that does not exist,
1 when Neo4j cannot be reached.
The connection comes from ``--uri`` / ``NEO4J_URI`` (with ``NEO4J_USER`` / ``NEO4J_PASSWORD`` /
``NEO4J_DATABASE``), else from a running local server (``engrava-graph neo4j start``); the
command never starts one.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from engrava_graph.cli.options import Neo4jOptions
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.dreaming.consolidate import DreamResult
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.model.bounds import INT64_MAX
from engrava_graph.model.errors import (
    NamespaceNotFoundError,
    ValidationFailedError,
    validation_message,
)

console = Console(soft_wrap=True)
#: The option that sets each config field (an error names what the user typed).
FLAGS = {
    "similarity_threshold": "--threshold",
    "neighbours_k": "--neighbours",
    "schedule_every_n_cycles": "--every",
    "neighbour_strategy": "--strategy",
    "min_age_cycles": "--min-age",
    "min_cluster_size": "--min-size",
    "max_cluster_size": "--max-size",
}
_FIELD_RE = re.compile(r"\b(" + "|".join(FLAGS) + r")\b")
_PLAIN_STEP = 0.1  # plain-line progress every 10 %


class _Reporter:
    """Progress as a rich bar on a terminal, else a plain line per 10 % of each phase."""

    def __init__(self, live: Progress | None) -> None:
        self._live = live
        self._tasks: dict[str, Any] = {}
        self._printed: dict[str, float] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self._live is not None:
            if phase not in self._tasks:
                self._tasks[phase] = self._live.add_task(phase, total=total)
            self._live.update(self._tasks[phase], completed=done)
            return
        share = done / total if total else 1.0
        if share >= self._printed.get(phase, -1.0) + _PLAIN_STEP or done == total:
            self._printed[phase] = share
            console.print(f"{phase}: {done}/{total}", highlight=False)


def _summary(namespace: str, result: DreamResult) -> None:
    if not result.due:
        console.print(
            f"Cycle {result.current_cycle} is not a scheduled dreaming cycle; nothing ran."
        )
        return
    table = Table(
        title=f"Dreaming pass over {namespace!r} at cycle {result.current_cycle}", show_header=False
    )
    for label, value in (
        ("candidates", result.candidates_evaluated),
        ("clusters", result.clusters_found),
        ("clusters too large", result.clusters_rejected),
        ("reflections created", result.reflections_created),
        ("reflections already there", result.reflections_existing),
        ("clusters already consolidated", result.clusters_covered),
        ("edges created", result.edges_created),
        ("reflections retired", result.orphans_retired),
        ("neighbours", result.strategy),
        ("seconds", f"{result.seconds:.1f}"),
        ("run", f"{result.run_id}{' (resumed)' if result.resumed else ''}"),
    ):
        table.add_row(label, str(value))
    console.print(table)


def options_config(settings: dict[str, Any]) -> DreamingConfig:
    """The :class:`DreamingConfig` of the command's options (``settings``: its fields, as
    :func:`dream` fills them).

    Raises:
        ValidationFailedError: a value the config refuses, named by the option the user typed,
            not by its config field: in ``errors`` (``loc`` ``("--neighbours",)``, shown as
            ``invalid --neighbours: Input should be less than or equal to 1000``), or in the
            message of a check between options (``--max-size (4) must be >= --min-size (9)``).
    """
    try:
        return DreamingConfig.model_validate(settings)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        message = _FIELD_RE.sub(lambda m: FLAGS[m.group(0)], validation_message(first))
        named = [FLAGS[str(part)] for part in first["loc"] if str(part) in FLAGS]
        if not named:  # a check between options: its message names them
            raise ValidationFailedError(message) from None
        # the CLI's error line renders the entry: "invalid --neighbours: ..."
        raise ValidationFailedError(
            message, errors=[{"loc": (named[0],), "msg": message}]
        ) from None


async def _dream(
    info: ConnectionInfo, namespace: str, cycle: int, config: DreamingConfig
) -> tuple[DreamResult, str]:
    store = Neo4jEngravaCore.from_uri(
        info.uri, auth=(info.user, info.password), database=info.database, namespace=namespace
    )
    try:
        await store.executor.verify()
        if not await store.namespace_exists():  # dreaming would register it as a side effect
            raise NamespaceNotFoundError(namespace)
        if console.is_terminal:
            with Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as live:
                return await store.consolidate(
                    cycle, config=config, progress=_Reporter(live)
                ), store.namespace
        return await store.consolidate(
            cycle, config=config, progress=_Reporter(None)
        ), store.namespace
    finally:
        await store.executor.close()


def dream(
    namespace: str = typer.Option(..., "--namespace", "-n", help="The namespace to consolidate."),
    cycle: int = typer.Option(
        ...,
        "--cycle",
        "-c",
        min=0,
        max=INT64_MAX,  # the library's bounds, refused by Click in the option's name
        help="The current cognitive cycle (age gates are in cycles).",
    ),
    threshold: float = typer.Option(
        0.7, min=0.0, max=1.0, help="Cosine similarity two thoughts need to be linked."
    ),
    neighbours: int = typer.Option(10, min=1, help="Nearest neighbours examined per thought."),
    min_age: int = typer.Option(1, min=0, help="Cycles a thought must have existed."),
    min_size: int = typer.Option(3, min=2, help="Smallest cluster that makes a reflection."),
    max_size: int = typer.Option(200, min=2, help="Largest cluster that makes a reflection."),
    every: int = typer.Option(1, min=1, help="Run only at cycles that are multiples of this."),
    strategy: str = typer.Option(
        "auto",
        help="Neighbour search: auto (by pool size), exact (Cypher), stream (exact, "
        "NumPy over the vectors read from Neo4j), ivf (inverted-file index in "
        "NumPy, approximate) or index (HNSW, one query per thought).",
    ),
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Consolidate a namespace's observations into reflections (one dreaming pass)."""
    config = options_config(
        {
            "similarity_threshold": threshold,
            "neighbours_k": neighbours,
            "schedule_every_n_cycles": every,
            "neighbour_strategy": strategy,
            "gates": {
                "min_age_cycles": min_age,
                "min_cluster_size": min_size,
                "max_cluster_size": max_size,
            },
        }
    )
    result, name = asyncio.run(_dream(neo4j.connection(), namespace, cycle, config))
    _summary(name, result)
