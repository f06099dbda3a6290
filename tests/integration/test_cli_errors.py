"""The console script never shows a traceback (issue 15, items 7 and 8): every failure is one
``error:`` line on stderr with exit code 2 for a usage or configuration problem (credentials, a
URI the driver does not take, a database that does not exist, a bad option, an embedding model
that cannot be loaded, a busy port) and 1 otherwise.

Each case runs the real command in its own process against the real Neo4j, all of them
concurrently (each process spends most of its time importing).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from typing import Any

import neo4j
import pytest

from tests.factories import thought

CJK_QUESTION = "记" * 1100


async def _cli(*args: str, **env: str) -> tuple[int, str, str]:
    """Run ``python -m engrava_graph.cli ARGS`` with ``env`` over the current environment."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "engrava_graph.cli",
        *args,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def _assert_one_line(result: tuple[int, str, str], code: int, *needles: str) -> None:
    returncode, out, err = result
    assert "Traceback" not in out + err, err
    assert returncode == code, (returncode, err)
    lines = _error_lines(err)
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]


#: Neo4j locks a user out for a few seconds (``dbms.security.auth_lock_time``, 5 s) after
#: ``auth_max_failed_attempts`` (3) wrong logins in a row; the tests that log in wrongly wait it
#: out, so the next test's correct login is not refused.
AUTH_LOCK_WAIT_SECONDS = 15.0


@pytest.fixture
async def auth_restored(connection: Any) -> AsyncIterator[None]:
    """After the test, wait until the test server accepts the right password again."""
    yield
    driver = neo4j.AsyncGraphDatabase.driver(
        connection.uri, auth=(connection.user, connection.password)
    )
    try:
        deadline = asyncio.get_running_loop().time() + AUTH_LOCK_WAIT_SECONDS
        while True:
            try:
                await driver.verify_connectivity()
                return
            except neo4j.exceptions.ClientError as exc:
                if "AuthenticationRateLimit" not in (exc.code or ""):
                    raise
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.5)
    finally:
        await driver.close()


@pytest.fixture
def neo4j_env(connection: Any) -> dict[str, str]:
    """The NEO4J_* variables of the test server."""
    return {
        "NEO4J_URI": connection.uri,
        "NEO4J_USER": connection.user,
        "NEO4J_PASSWORD": connection.password,
    }


@pytest.mark.usefixtures("auth_restored")
async def test_no_command_shows_a_traceback(make_store, neo4j_env, tmp_path):
    store = make_store()
    await store.create_thought(thought("记录会议的决定"))
    ns = store.namespace
    wrong_password = {**neo4j_env, "NEO4J_PASSWORD": "not-the-password"}
    http_uri = {**neo4j_env, "NEO4J_URI": "http://127.0.0.1:7474"}
    no_database = {**neo4j_env, "NEO4J_DATABASE": "nosuchdb"}
    port = _free_ports(1)[0]
    nobody = {**neo4j_env, "NEO4J_URI": f"bolt://127.0.0.1:{port}"}
    no_route = {**neo4j_env, "NEO4J_URI": f"neo4j://127.0.0.1:{port}"}
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    unwritable = str(a_file / "out")  # its parent is a file
    cases = {
        "explain-cjk": _cli("explain", CJK_QUESTION, "-n", ns, **neo4j_env),
        "explain-password": _cli("explain", "hello", "-n", ns, **wrong_password),
        "explain-http": _cli("explain", "hello", "-n", ns, **http_uri),
        "explain-database": _cli("explain", "hello", "-n", ns, **no_database),
        "dream-http": _cli("dream", "-n", ns, "-c", "1", **http_uri),
        "dream-database": _cli("dream", "-n", ns, "-c", "1", **no_database),
        "dream-settings": _cli(
            "dream", "-n", ns, "-c", "1", "--min-size", "9", "--max-size", "4", **neo4j_env
        ),
        "migrate-dimensions": _cli("migrate", "--dimensions", "0", **neo4j_env),
        "migrate-unreachable": _cli("migrate", **nobody),
        "migrate-no-route": _cli("migrate", **no_route),
        "explain-html": _cli("explain", "hello", "-n", ns, "--html", unwritable, **neo4j_env),
        "export-output": _cli("export", "-n", ns, "-o", unwritable, **neo4j_env),
        "explain-full": _cli("explain", "hello", "-n", ns, "--html", "/dev/full", **neo4j_env),
        "export-full": _cli("export", "-n", ns, "-o", "/dev/full", **neo4j_env),
    }
    results = dict(zip(cases, await asyncio.gather(*cases.values()), strict=True))

    cjk_code, cjk_out, cjk_err = results["explain-cjk"]
    assert "Traceback" not in cjk_out + cjk_err, cjk_err
    if cjk_code != 0:  # a library failure is one line too (the term cap itself is the search's)
        _assert_one_line(results["explain-cjk"], 1)
    _assert_one_line(results["explain-password"], 2, "NEO4J_PASSWORD")
    _assert_one_line(results["explain-http"], 2, "NEO4J_URI", "'http'")
    _assert_one_line(results["explain-database"], 2, "NEO4J_DATABASE", "nosuchdb")
    _assert_one_line(results["dream-http"], 2, "NEO4J_URI")
    _assert_one_line(results["dream-database"], 2, "NEO4J_DATABASE")
    _assert_one_line(results["dream-settings"], 2, "--max-size", "--min-size")
    _assert_one_line(results["migrate-unreachable"], 1, "not reachable", "NEO4J_URI")
    assert "retrying" not in results["migrate-unreachable"][2]  # no retries logged before it
    _assert_one_line(results["migrate-no-route"], 1, "not reachable")
    assert results["migrate-no-route"][2].strip().count("\n") == 0, results["migrate-no-route"]
    _assert_one_line(results["explain-html"], 2, unwritable, "--html")
    _assert_one_line(results["export-output"], 2, unwritable, "--output")
    full = "/dev/full: cannot write it (No space left on device)"  # not a usage error: 1
    _assert_one_line(results["explain-full"], 1, full)
    _assert_one_line(results["export-full"], 1, full)
    code, out, err = results["migrate-dimensions"]
    assert code == 2 and "--dimensions" in err and "Traceback" not in out + err, err


@pytest.fixture
def busy_port() -> Any:
    """A loopback port held by a listening socket for the test."""
    with socket.create_server(("127.0.0.1", 0)) as held:
        yield held.getsockname()[1]


#: serve / mcp options for a start that must be refused: no .env file, the port given next.
_REFUSING = ("--insecure-dev", "--env-file", "/nonexistent/.env", "--port")


async def test_serve_refuses_a_missing_model_and_a_busy_port_in_one_paragraph(neo4j_env, busy_port):
    config = neo4j_env
    missing_model, busy = await asyncio.gather(
        _cli(
            "serve",
            *_REFUSING,
            "1",
            ENGRAVA_EMBEDDING_MODEL_PATH="/nonexistent/model",
            **config,
        ),
        _cli(
            "serve",
            *_REFUSING,
            str(busy_port),
            **config,
        ),
    )

    _assert_one_line(missing_model, 2, "ENGRAVA_EMBEDDING_MODEL_PATH", "/nonexistent/model")
    _assert_one_line(busy, 2, f"127.0.0.1:{busy_port}", "--port")
    assert "API on" not in busy[1]  # the address is printed only for a port it can take


def _free_ports(n: int) -> list[str]:
    """``n`` ports that were free a moment ago (for servers that must refuse to start)."""
    ports = []
    for _ in range(n):
        with socket.create_server(("127.0.0.1", 0)) as probe:
            ports.append(str(probe.getsockname()[1]))
    return ports


@pytest.mark.usefixtures("auth_restored")
async def test_servers_refuse_wrong_credentials_in_one_line_before_starting(neo4j_env):
    wrong_password = {**neo4j_env, "NEO4J_PASSWORD": "not-the-password"}
    free = _free_ports(2)
    serve, mcp_http = await asyncio.gather(
        _cli(
            "serve",
            *_REFUSING,
            free[0],
            **wrong_password,
        ),
        _cli(
            "mcp",
            "--transport",
            "http",
            *_REFUSING,
            free[1],
            **wrong_password,
        ),
    )
    _assert_one_line(serve, 2, "NEO4J_PASSWORD")
    _assert_one_line(mcp_http, 2, "NEO4J_PASSWORD")
    assert "API on" not in serve[1] and "MCP on" not in mcp_http[2]


async def test_servers_refuse_a_missing_database_in_one_line_before_starting(neo4j_env):
    missing = {**neo4j_env, "NEO4J_DATABASE": "nosuchdatabase"}
    free = _free_ports(2)
    serve, mcp_http = await asyncio.gather(
        _cli("serve", *_REFUSING, free[0], **missing),
        _cli("mcp", "--transport", "http", *_REFUSING, free[1], **missing),
    )
    _assert_one_line(serve, 2, "NEO4J_DATABASE")
    _assert_one_line(mcp_http, 2, "NEO4J_DATABASE")
    assert "API on" not in serve[1] and "MCP on" not in mcp_http[2]
