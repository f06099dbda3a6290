"""The one error boundary of the ``engrava-graph`` console script.

Every command's failure ends as one line on stderr, ``error: <what is wrong and what to do>``,
and an exit code, never a traceback:

- :data:`EXIT_USAGE` (2): the caller can fix it by changing how the command is called or
  configured: a wrong Neo4j password, a URI the driver does not take (``http://``), a database
  that does not exist (``NEO4J_DATABASE``), an invalid argument (a library ``ValueError`` such
  as :class:`ValidationFailedError`, or a pydantic ``ValidationError``), a conflict with what is
  stored that the same call would meet again (an edge or thought that exists, a message re-sent
  with other content: REST's 409s), a namespace, thought or edge named by the call that does
  not exist (REST's 404s), an input file that does not exist or cannot be opened;
- :data:`EXIT_FAILURE` (1): anything else: Neo4j unreachable, a Neo4j statement that failed, a
  file that fails while it is read or written (a full disk), and any unexpected exception
  (named by its type; ``ENGRAVA_GRAPH_TRACEBACK=1`` lets the traceback through for a bug
  report).

:class:`GuardedTyper` applies it around the whole Typer app, so commands need no try/except of
their own; Click's own usage errors (unknown option, value out of range) are one line too, with
their exit code 2.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import neo4j.exceptions
import typer
from pydantic import ValidationError

from engrava_graph.cli.text import flowing, shown
from engrava_graph.model.errors import (
    DuplicateEdgeError,
    DuplicateThoughtError,
    EdgeNotFoundError,
    EngravaGraphError,
    MessageConflictError,
    NamespaceNotFoundError,
    ReferentialIntegrityError,
    ThoughtNotFoundError,
    ValidationFailedError,
    validation_message,
)

EXIT_FAILURE = 1
EXIT_USAGE = 2
TRACEBACK_VARIABLE = "ENGRAVA_GRAPH_TRACEBACK"
"""Set it to ``1`` to let an unexpected exception's traceback through (for bug reports)."""
F = TypeVar("F", bound=Callable[..., Any])

_DATABASE_NOT_FOUND = "Neo.ClientError.Database.DatabaseNotFound"
# Errors the call itself causes, like a ValueError: it must change (a link to a thought that
# does not exist, a thought or message that exists already, a namespace, thought or edge it
# names that does not exist).
_CALLER_ERRORS = (
    DuplicateEdgeError,
    DuplicateThoughtError,
    EdgeNotFoundError,
    MessageConflictError,
    NamespaceNotFoundError,
    ReferentialIntegrityError,
    ThoughtNotFoundError,
)


def _one_line(text: str) -> str:
    return " ".join(shown(text).split())


def _neo4j_message(error: neo4j.exceptions.Neo4jError) -> str:
    return _one_line(error.message or str(error))


def invalid(errors: Sequence[Any]) -> str:
    """``invalid <path>: <message>`` for the first of pydantic's ``errors()`` entries
    (``loc``, ``msg``), e.g. ``invalid messages.0.content: Field required``."""
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return _one_line(f"invalid {where or 'value'}: {validation_message(first)}")


def describe(error: BaseException) -> tuple[int, str]:
    """The exit code and the one-line message for an exception a command raised.

    Args:
        error: any exception.

    Returns:
        ``(exit_code, message)``: :data:`EXIT_USAGE` for a configuration or argument problem,
        else :data:`EXIT_FAILURE`; the message is one line without a trailing period.
    """
    if isinstance(error, neo4j.exceptions.AuthError):
        return EXIT_USAGE, ("Neo4j refused the credentials: check NEO4J_USER and NEO4J_PASSWORD")
    if isinstance(error, neo4j.exceptions.ConfigurationError):
        return (
            EXIT_USAGE,
            f"the Neo4j connection is misconfigured (NEO4J_URI): {_one_line(str(error))}",
        )
    if isinstance(error, neo4j.exceptions.Neo4jError):
        if error.code == _DATABASE_NOT_FOUND:
            return EXIT_USAGE, (
                f"Neo4j has no such database ({_neo4j_message(error)}): check "
                f"NEO4J_DATABASE, or unset it for the server's default database"
            )
        return EXIT_FAILURE, f"Neo4j refused the request ({error.code}): {_neo4j_message(error)}"
    if isinstance(error, ValidationError):
        return EXIT_USAGE, invalid(error.errors(include_url=False))
    if isinstance(error, ValidationFailedError) and error.errors:
        return EXIT_USAGE, invalid(error.errors)
    if isinstance(error, EngravaGraphError):
        code = EXIT_USAGE if isinstance(error, (ValueError, *_CALLER_ERRORS)) else EXIT_FAILURE
        return code, _one_line(str(error))
    if isinstance(error, ValueError) and isinstance(error.__cause__, OSError):
        # The driver's name lookup: "Cannot resolve address nohost:7687" from socket.gaierror.
        return EXIT_USAGE, f"Neo4j cannot be reached: {_one_line(str(error))}; check NEO4J_URI"
    if isinstance(error, neo4j.exceptions.DriverError | OSError):
        return EXIT_FAILURE, _one_line(str(error) or type(error).__name__)
    return EXIT_FAILURE, (
        f"unexpected {type(error).__name__}: {_one_line(str(error))} (set "
        f"{TRACEBACK_VARIABLE}=1 for the traceback)"
    )


_QUIET = logging.NullHandler()


class GuardedTyper(typer.Typer):
    """A Typer app whose every command runs inside :func:`describe`'s boundary: an exception
    that escapes a command is printed as one line and ends the process with its exit code
    (:class:`SystemExit`, :class:`KeyboardInterrupt` and Click's own errors pass as usual)."""

    def command(self, name: str | None = None, **kwargs: Any) -> Callable[[F], F]:
        """Typer's ``command``; a command without ``help=`` takes its docstring
        :func:`~engrava_graph.cli.text.flowing` (each paragraph wrapped to the terminal)."""

        def register(fn: F) -> F:
            options = dict(kwargs)
            if options.get("help") is None and fn.__doc__:
                options["help"] = flowing(fn.__doc__)
            return super(GuardedTyper, self).command(name, **options)(fn)

        return register

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False  # errors come here, to be printed as one line
        # The driver logs its failures too ("Unable to retrieve routing information" for an
        # unreachable neo4j:// URI), and with no handler configured Python prints a warning to
        # stderr beside our line; a handler that does nothing keeps them for whoever configures
        # logging (the service does) and off the console otherwise.
        logging.getLogger("neo4j").addHandler(_QUIET)
        # Likewise the store's warning per hand-edited thought a listing leaves out: `list`
        # and `export` name those thoughts in their own one line.
        logging.getLogger("engrava_graph.store.listing").addHandler(_QUIET)
        try:
            result = typer.main.get_command(self).main(*args, **kwargs)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            raise SystemExit(EXIT_FAILURE) from None
        except typer.TyperException as error:  # Click's usage errors, as Typer ships Click
            message = usage_line(error)
            if message:
                typer.echo(f"error: {message}", err=True)
            else:  # no arguments: the help text, as Click prints it
                error.show()  # type: ignore[attr-defined]
            raise SystemExit(getattr(error, "exit_code", EXIT_USAGE)) from None
        except Exception as error:
            if os.environ.get(TRACEBACK_VARIABLE) == "1":
                raise
            code, message = describe(error)
            typer.echo(f"error: {message}", err=True)
            raise SystemExit(code) from None
        # Outside standalone mode Click returns an Exit's code (``--help``, ``typer.Exit(3)``).
        raise SystemExit(result if isinstance(result, int) else 0)


def usage_line(error: Exception) -> str:
    """A usage error (Typer's ``ClickException``) as one line pointing at the command's
    ``--help``: ``Invalid value for '--top-k': 0 is not in the range 10<=x<=100 (see:
    engrava-graph retrieve --help)``; empty when Click has no message (no arguments given)."""
    if isinstance(error.__cause__, ValidationError) and hasattr(error, "message"):
        # Typer checks some parameters (a choice: ``--type``) with pydantic and keeps its
        # wording; the validator's own message, as for every other pydantic error here.
        error.message = validation_message(error.__cause__.errors()[0])
    format_message = getattr(error, "format_message", None)
    message = _one_line(format_message() if format_message else str(error))
    ctx = getattr(error, "ctx", None)
    if not message:
        return ""
    return f"{message} (see: {ctx.command_path} --help)" if ctx is not None else message
