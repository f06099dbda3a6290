"""The CLI's error boundary (engrava_graph.cli.errors): which exit code and line each kind of
failure gets, and that an escaping exception never prints a traceback. The real commands against
the real Neo4j are in tests/integration/test_cli_errors.py."""

from __future__ import annotations

import socket

import pydantic
import pytest

from engrava_graph.cli import app
from engrava_graph.cli.errors import (
    EXIT_FAILURE,
    EXIT_USAGE,
    TRACEBACK_VARIABLE,
    GuardedTyper,
    describe,
)
from engrava_graph.model.errors import (
    DuplicateEdgeError,
    NamespaceNotFoundError,
    Neo4jUnavailableError,
    ReferentialIntegrityError,
    ThoughtNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.records import ThoughtRecord


def _pydantic_error() -> pydantic.ValidationError:
    with pytest.raises(pydantic.ValidationError) as caught:
        ThoughtRecord.model_validate(
            {"thought_type": "NOTE", "essence": "", "content": "c", "source": "s"}
        )
    return caught.value


def _unresolved() -> ValueError:
    """The driver's failed name lookup: a ValueError raised from socket.gaierror."""
    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except OSError as cause:
            raise ValueError("Cannot resolve address nohost:7687") from cause
    except ValueError as error:
        return error


@pytest.mark.parametrize(
    "error, code, needle",
    [
        (ValidationFailedError("limit must be 1..10000"), EXIT_USAGE, "limit must be"),
        (_pydantic_error(), EXIT_USAGE, "invalid essence"),
        (
            ValidationFailedError("x", errors=[{"loc": ("messages", 0, "content"), "msg": "req"}]),
            EXIT_USAGE,
            "invalid messages.0.content: req",
        ),
        (
            DuplicateEdgeError(from_thought_id="a", to_thought_id="b", edge_type="CAUSED_BY"),
            EXIT_USAGE,
            "'a' -[CAUSED_BY]-> 'b' already exists; nothing was written",
        ),
        (
            ValidationFailedError(
                "x", errors=[{"loc": ("now",), "msg": "Value error, expected an instant"}]
            ),
            EXIT_USAGE,
            "invalid now: expected an instant",
        ),
        (ReferentialIntegrityError(["ghost"]), EXIT_USAGE, "edge endpoint(s) 'ghost' do not exist"),
        (NamespaceNotFoundError("nowhere"), EXIT_USAGE, "nowhere"),
        (ThoughtNotFoundError("ghost-id"), EXIT_USAGE, "ghost-id"),
        (Neo4jUnavailableError("Neo4j is not reachable"), EXIT_FAILURE, "not reachable"),
        (FileNotFoundError(2, "No such file or directory", "x.db"), EXIT_FAILURE, "x.db"),
        (_unresolved(), EXIT_USAGE, "Neo4j cannot be reached: Cannot resolve address nohost:7687"),
        (
            RuntimeError("boom\nsecond line"),
            EXIT_FAILURE,
            "unexpected RuntimeError: boom second line",
        ),
    ],
)
def test_each_failure_gets_its_exit_code_and_one_line(error, code, needle) -> None:
    got_code, message = describe(error)
    assert got_code == code
    assert needle in message and "\n" not in message


def _app() -> GuardedTyper:
    app = GuardedTyper()

    @app.command()
    def boom() -> None:
        raise RuntimeError("it broke")

    return app


def test_an_escaping_exception_is_one_line_without_a_traceback(capsys, monkeypatch) -> None:
    monkeypatch.delenv(TRACEBACK_VARIABLE, raising=False)
    with pytest.raises(SystemExit) as exited:
        _app()([], prog_name="engrava-graph")
    assert exited.value.code == EXIT_FAILURE
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"error: unexpected RuntimeError: it broke (set {TRACEBACK_VARIABLE}=1 for the traceback)"
    ]


def test_the_traceback_variable_lets_the_exception_through(monkeypatch) -> None:
    monkeypatch.setenv(TRACEBACK_VARIABLE, "1")
    with pytest.raises(RuntimeError, match="it broke"):
        _app()([], prog_name="engrava-graph")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["retrieve", "q", "--top-k", "0"], "Invalid value for '--top-k'"),
        (["list", "--bogus"], "No such option: --bogus"),
        (["link", "a", "b", "--type", "NOPE"], "Invalid value for '--type' / '-t': 'NOPE' is"),
        (["retrieve"], "Missing argument 'query'"),
    ],
)
def test_a_usage_error_is_one_line_with_exit_2(capsys, args, needle) -> None:
    with pytest.raises(SystemExit) as exited:
        app(args, prog_name="engrava-graph")
    assert exited.value.code == EXIT_USAGE
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
    assert lines[0].endswith(f"(see: engrava-graph {args[0]} --help)")


def test_help_and_explicit_exit_codes_pass_through() -> None:
    with pytest.raises(SystemExit) as exited:
        app(["--help"], prog_name="engrava-graph")
    assert exited.value.code == 0
