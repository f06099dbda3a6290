"""Option bundles: options several commands share, each declared once.

A bundle is a frozen dataclass whose fields are Typer options (``Annotated[type,
typer.Option(...)]`` with the field's default as the option's default). A command takes the
bundle as one typed parameter (``neo4j: Neo4jOptions``) and :func:`with_options` spreads the
bundle's fields into the command's options, so ``--uri``/``--user``/``--password``/``--database``
read the same on every command that talks to Neo4j, and ``--host``/``--port``/``--env-file``/
``--insecure-dev`` on both servers (``serve``, ``mcp``). Single options several commands take
(:data:`Port`, :data:`TopK`) are declared here once as well.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_type_hints

import typer

from engrava_graph.graph.connection import ConnectionInfo, resolve_connection

R = TypeVar("R")


@dataclass(frozen=True)
class Neo4jOptions:
    """Where the Neo4j server is: the flags, else the ``NEO4J_*`` variables, else the local
    server (``engrava-graph neo4j start``)."""

    uri: Annotated[
        str | None,
        typer.Option(
            envvar="NEO4J_URI", help="bolt:// or neo4j:// URI (default: a running local server)."
        ),
    ] = None
    user: Annotated[str, typer.Option(envvar="NEO4J_USER", help="Neo4j user.")] = "neo4j"
    password: Annotated[
        str, typer.Option(envvar="NEO4J_PASSWORD", show_default=False, help="Neo4j password.")
    ] = ""
    database: Annotated[
        str | None,
        typer.Option(envvar="NEO4J_DATABASE", help="Neo4j database (default: the server's)."),
    ] = None

    def connection(self, *, start_local: bool = False) -> ConnectionInfo:
        """The flags' server when ``--uri`` (or ``NEO4J_URI``) is given, else the local server
        (started only when ``start_local``).

        Raises:
            Neo4jUnavailableError: no URI and no local server running.
        """
        if self.uri:
            return ConnectionInfo(
                uri=self.uri, user=self.user, password=self.password, database=self.database
            )
        return resolve_connection(start_local=start_local)


Port = Annotated[int, typer.Option(min=1, max=65535, help="The TCP port.")]
TopK = Annotated[int, typer.Option(min=1, max=100, help="Results returned.")]
"""``--top-k`` of every command that retrieves (``retrieve``, ``explain``, ``cypher profile``):
the range the retrieval request takes, checked before anything connects."""


@dataclass(frozen=True)
class ServerOptions:
    """How ``engrava-graph serve`` listens and reads its settings (docs/api.md)."""

    host: Annotated[str, typer.Option(help="The interface to listen on.")] = "127.0.0.1"
    port: Port = 8000
    env_file: Annotated[Path, typer.Option(help="Settings file, read after the environment.")] = (
        Path(".env")
    )
    insecure_dev: Annotated[
        bool,
        typer.Option(
            "--insecure-dev",
            help="Serve WITHOUT API keys: every caller may read and write every namespace. "
            "For a development machine only.",
        ),
    ] = False


@dataclass(frozen=True)
class McpServerOptions(ServerOptions):
    """``engrava-graph mcp``'s server options: :class:`ServerOptions` on MCP's own port
    (host, port and ``--insecure-dev`` apply to ``--transport http``)."""

    port: Port = 8765


def _bundle_fields(bundle: type) -> list[inspect.Parameter]:
    hints = get_type_hints(bundle, include_extras=True)
    return [
        inspect.Parameter(
            field.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=field.default,
            annotation=hints[field.name],
        )
        for field in dataclasses.fields(bundle)
    ]


def with_options(command: Callable[..., R]) -> Callable[..., R]:
    """Spread each parameter of ``command`` whose annotation is a bundle (a dataclass) into the
    bundle's fields, as keyword options after the command's own; the command is called with
    the bundle built from them.

    Args:
        command: a Typer command function (its own parameters as Typer reads them).

    Returns:
        The function to register with ``app.command(...)``: its signature shows the options.

    Raises:
        TypeError: a bundle field has the name of another parameter.
    """
    signature = inspect.signature(command, eval_str=True)
    bundles = {
        name: parameter.annotation
        for name, parameter in signature.parameters.items()
        if isinstance(parameter.annotation, type) and dataclasses.is_dataclass(parameter.annotation)
    }
    own = [p for name, p in signature.parameters.items() if name not in bundles]
    owner: dict[str, str] = {}
    spread: list[inspect.Parameter] = []
    for name, bundle in bundles.items():
        for parameter in _bundle_fields(bundle):
            if parameter.name in owner or parameter.name in signature.parameters:
                raise TypeError(
                    f"{command.__name__}: option {parameter.name!r} of {bundle.__name__} "
                    f"clashes with another parameter"
                )
            owner[parameter.name] = name
            spread.append(parameter)

    @functools.wraps(command)
    def expanded(**kwargs: Any) -> R:
        values: dict[str, dict[str, Any]] = {name: {} for name in bundles}
        for field, name in owner.items():
            values[name][field] = kwargs.pop(field)
        built = {name: bundles[name](**fields) for name, fields in values.items()}
        return command(**kwargs, **built)

    parameters = [*own, *spread]
    expanded.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    expanded.__annotations__ = {p.name: p.annotation for p in parameters}
    return expanded
