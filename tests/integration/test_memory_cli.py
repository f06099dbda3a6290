"""The daily CLI commands on the real Neo4j, as a person runs them: remember, link, list,
retrieve, namespaces, add-messages, and the export -> delete-namespace -> import round trip (same
counts, same retrieve results). Successes run in-process; failures run the console script in a
subprocess, through its one error boundary (one line, exit code 1 or 2)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from engrava_graph.cli import app, namespace_file
from engrava_graph.cli.memory import open_store
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.model.errors import (
    MigrationError,
    NamespaceNotFoundError,
    Neo4jUnavailableError,
)

NOW = "2026-12-01T12:00:00Z"


@pytest.fixture
def cli(connection: ConnectionInfo) -> Iterator[Any]:
    """Run a command with the connection flags and a fresh namespace; delete it after."""
    namespace = f"cli-{uuid.uuid4().hex[:10]}"
    flags = ["--uri", connection.uri, "--user", connection.user, "--password", connection.password]
    runner = CliRunner()

    def invoke(*args: str, code: int = 0, namespaced: bool = True) -> Any:
        extra = ["-n", namespace] if namespaced else []
        result = runner.invoke(app, [*args, *extra, *flags])
        assert result.exit_code == code, (args, result.output, result.stderr)
        return result

    def fails(*args: str, code: int, with_flags: bool = True) -> str:
        """Run the console script expecting exit ``code``; its one-line stderr."""
        done = subprocess.run(
            [sys.executable, "-m", "engrava_graph.cli", *args, *(flags if with_flags else [])],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        return done.stderr

    invoke.namespace = namespace  # type: ignore[attr-defined]
    invoke.fails = fails  # type: ignore[attr-defined]
    yield invoke
    runner.invoke(app, ["delete-namespace", namespace, "--yes", *flags])


def _json(result: Any) -> Any:
    return json.loads(result.stdout)


def test_export_delete_import_round_trip(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(namespace_file, "_PAGE", 2)  # the thoughts in two pages
    ids = {}
    for key, text in (
        ("pr", "Config PR removed DATABASE_URL from billing"),
        ("start", "The billing service could not start"),
        ("deploy", "The deploy failed at 3pm"),
    ):
        ids[key] = _json(cli("remember", text, "--json"))["thought_id"]
    edge = _json(
        cli(
            "link",
            ids["deploy"],
            ids["start"],
            "--type",
            "CAUSED_BY",
            "--confidence",
            "0.9",
            "--json",
        )
    )
    assert edge["edge_type"] == "CAUSED_BY"
    cli("link", ids["start"], ids["pr"], "--type", "CAUSED_BY", "--confidence", "0.7")
    again = [ids["start"], ids["pr"], "--type", "CAUSED_BY", "-n", cli.namespace]
    conflict = cli.fails("link", *again, "--confidence", "0.8", code=2)
    assert "already exists" in conflict and "--update" in conflict, conflict
    updated = _json(cli("link", *again[:-2], "--confidence", "0.8", "--update", "--json"))
    assert (updated["confidence"], updated["weight"]) == (0.8, 1.0)

    listed = _json(cli("list", "--json"))
    assert {t["thought_id"] for t in listed} == set(ids.values())
    text = cli("retrieve", "why did the deploy fail?", "--now", NOW).stdout
    assert text.startswith("Relevant memories") and "because:" in text
    before = _json(cli("retrieve", "why did the deploy fail?", "--now", NOW, "--json"))

    dump = tmp_path / "memory.jsonl"
    summary = _json(cli("export", "-o", str(dump), "--json"))
    assert (summary["thoughts"], summary["edges"]) == (3, 2)
    rows = _rows(dump)
    assert len(rows) == 1 + 3 + 2 + 1 and rows[-1] == {"kind": "end", "thoughts": 3, "edges": 2}
    cli("delete-namespace", cli.namespace, "--yes", namespaced=False)
    assert "does not exist" in cli.fails("list", "-n", cli.namespace, code=2)
    # An edge to a thought the file lacks: refused before anything is written.
    kept = [r for r in rows if r["kind"] != "thought" or r["thought"]["thought_id"] != ids["pr"]]
    broken = _write(tmp_path / "broken.jsonl", _recounted(kept))
    assert "which no thought line holds" in cli.fails("import", broken, code=2)
    assert "does not exist" in cli.fails("list", "-n", cli.namespace, code=2)
    # An edge line twice (its id repeats): refused before the thoughts are written too.
    repeated = _write(tmp_path / "repeated.jsonl", _recounted([*rows[:-1], rows[-2], rows[-1]]))
    assert "line 7: edge id" in cli.fails("import", repeated, code=2)
    assert "does not exist" in cli.fails("list", "-n", cli.namespace, code=2)
    assert _json(cli("import", str(dump), "--json", namespaced=False)) == {
        "namespace": cli.namespace,
        "thoughts": 3,
        "edges": 2,
    }

    counts = {
        row["namespace"]: row["thoughts"]
        for row in _json(cli("namespaces", "--json", namespaced=False))
    }
    assert counts[cli.namespace] == 3
    after = _json(cli("retrieve", "why did the deploy fail?", "--now", NOW, "--json"))
    assert [(r["thought_id"], r["confidence"]) for r in after["results"]] == [
        (r["thought_id"], r["confidence"]) for r in before["results"]
    ]
    assert after["causal_links"] == before["causal_links"]
    assert "already holds thoughts" in cli.fails("import", str(dump), code=2)


@pytest.fixture
def exported(cli: Any, tmp_path: Path) -> Path:
    """An export of two thoughts and the edge between them; the namespace is deleted after."""
    first = _json(cli("remember", "The deploy failed at 3pm", "--json"))["thought_id"]
    second = _json(cli("remember", "The billing service could not start", "--json"))["thought_id"]
    cli("link", first, second, "--type", "CAUSED_BY")
    dump = tmp_path / "memory.jsonl"
    cli("export", "-o", str(dump))
    cli("delete-namespace", cli.namespace, "--yes", namespaced=False)
    return dump


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _recounted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (an edited export) with the end line's counts made to match them."""
    *body, end = rows
    kinds = [row["kind"] for row in body]
    return [*body, {**end, "thoughts": kinds.count("thought"), "edges": kinds.count("edge")}]


def _write(path: Path, rows: list[Any]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def _on_store(connection: ConnectionInfo, namespace: str, work: Any) -> Any:
    """``await work(store)`` on a store of ``namespace``, from a synchronous test."""

    async def run() -> Any:
        async with open_store(connection, namespace, must_exist=False) as store:
            return await work(store)

    return asyncio.run(run())


def _gone(cli: Any) -> bool:
    """Whether the test's namespace does not exist (nothing of an import is left). In process,
    the runner hands back the exception itself with its own exit code 1; the command line
    turns it into one line and exit code 2 (``cli.fails``)."""
    return isinstance(cli("list", code=1).exception, NamespaceNotFoundError)


def test_an_import_whose_edges_fail_leaves_no_thought(
    cli: Any, exported: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edges that fail after the thoughts were written (here: Neo4j gone for that one write)
    take the thoughts with them: the namespace is as it was, not half-imported."""

    async def unavailable(self: Any, edges: Any, **_: Any) -> Any:
        raise Neo4jUnavailableError("Neo4j went away during the edges")

    monkeypatch.setattr(Neo4jEngravaCore, "bulk_create_edges", unavailable)
    result = cli("import", str(exported), code=1)
    assert isinstance(result.exception, Neo4jUnavailableError), result.exception
    monkeypatch.undo()
    assert _gone(cli)


def test_a_bad_header_is_refused_before_anything_is_written(
    cli: Any, exported: Path, tmp_path: Path, connection: ConnectionInfo
) -> None:
    """Annotations Neo4j or annotate_namespace would refuse, and a header without a namespace,
    are one line naming line 1 and the field; the namespace stays absent, so the good file
    imports afterwards (with its annotations)."""
    header, *rest = _rows(exported)
    cases = {
        "annotations-list": ({"annotations": [1, 2]}, "namespace annotations must be key/value"),
        "annotations-str": ({"annotations": "abc"}, "namespace annotations must be key/value"),
        "empty-key": ({"annotations": {"": 1}}, "annotation key '' must be non-empty"),
        "nul-key": ({"annotations": {"a\u0000": 1}}, "must not contain NUL characters"),
        "nested": ({"annotations": {"a": {"b": 1}}}, "annotation 'a' is a dict"),
    }
    for name, (change, needle) in cases.items():
        bad = _write(tmp_path / f"{name}.jsonl", [{**header, **change}, *rest])
        refused = cli.fails("import", bad, code=2)
        assert refused.startswith("error: line 1: ") and needle in refused, refused
        assert _gone(cli), name
    unnamed = {k: v for k, v in header.items() if k != "namespace"}
    refused = cli.fails("import", _write(tmp_path / "unnamed.jsonl", [unnamed, *rest]), code=2)
    assert "line 1: missing field 'namespace'" in refused, refused
    good = _write(tmp_path / "good.jsonl", [{**header, "annotations": {"source": "trial"}}, *rest])
    assert _json(cli("import", good, "--json", namespaced=False))["thoughts"] == 2
    assert _on_store(connection, cli.namespace, lambda s: s.namespace_annotations()) == {
        "source": "trial"
    }


def test_an_import_failing_at_any_write_leaves_the_namespace_as_it_was(
    cli: Any,
    exported: Path,
    tmp_path: Path,
    connection: ConnectionInfo,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A namespace registered with annotations and no thoughts gets its annotations back and
    no thought when the last write (the file's annotations) fails; when removing what was
    written fails too, the error says how to clean up."""
    _on_store(connection, cli.namespace, lambda s: s.annotate_namespace(team="ops"))
    header, *rest = _rows(exported)
    dump = _write(tmp_path / "annotated.jsonl", [{**header, "annotations": {"source": "x"}}, *rest])
    original = Neo4jEngravaCore.annotate_namespace

    async def failing(self: Any, **annotations: Any) -> None:
        if "source" in annotations:
            raise Neo4jUnavailableError("Neo4j went away during the annotations")
        await original(self, **annotations)

    monkeypatch.setattr(Neo4jEngravaCore, "annotate_namespace", failing)
    result = cli("import", dump, code=1)
    assert isinstance(result.exception, Neo4jUnavailableError), result.exception
    monkeypatch.undo()
    assert _json(cli("list", "--json")) == []
    assert _on_store(connection, cli.namespace, lambda s: s.namespace_annotations()) == {
        "team": "ops"
    }

    async def unavailable(self: Any, *_: Any, **__: Any) -> Any:
        raise Neo4jUnavailableError("Neo4j went away")

    monkeypatch.setattr(Neo4jEngravaCore, "bulk_create_edges", unavailable)
    monkeypatch.setattr(Neo4jEngravaCore, "delete_namespace", unavailable)
    result = cli("import", dump, code=1)
    monkeypatch.undo()
    assert isinstance(result.exception, MigrationError), result.exception
    assert f"delete-namespace {cli.namespace} --yes" in str(result.exception)


def test_errors_are_one_line(cli: Any, tmp_path: Path, connection: ConnectionInfo) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "thought"}\n')
    assert "line 1" in cli.fails("import", str(bad), code=2)
    slashed = tmp_path / "slashed.jsonl"
    slashed.write_text(
        '{"kind": "namespace", "namespace": "x", "format": "engrava-graph/namespace-v1"}\n'
        '{"kind": "thought", "thought": {"thought_id": '
        '"notes/today", "thought_type": "OBSERVATION", "essence": "e", "content": "c", '
        '"source": "s"}}\n'
    )
    refused = cli.fails("import", str(slashed), code=2)
    assert "line 2: invalid thought_id" in refused and "'/'" in refused, refused
    assert "thought_id" in cli.fails("link", "a/b", "c", code=2)
    unknown = cli.fails("link", "ghost", "phantom", code=2)
    assert "'ghost'" in unknown and "do not exist" in unknown, unknown
    wrong = cli.fails(
        "list",
        "-n",
        cli.namespace,
        "--uri",
        connection.uri,
        "--password",
        "wrong-password",
        code=2,
        with_flags=False,
    )
    assert "credentials" in wrong


def test_an_empty_now_and_an_invisible_query_are_one_line(cli: Any) -> None:
    """``--now ""`` is refused like any other bad --now (it does not mean "now"), and a query
    of invisible characters like a blank one."""
    cli("remember", "The deploy window is Tuesday")
    for command in ("retrieve", "explain"):
        refused = cli.fails(command, "deploy", "-n", cli.namespace, "--now", "", code=2)
        assert "invalid now" in refused and "got ''" in refused, refused
    invisible = cli.fails("retrieve", "\u200b\u2060", "-n", cli.namespace, code=2)
    assert "query must not be empty" in invisible, invisible


def test_add_messages_from_a_json_file(cli: Any, tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            {
                "conversation_id": "standup",
                "messages": [
                    {"speaker": "Alice", "content": "The billing deploy is on Friday"},
                    {"speaker": "Bob", "content": "I will watch the health checks"},
                ],
            }
        )
    )
    first = cli("add-messages", str(chat)).stdout
    assert first == "stored 2 messages of 'standup' (2 new)\n", first
    again = _json(cli("add-messages", str(chat), "--json"))
    assert (again["messages"], again["created"]) == (2, 0)
    said = cli("add-messages", str(chat)).stdout
    assert said == "stored 2 messages of 'standup' (0 new, 2 already stored)\n", said
    assert (
        "Alice: The billing deploy is on Friday"
        in cli("retrieve", "when is the deploy?", "--now", NOW).stdout
    )
    chat.write_text(
        json.dumps({"conversation_id": "a/b", "messages": [{"role": "u", "content": "x"}]})
    )
    slashed = cli.fails("add-messages", str(chat), "-n", cli.namespace, code=2)
    assert "invalid conversation_id: must not contain '/'" in slashed, slashed
    chat.write_text("{}")
    assert "missing field 'conversation_id'" in cli.fails(
        "add-messages", str(chat), "-n", cli.namespace, code=2
    )
    missing = cli.fails("add-messages", str(tmp_path / "nope.json"), "-n", cli.namespace, code=2)
    assert "nope.json: cannot read it" in missing


def test_list_shows_the_newest_first_and_namespaces_pipe_as_tab_separated_lines(cli: Any) -> None:
    texts = ["first note", "second note", "third note"]
    for text in texts:
        cli("remember", text)
    listed = cli("list").stdout.splitlines()
    assert listed[0].split("\t") == ["id", "type", "priority", "essence"]
    assert [line.split("\t")[3] for line in listed[1:]] == texts[::-1]
    newest = cli("list", "--limit", "2").stdout.splitlines()[1:]
    assert [line.split("\t")[3] for line in newest] == ["third note", "second note"]
    assert cli("list", "--type", "REFLECTION").stdout.splitlines() == [listed[0]]

    lines = cli("namespaces", namespaced=False).stdout.splitlines()
    assert lines[0] == "namespace\tthoughts"
    assert f"{cli.namespace}\t3" in lines[1:]
    assert all(line.count("\t") == 1 for line in lines), lines


def test_stored_control_characters_reach_the_terminal_escaped(cli: Any) -> None:
    # A memory from a chat can carry terminal escapes; the CLI shows them, never sends them.
    text = "Deploy window\x1b[31m moved\x07 to Friday\x9b2J"
    stored = _json(cli("remember", text, "--json"))
    assert stored["content"] == text  # stored as given; JSON escapes it itself
    for output in (
        cli("retrieve", "deploy window", "--now", NOW).stdout,
        cli("list").stdout,
    ):
        assert "\\x1b[31m moved\\x07" in output, output
        assert not any(c in output for c in "\x1b\x07\x9b"), output
    explained = cli("explain", "deploy window", "--now", NOW).stdout  # a table: wrapped text
    assert "x1b" in explained and not any(c in explained for c in "\x1b\x07\x9b"), explained


def test_spread_depth_and_explain_json(cli: Any) -> None:
    """``--spread-depth`` reaches the cycle in retrieve and explain; ``explain --json`` is the
    whole explanation, one JSON document on stdout."""
    dog = _json(cli("remember", "Caroline adopted a golden retriever named Max", "--json"))
    pie = _json(cli("remember", "Grandma's apple pie recipe uses cinnamon", "--json"))
    cli("link", dog["thought_id"], pie["thought_id"])
    question = ["Tell me about Caroline's golden retriever", "--now", NOW]
    flat = _json(cli("retrieve", *question, "--spread-depth", "0", "--json"))
    assert flat["skipped_phases"]["spread"] == "spread_depth is 0"
    explained = _json(cli("explain", *question, "--spread-depth", "1", "--json"))
    reached = {c["thought_id"]: c for c in explained["candidates"]}
    assert reached[pie["thought_id"]]["via"] == [f"ASSOCIATED from {dog['thought_id']}"]
    too_deep = cli.fails("retrieve", *question, "--spread-depth", "4", "-n", cli.namespace, code=2)
    assert "--spread-depth" in too_deep and "3" in too_deep, too_deep


def test_a_malformed_line_is_refused_before_anything_is_written(
    cli: Any, exported: Path, tmp_path: Path
) -> None:
    """A string embedding, a JSON array for a line, a vector of other dimensions and a thought
    without its id are one line naming the line number and the field; nothing is written."""
    header, first, *rest = _rows(exported)
    nameless = {k: v for k, v in first["thought"].items() if k != "thought_id"}
    cases = {
        "string": ([header, {**first, "embedding": "abc"}, *rest], "line 2: invalid embedding:"),
        "array": ([header, first, [1, 2], *rest], "line 3: expected a JSON object"),
        "no id": ([header, {**first, "thought": nameless}, *rest], "line 2: missing field "),
        "short": ([header, {**first, "embedding": [0.5] * 3}, *rest], "line 2: invalid embedding"),
    }
    for name, (rows, needle) in cases.items():
        refused = cli.fails("import", _write(tmp_path / f"{name}.jsonl", rows), code=2)
        assert needle in refused, refused
        assert _gone(cli), name
    assert "3 numbers where the store's vectors have 384" in refused, refused


def test_repeats_and_dangling_edges_are_refused_naming_their_lines(
    cli: Any, exported: Path, tmp_path: Path
) -> None:
    """A thought line twice, an edge id twice, the same (from, to, type) under another id and
    an edge to a thought no line holds are refused by the reader, naming the lines, not blamed
    on the database (the namespace is new); nothing is written."""
    header, first, second, edge, end = _rows(exported)
    thought_id, link = first["thought"]["thought_id"], edge["edge"]
    edge_id = link["edge_id"]
    renamed = {**edge, "edge": {**edge["edge"], "edge_id": "another"}}
    dangling = {**edge, "edge": {**edge["edge"], "to_thought_id": "ghost"}}
    cases = {
        "thought": (
            [header, first, second, first, edge, end],
            f"line 4: thought id {thought_id!r} also on line 2",
        ),
        "edge id": (
            [header, first, second, edge, edge, end],
            f"line 5: edge id {edge_id!r} also on line 4",
        ),
        "triple": (
            [header, first, second, edge, renamed, end],
            f"line 5: the edge {link['from_thought_id']!r} -[CAUSED_BY]-> "
            f"{link['to_thought_id']!r} also on line 4",
        ),
        "dangling": (
            [header, first, second, dangling, end],
            "line 4: edge ends at thought 'ghost', which no thought line holds",
        ),
    }
    for name, (rows, needle) in cases.items():
        refused = cli.fails("import", _write(tmp_path / f"{name}.jsonl", _recounted(rows)), code=2)
        assert needle in refused, refused
        assert _gone(cli), name


def test_an_empty_namespace_is_refused_not_read_as_the_exported_one(
    cli: Any, exported: Path
) -> None:
    """``import FILE -n ''`` is refused as ``export -n ''`` is; the header's namespace is not
    imported into instead."""
    for command in (["import", str(exported)], ["export"]):
        refused = cli.fails(*command, "-n", "", code=2)
        assert "namespace '' is invalid" in refused, refused
    assert _gone(cli)


def test_a_file_cut_short_is_refused_and_a_v1_file_still_imports(
    cli: Any, exported: Path, tmp_path: Path
) -> None:
    """A file cut at a line boundary (no end line, or fewer lines than it counts) and a
    header-only stub are refused, naming what is missing, and write nothing; a file of the
    first format (v1: no end line) imports as it is."""
    rows = _rows(exported)
    cases = {
        "cut": (rows[:2], "the file ends at line 2 without the end line"),
        "stub": (rows[:1], "the file ends at line 1 without the end line"),
        "lost": ([*rows[:2], *rows[3:]], "line 4: the end line counts 2 thoughts and 1 edge, "),
    }
    for name, (kept, needle) in cases.items():
        refused = cli.fails("import", _write(tmp_path / f"{name}.jsonl", kept), code=2)
        assert needle in refused and "nothing was written" in refused, refused
        assert _gone(cli), name
    v1 = [{**rows[0], "format": "engrava-graph/namespace-v1"}, *rows[1:-1]]
    imported = _json(cli("import", _write(tmp_path / "v1.jsonl", v1), "--json", namespaced=False))
    assert (imported["thoughts"], imported["edges"]) == (2, 1)


def test_a_failed_export_leaves_an_existing_file_as_it_was(
    cli: Any, tmp_path: Path, connection: ConnectionInfo
) -> None:
    """An export refused for a thought edited by hand into an invalid one (exit code 2, the
    thought named) leaves the file it was to replace as it was; written again after the repair,
    the file is replaced."""
    stored = _json(cli("remember", "The deploy failed at 3pm", "--json"))["thought_id"]
    dump = tmp_path / "memory.jsonl"
    cli("export", "-o", str(dump))
    before = dump.read_text()

    async def in_browser(store: Any, statement: str) -> None:
        async with store.executor.driver.session(database=store.executor.database) as session:
            await session.run(
                f"MATCH (t:Thought {{namespace: $ns, thought_id: $id}}) {statement}",
                ns=store.namespace,
                id=stored,
            )

    _on_store(connection, cli.namespace, lambda s: in_browser(s, "SET t.priority = 'URGENT'"))
    refused = cli.fails("export", "-o", str(dump), "-n", cli.namespace, code=2)
    assert stored in refused and "priority" in refused, refused
    assert "nothing was exported" in refused, refused
    assert dump.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["memory.jsonl"]
    _on_store(connection, cli.namespace, lambda s: in_browser(s, "SET t.priority = 'P1'"))
    cli("export", "-o", str(dump))
    assert _rows(dump)[1]["thought"]["priority"] == "P1"


def test_a_file_export_refused_names_every_hand_edited_thought(
    cli: Any, tmp_path: Path, connection: ConnectionInfo
) -> None:
    """A file export is read once and stops at the first invalid thought; the refusal still
    names every one (here two, beside a valid one) and creates no file."""
    cli("remember", "The billing service could not start")
    broken = [
        _json(cli("remember", text, "--json"))["thought_id"]
        for text in ("The deploy failed at 3pm", "The pager went off twice")
    ]

    async def in_browser(store: Any) -> None:
        async with store.executor.driver.session(database=store.executor.database) as session:
            await session.run(
                "MATCH (t:Thought {namespace: $ns}) WHERE t.thought_id IN $ids "
                "SET t.priority = 'URGENT!!'",
                ns=store.namespace,
                ids=broken,
            )

    _on_store(connection, cli.namespace, in_browser)
    dump = tmp_path / "memory.jsonl"
    refused = cli.fails("export", "-o", str(dump), "-n", cli.namespace, code=2)
    assert all(thought_id in refused for thought_id in broken), refused
    assert "nothing was exported" in refused, refused
    assert list(tmp_path.iterdir()) == []


def test_a_hand_edited_thought_is_left_out_of_list_and_refuses_export(
    cli: Any, connection: ConnectionInfo
) -> None:
    """One thought edited by hand into an invalid one: ``list`` shows the others and one
    warning line naming it; ``export`` (to stdout too) writes nothing and names it (exit 2)."""
    kept = _json(cli("remember", "The billing service could not start", "--json"))["thought_id"]
    broken = _json(cli("remember", "The deploy failed at 3pm", "--json"))["thought_id"]

    async def in_browser(store: Any) -> None:
        async with store.executor.driver.session(database=store.executor.database) as session:
            await session.run(
                "MATCH (t:Thought {namespace: $ns, thought_id: $id}) SET t.priority = 'URGENT!!'",
                ns=store.namespace,
                id=broken,
            )

    _on_store(connection, cli.namespace, in_browser)
    assert [t["thought_id"] for t in _json(cli("list", "--json"))] == [kept]
    warning = cli.fails("list", "-n", cli.namespace, code=0)
    assert warning.startswith("warning: left out 1 thought not valid") and broken in warning
    assert "priority" in warning and "PATCH" in warning, warning
    refused = cli.fails("export", "-n", cli.namespace, code=2)
    assert broken in refused and "priority" in refused and "nothing was exported" in refused
    in_process = cli("export", code=1)  # the runner's own code for the exception
    assert isinstance(in_process.exception, ValueError) and in_process.stdout == ""
