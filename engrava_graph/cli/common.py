"""What every command of the console script shares: the error console, the one-line exit
for a problem a command finds itself (a missing extra, a busy port, a link that exists) and
the clock of a retrieval (``--now``)."""

from __future__ import annotations

from datetime import UTC, datetime

import typer
from rich.console import Console

from engrava_graph.cli.errors import EXIT_USAGE
from engrava_graph.extras import require
from engrava_graph.model.errors import MissingExtraError

err_console = Console(stderr=True, soft_wrap=True)


def error_exit(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print ``error: <message>`` on stderr and return the exit to raise (``raise
    error_exit(...)``), for a problem a command detects itself; exceptions from the library
    reach :mod:`engrava_graph.cli.errors`' boundary instead.

    Args:
        message: one line: what is wrong and what to run instead.
        code: the exit code (default :data:`EXIT_USAGE`, 2).
    """
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def url(host: str, port: int) -> str:
    """``http://host:port``, an IPv6 address in brackets."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def port_refused(host: str, port: int, problem: str) -> typer.Exit:
    """The one-line exit (code 2) for a server that cannot listen on ``host``:``port`` because
    of ``problem`` (``"Address already in use"``): the call must choose another ``--port`` (or
    the process holding it must stop).

    Args:
        host, port: where the command meant to listen.
        problem: the socket error's text (``OSError.strerror``).
    """
    return error_exit(
        f"cannot listen on {url(host, port)}: {problem}; stop the process that holds the port "
        f"or choose another with --port"
    )


def require_extra(extra: str, feature: str) -> None:
    """Exit with :data:`EXIT_USAGE` and one line on stderr when ``extra`` is not installed.

    Args:
        extra: a key of :data:`engrava_graph.extras.EXTRAS`.
        feature: the command, for the message (``"engrava-graph demo"``).

    Raises:
        typer.Exit: the extra is missing (code 2), after printing which one and how to install it.
    """
    try:
        require(extra, feature)
    except MissingExtraError as error:
        raise error_exit(str(error)) from error


def request_clock(now: str | None) -> datetime | str:
    """The ``now`` of a retrieval from ``--now``: the option as given, else the current instant
    (UTC). An empty ``--now ""`` is given, so the library refuses it as any other value that is
    not an ISO-8601 instant (one line, exit code 2), instead of it meaning "now".
    """
    return datetime.now(UTC) if now is None else now
