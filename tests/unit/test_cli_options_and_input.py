"""The CLI's shared pieces without Neo4j: option bundles (each option declared once, spread into
every command that takes the bundle), the JSON input files' one-line errors (what is wrong
and where) and ``list``'s output on a narrow terminal and in a pipe."""

from __future__ import annotations

import asyncio
import errno
import io
import json
import os
import socket
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import pytest
import typer
from rich.cells import cell_len
from typer.testing import CliRunner

from engrava_graph.cli import app
from engrava_graph.cli.dream import FLAGS
from engrava_graph.cli.errors import EXIT_FAILURE, EXIT_USAGE, describe
from engrava_graph.cli.explore import EXIT_COUNT_MISMATCH, check_counts, ranked_candidates
from engrava_graph.cli.json_input import (
    is_stdout,
    open_output,
    read_conversation,
    written_in_place,
)
from engrava_graph.cli.memory import list_rows, table_lines
from engrava_graph.cli.namespace_file import read_export
from engrava_graph.cli.options import Neo4jOptions, with_options
from engrava_graph.migrate_engrava import Counts, ImportReport, read_engrava
from engrava_graph.model.errors import DatasetError, MigrationError
from engrava_graph.model.records import ThoughtRecord
from engrava_graph.retrieval.results import CandidateTrace, Explanation, RetrievedMemory

NEO4J_FLAGS = ("--uri", "--user", "--password", "--database")


@dataclass(frozen=True)
class Greeting:
    loud: Annotated[bool, typer.Option("--loud", help="Shout.")] = False
    times: Annotated[int, typer.Option(min=1, help="How often.")] = 1


def test_a_bundle_is_spread_into_options_and_rebuilt_for_the_command() -> None:
    seen: list[tuple[str, int, Greeting]] = []

    def greet(name: str, count: int = 1, *, greeting: Greeting) -> None:
        seen.append((name, count, greeting))

    demo = typer.Typer()
    demo.command()(with_options(greet))
    demo.command("other")(lambda: None)
    result = CliRunner().invoke(demo, ["greet", "Ada", "--count", "2", "--loud", "--times", "3"])
    assert result.exit_code == 0, result.output
    assert seen == [("Ada", 2, Greeting(loud=True, times=3))]
    assert CliRunner().invoke(demo, ["greet", "Ada", "--times", "0"]).exit_code == 2


def test_a_bundle_field_may_not_shadow_a_parameter() -> None:
    def clash(loud: bool = False, *, greeting: Greeting) -> None:
        del loud, greeting

    with pytest.raises(TypeError, match="'loud' of Greeting clashes"):
        with_options(clash)


@pytest.mark.parametrize(
    "command",
    [
        "remember",
        "retrieve",
        "link",
        "list",
        "namespaces",
        "delete-namespace",
        "export",
        "import",
        "add-messages",
        "explain",
        "import-engrava",
        "dream",
        "migrate",
    ],
)
def test_every_neo4j_command_takes_the_connection_flags(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for flag in NEO4J_FLAGS:
        assert flag in result.output, (command, flag)


def _option_line(command: list[str], option: str) -> str:
    shown = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).output
    return next(
        line.strip("│ ") for line in shown.splitlines() if line.strip("│ ").startswith(option)
    )


def test_every_retrieving_command_reads_top_k_the_same() -> None:
    """``--top-k`` is one option (:data:`~engrava_graph.cli.options.TopK`): the same help and
    range on each command that retrieves, and out of range it is refused before any
    connection (the URI below answers nothing)."""
    commands = (["retrieve"], ["explain"], ["cypher", "profile"])
    lines = {" ".join(_option_line(command, "--top-k").split()) for command in commands}
    assert lines == {"--top-k <int range> [1<=x<=100] Results returned. [default: 10]"}, lines
    for command in commands:
        with pytest.raises(SystemExit) as exited:
            app([*command, "q", "--top-k", "101", "--uri", "bolt://127.0.0.1:1"])
        assert exited.value.code == 2


def _commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[str, object]]:
    subs = getattr(group, "commands", {})
    return [(" ".join(path), group)] + [
        found for name, sub in subs.items() for found in _commands(sub, (*path, name))
    ]


def test_every_command_help_flows_to_the_terminal() -> None:
    """Each paragraph of a command's help is one line for the terminal to wrap: Typer keeps
    the line breaks of a docstring's later paragraphs (and of the summary in the command
    list), so a docstring wrapped at 100 columns printed ragged (``list``'s broke after
    "are")."""
    ragged = [
        name
        for name, command in _commands(typer.main.get_command(app))
        if any("\n" in p for p in (getattr(command, "help", None) or "").split("\n\n"))
    ]
    assert not ragged, ragged


def test_list_help_reads_evenly() -> None:
    """``list --help`` on an 80-column terminal: ``--type`` has a short metavar, so its choices
    (listed in its help) are not cut mid-word, and every option's help is a sentence."""
    shown = CliRunner().invoke(app, ["list", "--help"], env={"COLUMNS": "80"}).output
    assert "<type>" in shown, shown
    flat = " ".join(shown.replace("│", " ").split())
    assert "Only thoughts of this type: TASK, OBSERVATION, BELIEF, REFLECTION," in flat, flat
    assert "The most thoughts listed. [default: 50]" in flat, flat


def test_the_connection_flags_name_the_server() -> None:
    info = Neo4jOptions(uri="bolt://db:7687", user="u", password="p", database="d").connection()
    assert (info.uri, info.user, info.password, info.database) == ("bolt://db:7687", "u", "p", "d")


def _conversation_problem(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "chat.json"
    path.write_text(text)
    with pytest.raises(DatasetError) as caught:
        read_conversation(path)
    return describe(caught.value)


@pytest.mark.parametrize(
    "text, needle",
    [
        ('{"conversation_id": "c",\n "messages": [}', "not valid JSON at line 2, column 15"),
        ('{"messages": []}', "missing field 'conversation_id'"),
        ('{"conversation_id": "c"}', "missing field 'messages'"),
        ("[1, 2]", "expected a JSON object with conversation_id, messages, found array"),
        (
            json.dumps({"conversation_id": "c", "messages": [{"speaker": "A"}]}),
            "invalid messages.0.content: Field required",
        ),
        (json.dumps({"conversation_id": " ", "messages": []}), "conversation_id"),
        (json.dumps({"conversation_id": "c", "messages": []}), "send 1-10000 messages"),
        ('{"conversation_id": "c", "messages": ' + "[" * 5000 + "]" * 5000 + "}", "too deeply"),
        (
            json.dumps({"conversation_id": "c", "messages": [], "bogus": 1}),
            "unknown field 'bogus'; the file holds conversation_id, messages",
        ),
    ],
)
def test_a_bad_conversation_file_says_what_and_where(
    tmp_path: Path, text: str, needle: str
) -> None:
    code, message = _conversation_problem(tmp_path, text)
    assert code == 2
    assert needle in message and "\n" not in message
    assert "JSONDecodeError" not in message and "KeyError" not in message


def test_a_missing_conversation_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        read_conversation(tmp_path / "nowhere.json")
    code, message = describe(caught.value)
    assert code == 2 and "nowhere.json: cannot read it (No such file or directory)" in message


@pytest.mark.parametrize("name", ["nowhere.db", "."])
def test_import_engrava_refuses_a_missing_file_as_a_usage_error(tmp_path: Path, name: str) -> None:
    """As ``import`` does (exit code 2): the path is checked before Neo4j is reached."""
    result = CliRunner().invoke(app, ["import-engrava", str(tmp_path / name)])
    assert result.exit_code == 2, result.output
    assert "Invalid value for 'path'" in result.output


def test_a_missing_engrava_file_is_a_usage_error_from_the_library_too(tmp_path: Path) -> None:
    with pytest.raises(MigrationError) as caught:
        asyncio.run(read_engrava(tmp_path / "nowhere.db"))
    code, message = describe(caught.value)
    assert code == EXIT_USAGE and "nowhere.db does not exist" in message


def _report(found: Counts) -> ImportReport:
    expected = Counts(thoughts=2, embeddings=2, edges=1)
    return ImportReport(
        namespace="ns",
        expected=expected,
        written=expected,
        updated=Counts(),
        skipped=Counts(),
        found=found,
        embedding_model=None,
        dropped={},
    )


def test_a_failed_count_check_has_its_own_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    """Not 2 (a missing or unreadable file, a bad option) nor 1, so a script can tell them apart."""
    assert EXIT_COUNT_MISMATCH not in (EXIT_USAGE, EXIT_FAILURE)
    with pytest.raises(typer.Exit) as caught:
        check_counts(_report(Counts(thoughts=2, embeddings=1, edges=1)))
    assert caught.value.exit_code == EXIT_COUNT_MISMATCH == 3
    err = capsys.readouterr().err
    assert err.startswith("error: count check failed") and err.count("\n") == 1
    check_counts(_report(Counts(thoughts=2, embeddings=2, edges=1)))
    assert "count check passed" in capsys.readouterr().out


HEADER_V1 = '{"kind": "namespace", "format": "engrava-graph/namespace-v1", "namespace": "n"}'


@pytest.mark.parametrize(
    "lines, needle",
    [
        (
            [HEADER_V1, "{oops"],
            "line 2, column 2: not valid JSON",
        ),
        (
            [HEADER_V1, '{"kind": "edge"}'],
            "line 2: missing field 'edge'",
        ),
        (
            [
                HEADER_V1,
                '{"kind": "edge", "edge": {"edge_id": "e", "from_thought_id": "a"}}',
            ],
            "line 2: invalid to_thought_id: Field required",
        ),
    ],
)
def test_a_bad_export_line_says_what_and_where(lines: list[str], needle: str) -> None:
    with pytest.raises(DatasetError) as caught:
        read_export(iter(lines))
    assert needle in str(caught.value)


def _thoughts() -> list[ThoughtRecord]:
    long = "The deployment window is Tuesday 2-4pm UTC and\tnobody may deploy outside it"
    return [
        ThoughtRecord(thought_type="OBSERVATION", essence=long, content="c", source="s"),
        ThoughtRecord(thought_type="NOTE", essence="记录会议的决定" * 5, content="c", source="s"),
    ]


@pytest.mark.parametrize("width", [80, 100, 160])
def test_list_fits_each_thought_on_one_terminal_line(width: int) -> None:
    thoughts = _thoughts()
    lines = table_lines(list_rows(thoughts), width)
    assert len(lines) == 1 + len(thoughts)
    assert all(cell_len(line) <= width for line in lines), lines
    if width == 80:  # both essences are cut
        assert lines[1].endswith("…") and lines[2].endswith("…")
    for line, thought in zip(lines[1:], thoughts, strict=True):
        assert line.startswith(f"{thought.thought_id}  {thought.thought_type.value}")
        assert line.endswith(("…", " ".join(thought.essence.split())))


def test_list_in_a_pipe_is_whole_tab_separated_lines() -> None:
    thoughts = _thoughts()
    lines = table_lines(list_rows(thoughts), None)
    assert lines[0].split("\t") == ["id", "type", "priority", "essence"]
    fields = lines[1].split("\t")
    assert fields[0] == thoughts[0].thought_id
    assert fields[3] == " ".join(thoughts[0].essence.split())


def test_any_table_pipes_as_tab_separated_lines_and_cuts_only_its_last_column() -> None:
    rows = [("namespace", "thoughts"), ("agent-7", "12"), ("a-much-longer-name", "3")]
    assert table_lines(rows, None) == [
        "namespace\tthoughts",
        "agent-7\t12",
        "a-much-longer-name\t3",
    ]
    aligned = table_lines(rows, 80)
    assert aligned[1] == "agent-7             12"
    assert {len(line) - len(line.split()[-1]) for line in aligned} == {20}


def _trace(thought_id: str, composite: float, dropped_in: str | None = None) -> CandidateTrace:
    signals = dict.fromkeys(
        ("similarity", "temporal", "causal", "importance", "access_frequency", "activation"), 0.0
    )
    return CandidateTrace(
        thought_id=thought_id,
        text=thought_id,
        reached_by="activation",
        hops=0,
        composite=composite,
        confidence=composite,
        dropped_in=dropped_in,
        **signals,
    )


def test_explain_lists_the_results_in_rank_order_then_the_dropped_ones() -> None:
    # The cycle orders candidates by composite; results are ordered by confidence.
    candidates = [_trace("a", 0.9), _trace("b", 0.8), _trace("x", 0.7, "return"), _trace("c", 0.6)]
    results = [RetrievedMemory.model_construct(thought_id=i) for i in ("c", "a", "b")]
    explanation = Explanation.model_construct(results=results, candidates=candidates)
    listed = [(rank, trace.thought_id) for rank, trace in ranked_candidates(explanation)]
    assert listed == [(1, "c"), (2, "a"), (3, "b"), (None, "x")]


def test_a_conversation_file_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    body = {"conversation_id": "c", "messages": [{"speaker": "A", "content": "hi"}]}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(body).encode())
    conversation_id, messages = read_conversation(path)
    assert conversation_id == "c" and [m.content for m in messages] == ["hi"]


def test_a_file_that_is_not_utf8_says_so_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"conversation_id": "café"}'.encode("latin-1"))
    with pytest.raises(DatasetError) as caught:
        read_conversation(path)
    code, message = describe(caught.value)
    assert code == 2 and "not UTF-8 text (byte 0xe9 at offset 24)" in message
    assert "\n" not in message and "codec" not in message


def test_a_bad_byte_far_into_a_file_is_named_by_its_offset_in_the_file(tmp_path: Path) -> None:
    """Past a text reader's first buffer (8 KB) the offset still counts from the file's start,
    its byte order mark included."""
    path = tmp_path / "long.json"
    data = b"\xef\xbb\xbf" + json.dumps({"conversation_id": "c", "pad": "x" * 20_000}).encode()
    data = data[:-2] + "é".encode("latin-1") + data[-2:]
    path.write_bytes(data)
    at = data.index(b"\xe9")
    with pytest.raises(DatasetError) as caught:
        read_conversation(path)
    assert (
        str(caught.value)
        == f"{path}: not UTF-8 text (byte 0xe9 at offset {at}); save the file as UTF-8"
    )


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    """Put ``data`` on stdin as Python's own stdin reads a pipe (UTF-8 with surrogateescape:
    bytes that are not UTF-8 come through as lone surrogates)."""
    wrapper = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", wrapper)


def test_stdin_that_is_not_utf8_says_so_as_a_file_does(monkeypatch, capsys) -> None:
    _stdin(monkeypatch, '{"conversation_id": "café"}'.encode("latin-1"))
    with pytest.raises(DatasetError) as caught:
        read_conversation(Path("-"))
    assert str(caught.value) == (
        "-: not UTF-8 text (byte 0xe9 at offset 24); save the file as UTF-8"
    )
    header = '{"kind": "namespace", "format": "engrava-graph/namespace-v1", "namespace": "n"}\n'
    line = '{"kind": "thought", "thought": {"essence": "café"}}\n'
    export = (header + line).encode("latin-1")
    _stdin(monkeypatch, export)
    with pytest.raises(SystemExit) as exited:  # fails before it connects to Neo4j
        app(["import", "-", "--uri", "bolt://127.0.0.1:1"], prog_name="engrava-graph")
    assert exited.value.code == 2
    at = export.index(b"\xe9")
    assert capsys.readouterr().err.splitlines() == [
        f"error: -: not UTF-8 text (byte 0xe9 at offset {at}); save the file as UTF-8"
    ]


def test_stdin_may_start_with_a_byte_order_mark(monkeypatch) -> None:
    body = {"conversation_id": "c", "messages": [{"speaker": "A", "content": "hi"}]}
    _stdin(monkeypatch, b"\xef\xbb\xbf" + json.dumps(body).encode())
    assert read_conversation(Path("-"))[0] == "c"


def test_an_output_in_a_missing_directory_is_refused_and_nothing_is_created(tmp_path):
    """``--html``/``--output`` into a mistyped directory names it; no directory appears."""
    target = tmp_path / "typo" / "deeper" / "x.html"
    with pytest.raises(DatasetError, match=r"directory .*deeper does not exist.*--html"):
        with open_output(target, "--html"):
            pass
    assert not (tmp_path / "typo").exists()


def test_an_output_under_a_file_names_the_file(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(DatasetError, match=r"a-file is a file, not a directory.*--output"):
        with open_output(a_file / "sub" / "out.json", "--output"):
            pass


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
@pytest.mark.parametrize("size", [10, 1_000_000], ids=["flushed-at-close", "written-at-once"])
def test_a_full_device_names_the_output(size: int) -> None:
    """A write the device refuses (ENOSPC), whether it fails in the command's ``write`` or in
    the flush at close, names the file: exit code 1, one line (it was ``[Errno 28] No space
    left on device``, naming neither the file nor the option)."""
    with pytest.raises(OSError) as raised, open_output(Path("/dev/full"), "--html") as sink:
        sink.write("x" * size)
    assert describe(raised.value) == (
        EXIT_FAILURE,
        "/dev/full: cannot write it (No space left on device)",
    )


def test_a_failed_sync_names_the_output_and_leaves_the_file(tmp_path, monkeypatch):
    """An I/O error when the output is synced to disk names the file the user gave (not the
    temporary one beside it), which is left as it was."""
    target = tmp_path / "memory.jsonl"
    target.write_text("the previous export\n")

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError) as raised, open_output(target, "--output") as sink:
        sink.write("a new export\n")
    assert describe(raised.value) == (
        EXIT_FAILURE,
        f"{target}: cannot write it ({os.strerror(errno.EIO)})",
    )
    assert target.read_text() == "the previous export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["memory.jsonl"]


def test_an_output_in_an_existing_directory_is_written(tmp_path):
    with open_output(tmp_path / "x.html", "--html") as sink:
        sink.write("<p>ok</p>")
    assert (tmp_path / "x.html").read_text(encoding="utf-8") == "<p>ok</p>"


@pytest.mark.parametrize(
    "options, line",
    [
        (["--min-size", "9", "--max-size", "4"], "error: --max-size (4) must be >= --min-size (9)"),
        (["--neighbours", "5000"], "error: invalid --neighbours: Input should be less than or"),
        (["--strategy", "fast"], "error: invalid --strategy: Input should be 'auto', 'exact'"),
        (["--min-age", str(2**63)], "error: invalid --min-age: Input should be less than or"),
        # the last --cycle wins; it was the library's "the current_cycle argument gave ..."
        (
            ["--cycle", str(2**63)],
            "error: Invalid value for '--cycle' / '-c': Input should be less",
        ),
    ],
)
def test_dream_names_the_option_a_refused_value_came_from(
    options: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A value ``dream``'s config refuses is named by the option typed, not by its config field
    (``neighbours_k``), before any connection is made (the URI below answers nothing)."""
    with pytest.raises(SystemExit) as exited:
        app(["dream", "-n", "x", "-c", "1", *options, "--uri", "bolt://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert exited.value.code == 2, err
    assert err.startswith(line) and len(err.splitlines()) == 1, err
    assert not any(field in err for field in (*FLAGS, "current_cycle")), err


def test_every_config_field_dream_sets_has_its_option() -> None:
    shown = CliRunner().invoke(app, ["dream", "--help"], env={"COLUMNS": "200"}).output
    assert all(flag in shown for flag in FLAGS.values())


def test_browser_guide_refuses_a_port_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    """``--port 70000`` is Click's one-line usage error naming the option (exit 2), before any
    socket is opened (it was an "unexpected OverflowError" from bind())."""
    with pytest.raises(SystemExit) as exited:
        app(["browser-guide", "--port", "70000"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith("error: Invalid value for '--port'") and "65535" in err, err


def test_browser_guide_refuses_a_busy_port_like_serve(capsys: pytest.CaptureFixture[str]) -> None:
    """A port another process holds is serve's one line naming the address and ``--port``, exit
    code 2 (it was ``[Errno 98] Address already in use`` with exit code 1)."""
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        with pytest.raises(SystemExit) as exited:
            app(["browser-guide", "--port", str(port)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"error: cannot listen on http://127.0.0.1:{port}: "), err
    assert "choose another with --port" in err and "Errno" not in err, err


def test_a_failed_output_leaves_an_existing_file_as_it_was(tmp_path):
    """The output goes to a temporary file beside the target, renamed over it only when the
    command succeeds; on failure that file is removed and the target is untouched."""
    target = tmp_path / "memory.jsonl"
    target.write_text("the previous export\n")
    with pytest.raises(RuntimeError), open_output(target, "--output") as sink:
        sink.write('{"kind": "namespace"}\n')
        raise RuntimeError("Neo4j went away")
    assert target.read_text() == "the previous export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["memory.jsonl"]


def test_a_replaced_output_keeps_its_permissions_and_symlink(tmp_path):
    target = tmp_path / "memory.jsonl"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target.name)
    with open_output(link, "--output") as sink:
        sink.write("new")
    assert link.is_symlink() and target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "memory.jsonl"]


def test_a_fifo_and_a_device_are_written_directly(tmp_path):
    """No temporary file and no rename for what is not a regular file: ``-o /dev/stdout``
    (a device or a pipe) and a FIFO keep working."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    with open_output(fifo, "--output") as sink:
        sink.write("streamed\n")
    reader.join(timeout=10)
    assert received == ["streamed\n"] and stat.S_ISFIFO(fifo.stat().st_mode)
    with open_output(Path("/dev/null"), "--output") as sink:
        sink.write("gone")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_directory_as_output_is_refused(tmp_path):
    with pytest.raises(DatasetError, match=r"cannot write it \(Is a directory\); choose another"):
        with open_output(tmp_path, "--output"):
            pass


def test_stdout_is_told_apart_from_a_file(tmp_path):
    assert is_stdout(None) and is_stdout(Path("-"))
    assert not is_stdout(tmp_path / "memory.jsonl")


def test_written_in_place_is_what_open_output_does_not_replace(tmp_path: Path) -> None:
    """stdout and devices are written as they go (an export checks its namespace first); a
    regular file, new or existing, is replaced once whole; a directory is refused by
    open_output before anything is written."""
    existing = tmp_path / "old.jsonl"
    existing.write_text("x")
    assert written_in_place(None) and written_in_place(Path("-"))
    assert written_in_place(Path("/dev/null"))
    assert not written_in_place(existing) and not written_in_place(tmp_path / "new.jsonl")
    assert not written_in_place(tmp_path)
