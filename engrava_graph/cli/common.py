"""What every command of the console script shares: the consoles and a one-line exit for a
missing extra."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

from engrava_graph.cli.errors import EXIT_USAGE
from engrava_graph.extras import require
from engrava_graph.model.errors import MissingExtraError

err_console = Console(stderr=True, soft_wrap=True)


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
        err_console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
        raise typer.Exit(EXIT_USAGE) from error
