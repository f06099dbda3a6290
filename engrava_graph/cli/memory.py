"""Console commands for daily work with a memory: ``remember``, ``add-messages``, ``retrieve``,
``link``, ``list``, ``namespaces``, ``delete-namespace``, ``export`` and ``import``.

Every command takes the connection flags (:class:`~engrava_graph.cli.options.Neo4jOptions`:
``--uri``, ``--user``, ``--password``, ``--database``; default the ``NEO4J_*`` variables, else
a running local server) and ``--json``
(machine-readable output on stdout). Errors are one line on stderr, as for every command
(:mod:`engrava_graph.cli.errors`): exit code 2 when the call must change (a wrong password, bad
input, a namespace that does not exist), 1 otherwise (Neo4j unreachable).

``export`` writes a namespace as JSON lines and ``import`` reads that back into a namespace that
holds no thoughts yet; the file, its checks and the loading are
:mod:`engrava_graph.cli.namespace_file`'s.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.cells import cell_len, set_cell_size
from rich.console import Console

from engrava_graph.cli.common import error_exit, request_clock
from engrava_graph.cli.json_input import (
    is_stdout,
    open_output,
    read_conversation,
    written_in_place,
)
from engrava_graph.cli.namespace_file import (
    invalid_thoughts,
    load_export,
    read_export_file,
    write_export,
)
from engrava_graph.cli.options import Neo4jOptions, TopK, with_options
from engrava_graph.cli.text import counted, shown
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.registry import cypher
from engrava_graph.integrations.messages import added_messages
from engrava_graph.integrations.prompt import format_for_prompt
from engrava_graph.model.enums import EdgeDirection, EdgeType, ThoughtType
from engrava_graph.model.errors import (
    DuplicateEdgeError,
    InvalidStoredRecordError,
    NamespaceNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.namespace import DEFAULT_NAMESPACE, validate_namespace
from engrava_graph.model.records import EdgeRecord, ThoughtRecord
from engrava_graph.store.listing import ThoughtListing

_LIST_NAMESPACES = cypher("namespaces/list")

console = Console(soft_wrap=True)
T = TypeVar("T")

Namespace = Annotated[str, typer.Option("--namespace", "-n", help="The memory (namespace).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]
SpreadDepth = Annotated[
    int | None,
    typer.Option(
        min=0,
        max=3,
        help="Links spreading follows from the matched memories, 0-3 (0: none; default: 2).",
    ),
]


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work``; a failure reaches the command line's one error boundary
    (:mod:`engrava_graph.cli.errors`: one line, exit code 1 or 2)."""
    return asyncio.run(work)


def default_embedding_provider() -> Any:
    """The bundled sentence-transformers provider (imported only when a command embeds; it
    loads without a progress bar)."""
    from engrava_graph.embeddings import SentenceTransformerProvider

    return SentenceTransformerProvider()


@asynccontextmanager
async def open_store(
    info: ConnectionInfo, namespace: str, *, embed: bool = False, must_exist: bool = True
) -> AsyncIterator[Neo4jEngravaCore]:
    """A store on ``namespace`` (with the embedding model when ``embed``).

    Raises:
        NamespaceNotFoundError: ``must_exist`` and the namespace is not registered.
    """
    options: dict[str, Any] = {"embedding_provider": default_embedding_provider()} if embed else {}
    async with Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        namespace=namespace,
        **options,
    ) as store:
        if must_exist and not await store.namespace_exists():
            raise NamespaceNotFoundError(namespace)
        yield store


def _print_json(value: Any) -> None:
    typer.echo(json.dumps(value, default=str, ensure_ascii=False))


def _report(as_json: bool, value: Any, text: str) -> None:
    """``value`` as JSON on stdout with ``--json``, else ``text`` for a person."""
    if as_json:
        _print_json(value)
    else:
        console.print(shown(text), markup=False, highlight=False)


def _dump(record: ThoughtRecord | EdgeRecord) -> dict[str, Any]:
    return record.model_dump(mode="json")


def remember(
    text: Annotated[str, typer.Argument(help="What to remember.")],
    namespace: Namespace = DEFAULT_NAMESPACE,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Store TEXT as a note (the namespace is created on its first thought)."""

    async def work() -> ThoughtRecord:
        async with open_store(neo4j.connection(), namespace, embed=True, must_exist=False) as store:
            return await store.remember(text, source="cli")

    stored = run(work())
    _report(as_json, _dump(stored), f"remembered {stored.thought_id}")


def retrieve(
    query: Annotated[str, typer.Argument(help="The question.")],
    namespace: Namespace = DEFAULT_NAMESPACE,
    top_k: TopK = 10,
    now: Annotated[
        str | None,
        typer.Option(help="The clock, ISO 8601 (default: now, UTC); resolves 'last Tuesday'."),
    ] = None,
    spread_depth: SpreadDepth = None,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Recall the memories relevant to QUERY with the retrieval cycle (as prompt text)."""

    async def work() -> Any:
        async with open_store(neo4j.connection(), namespace, embed=True) as store:
            return await store.retrieve(
                query, top_k=top_k, now=request_clock(now), spread_depth=spread_depth
            )

    response = run(work())
    _report(as_json, response.model_dump(mode="json"), format_for_prompt(response))


def link(
    from_id: Annotated[str, typer.Argument(metavar="FROM", help="The source thought's id.")],
    to_id: Annotated[str, typer.Argument(metavar="TO", help="The target thought's id.")],
    edge_type: Annotated[
        EdgeType,
        typer.Option(
            "--type", "-t", help="CAUSED_BY points effect -> cause, LEADS_TO cause -> effect."
        ),
    ] = EdgeType.ASSOCIATED,
    confidence: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="How sure the link is.")
    ] = None,
    weight: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="Its strength (new links: 1.0).")
    ] = None,
    update: Annotated[
        bool,
        typer.Option(
            "--update",
            help="When FROM and TO are already linked by this type, set the given --weight "
            "and --confidence on that link (else the link is created, as without --update).",
        ),
    ] = False,
    namespace: Namespace = DEFAULT_NAMESPACE,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Link thought FROM to thought TO with a typed edge (at most one per type and direction).

    Exit code 2 when the link exists and ``--update`` is not given (nothing is changed)."""
    changes: dict[str, float] = {
        name: value
        for name, value in (("weight", weight), ("confidence", confidence))
        if value is not None
    }

    async def existing(store: Neo4jEngravaCore) -> EdgeRecord | None:
        edges = await store.get_edges(from_id, direction=EdgeDirection.OUT)
        return next(
            (e for e in edges if e.to_thought_id == to_id and e.edge_type is edge_type), None
        )

    async def work() -> tuple[EdgeRecord, bool]:
        async with open_store(neo4j.connection(), namespace) as store:
            try:
                record = EdgeRecord(
                    from_thought_id=from_id, to_thought_id=to_id, edge_type=edge_type, **changes
                )
                return await store.create_edge(record), True
            except DuplicateEdgeError:
                edge = await existing(store)
                if edge is None:  # deleted in the meantime
                    raise
            if not update:
                raise error_exit(
                    f"{from_id} -[{edge_type.value}]-> {to_id} already exists (edge "
                    f"{edge.edge_id}), nothing changed: add --update to set its --weight and "
                    f"--confidence, or link with another --type"
                )
            return await store.update_edge(edge.edge_id, **changes), False

    edge, created = run(work())
    verb = "linked" if created else "updated"
    _report(
        as_json,
        _dump(edge),
        f"{verb} {from_id} -[{edge.edge_type.value}]-> {to_id} ({edge.edge_id})",
    )


LIST_COLUMNS = ("id", "type", "priority", "essence")
NAMESPACE_COLUMNS = ("namespace", "thoughts")


def _list_row(thought: ThoughtRecord) -> tuple[str, ...]:
    fields = (thought.thought_id, thought.thought_type.value, thought.priority.value)
    return (*fields, " ".join(shown(thought.essence).split()))


def _fit(text: str, cells: int) -> str:
    """``text`` cut to ``cells`` terminal cells, with an ellipsis when cut."""
    return text if cell_len(text) <= cells else set_cell_size(text, cells - 1) + "…"


def table_lines(rows: Sequence[tuple[str, ...]], width: int | None) -> list[str]:
    """``rows`` (the header row first, every row as long) as lines: tab-separated and whole
    when ``width`` is None (a pipe), else in aligned columns with the last one cut to ``width``
    terminal cells (the others are never cut)."""
    if width is None:
        return ["\t".join(row) for row in rows]
    columns = len(rows[0])
    sizes = [max(cell_len(row[i]) for row in rows) for i in range(columns - 1)]
    room = max(width - sum(sizes) - 2 * len(sizes), cell_len(rows[0][-1]))
    return [
        "  ".join([*(set_cell_size(c, size) for c, size in zip(row, sizes, strict=False)), ""])
        + _fit(row[-1], room)
        for row in rows
    ]


def list_rows(thoughts: list[ThoughtRecord]) -> list[tuple[str, ...]]:
    """``list``'s rows for :func:`table_lines`: the header, then per thought its id, type,
    priority and essence (on one line; cut last on a terminal)."""
    return [LIST_COLUMNS, *map(_list_row, thoughts)]


def echo_table(rows: Sequence[tuple[str, ...]]) -> None:
    """Print :func:`table_lines`: aligned to the terminal's width, or tab-separated into a pipe
    or a file."""
    for line in table_lines(rows, console.width if console.is_terminal else None):
        typer.echo(line)


def invalid_note(invalid: Sequence[InvalidStoredRecordError]) -> str:
    """One line naming thoughts that, as stored in Neo4j, are not valid (edited by hand):
    their count, up to three ids with their first problem, and how to repair them."""
    named = ", ".join(f"{e.record_id!r} ({'; '.join(e.problems[:1])})" for e in invalid[:3])
    more = f" and {len(invalid) - 3} more" if len(invalid) > 3 else ""
    target = invalid[0].record_id if len(invalid) == 1 else "{id}"
    return " ".join(
        shown(
            f"{counted(len(invalid), 'thought')} not valid as stored in Neo4j: {named}{more}; "
            f"repair each with PATCH /v1/thoughts/{target} (valid values for those fields), or "
            f"fix or delete it in Neo4j"
        ).split()
    )


def list_thoughts(
    namespace: Namespace = DEFAULT_NAMESPACE,
    thought_type: Annotated[
        ThoughtType | None,
        typer.Option(
            "--type",
            "-t",
            metavar="<type>",
            help=f"Only thoughts of this type: {', '.join(t.value for t in ThoughtType)}.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="The most thoughts listed.")] = 50,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """List a memory's newest thoughts, newest first (by creation time).

    Expired thoughts are left out. On a terminal the thoughts are aligned columns, one line per
    thought with the essence cut to fit; in a pipe, tab-separated lines after a header row. A
    thought edited by hand in Neo4j into an invalid one is left out and named in one warning
    line on stderr."""

    async def work() -> ThoughtListing:
        async with open_store(neo4j.connection(), namespace) as store:
            return await store.recent_page(limit, thought_type=thought_type)

    listing = run(work())
    thoughts = listing.thoughts
    if listing.invalid:
        typer.echo(f"warning: left out {invalid_note(listing.invalid)}", err=True)
    if as_json:
        _print_json([_dump(t) for t in thoughts])
    else:
        echo_table(list_rows(thoughts))


def namespaces(
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """List the memories (namespaces) of the database with their thought counts.

    On a terminal they are aligned columns; in a pipe, tab-separated lines after a header row.
    `delete-namespace` removes one, `export` and `import` move one between databases."""

    async def work() -> list[dict[str, Any]]:
        async with open_store(neo4j.connection(), DEFAULT_NAMESPACE, must_exist=False) as store:
            return [dict(row) for row in await store.executor.read(_LIST_NAMESPACES)]

    rows = run(work())
    if as_json:
        _print_json(rows)
        return
    echo_table([NAMESPACE_COLUMNS, *((row["namespace"], str(row["thoughts"])) for row in rows)])


def delete_namespace(
    namespace: Annotated[str, typer.Argument(help="The memory to delete, with everything in it.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Delete a namespace with every thought, edge, entity and tag in it; asks unless --yes.

    Other namespaces are untouched."""
    if not yes and not typer.confirm(f"Delete namespace {namespace!r} and everything in it?"):
        raise typer.Exit(1)

    async def work() -> None:
        async with open_store(neo4j.connection(), namespace) as store:
            await store.delete_namespace()

    run(work())
    _report(as_json, {"deleted": namespace}, f"deleted namespace {namespace!r}")


def export(
    namespace: Namespace = DEFAULT_NAMESPACE,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="The file (default: stdout).")
    ] = None,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Write a namespace as JSON lines (thoughts with their vectors, edges, then the counts).

    Refused, with nothing written (exit code 2), when a thought was edited by hand in Neo4j
    into an invalid one: an export without it would lose it. A file is replaced only when the
    export is whole, so it is read once; stdout, a pipe or a device cannot take back what it
    was sent, so the namespace is checked first."""

    async def refuse_invalid(store: Neo4jEngravaCore) -> None:
        invalid = await invalid_thoughts(store)
        if invalid:
            raise ValidationFailedError(
                f"namespace {namespace!r} holds {invalid_note(invalid)}, then export "
                f"again; nothing was exported (an export leaving them out would lose them)"
            )

    async def work() -> dict[str, int]:
        async with open_store(neo4j.connection(), namespace) as store:
            if written_in_place(output):
                await refuse_invalid(store)
            try:
                with open_output(output, "--output") as sink:
                    return await write_export(store, sink)
            except InvalidStoredRecordError:  # the file is as it was: name every such thought
                await refuse_invalid(store)
                raise

    counts = run(work())
    if not is_stdout(output):  # else the summary would end up in the export
        _report(
            as_json,
            {"namespace": namespace, "file": str(output), **counts},
            f"exported {counted(counts['thoughts'], 'thought')} and "
            f"{counted(counts['edges'], 'edge')} of {namespace!r} to {output}",
        )


def import_namespace(
    path: Annotated[Path, typer.Argument(help="A file written by `export` ('-': stdin).")],
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace", "-n", help="Import into this namespace (default: the exported one)."
        ),
    ] = None,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Load an export into a namespace that holds no thoughts yet.

    The whole file is checked before anything is written: the header, every line, repeats
    (no thought id, edge id or (from, to, type) twice), the edges' ends (among its thoughts;
    each error names its line) and the end line's
    counts (a file cut short is refused). Should a write fail all the same, what the others
    wrote is removed again, so a failed import leaves the namespace as it was."""

    if namespace is not None:  # an empty one is refused as export refuses it, not ignored
        validate_namespace(namespace)

    async def work() -> dict[str, Any]:
        read = read_export_file(path)
        target = read.namespace if namespace is None else namespace
        async with open_store(neo4j.connection(), target, must_exist=False) as store:
            await load_export(store, read)
        return {"namespace": target, "thoughts": len(read.thoughts), "edges": len(read.edges)}

    summary = run(work())
    _report(
        as_json,
        summary,
        f"imported {counted(summary['thoughts'], 'thought')} and "
        f"{counted(summary['edges'], 'edge')} into {summary['namespace']!r}",
    )


def add_messages(
    path: Annotated[
        Path,
        typer.Argument(
            help=(
                'A JSON file: {"conversation_id": "...", "messages": '
                '[{"role" or "speaker", "content", "timestamp"?, "message_id"?, "metadata"?}, '
                "...]}"
            )
        ),
    ],
    namespace: Namespace = DEFAULT_NAMESPACE,
    as_json: AsJson = False,
    *,
    neo4j: Neo4jOptions,
) -> None:
    """Store a conversation's messages, one observation each (re-sending adds nothing)."""
    conversation_id, messages = read_conversation(path)

    async def work() -> dict[str, Any]:
        async with open_store(neo4j.connection(), namespace, embed=True, must_exist=False) as store:
            return added_messages(await store.add_messages(conversation_id, messages))

    added = run(work())
    _report(
        as_json,
        {"namespace": namespace, "conversation_id": conversation_id, **added},
        added_line(conversation_id, added),
    )


def added_line(conversation_id: str, added: dict[str, Any]) -> str:
    """``add-messages``' line for a person, from :func:`added_messages`' counts (the ones its
    ``--json`` and the REST service give): how many messages were sent, how many of them are
    new and how many were already stored.

    Examples:
        >>> added_line("c1", {"messages": 2, "created": 2})
        "stored 2 messages of 'c1' (2 new)"
        >>> added_line("c1", {"messages": 1, "created": 0})
        "stored 1 message of 'c1' (0 new, 1 already stored)"
    """
    sent, created = added["messages"], added["created"]
    known = f", {sent - created} already stored" if sent > created else ""
    return f"stored {counted(sent, 'message')} of {conversation_id!r} ({created} new{known})"


COMMANDS: dict[str, Callable[..., None]] = {
    "remember": remember,
    "add-messages": add_messages,
    "retrieve": retrieve,
    "link": link,
    "list": list_thoughts,
    "namespaces": namespaces,
    "delete-namespace": delete_namespace,
    "export": export,
    "import": import_namespace,
}


def register(app: typer.Typer) -> None:
    """Add the daily commands to ``app``."""
    for name, command in COMMANDS.items():
        app.command(name)(with_options(command))
