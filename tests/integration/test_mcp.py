"""The MCP server through the SDK's own client, on the real Neo4j: over stdio (the CLI command as
a subprocess, as Claude Desktop starts it) and over streamable HTTP behind the API keys: the
tools, the resources (a namespace's recent memories, one thought) and the recall prompt."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP tests need the `mcp` extra")

import httpx2  # noqa: E402 - the SDK's HTTP client, installed with it
import uvicorn  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from api.mcp import http_app  # noqa: E402
from api.settings import ApiKey, ApiSettings  # noqa: E402
from engrava_graph.core import Neo4jEngravaCore  # noqa: E402
from engrava_graph.graph.connection import ConnectionInfo  # noqa: E402
from tests.factories import thought  # noqa: E402

READ_TOOLS = {
    "get_thought",
    "retrieve",
    "explain",
    "search_memory",
    "search_keywords",
    "list_memory",
    "query_memory",
    "memory_stats",
    "get_edges",
    "list_edges",
}
WRITE_TOOLS = {
    "store_thought",
    "update_thought",
    "link_thoughts",
    "delete_thought",
    "delete_edge",
    "dream",
    "add_messages",
}
WRITER_KEY = "writer-key-0123456789"
READER_KEY = "reader-key-0123456789"


def _settings(connection: ConnectionInfo, **extra: Any) -> ApiSettings:
    return ApiSettings(
        neo4j_uri=connection.uri,
        neo4j_user=connection.user,
        neo4j_password=connection.password,
        neo4j_database=connection.database,
        **extra,
    )


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured result."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, f"{tool}: {result.content}"
    assert result.structured_content is not None
    return result.structured_content


async def error_text(client: Client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail; the error's text without the SDK's "Error executing tool
    <name>: " prefix."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} did not fail: {result.structured_content}"
    text = " ".join(getattr(block, "text", "") for block in result.content)
    return text.removeprefix(f"Error executing tool {tool}: ")


async def exercise_every_tool(client: Client, namespace: str) -> None:
    """Call every tool once on an empty ``namespace``, as an agent would."""
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert READ_TOOLS | WRITE_TOOLS <= names

    ids = {}
    for key, essence, when in (
        ("pr", "Config PR removed DATABASE_URL from the billing service", "2026-11-24T14:00Z"),
        ("start", "The billing service could not start", "2026-11-24T14:30Z"),
        ("deploy", "The deploy failed at 3pm", "2026-11-24T15:00Z"),
    ):
        stored = await call(
            client,
            "store_thought",
            essence=essence,
            valid_from=when,
            metadata={"team": "billing"},
            namespace=namespace,
        )
        ids[key] = stored["thought_id"]
    first = await call(
        client,
        "link_thoughts",
        from_thought_id=ids["deploy"],
        to_thought_id=ids["start"],
        edge_type="CAUSED_BY",
        confidence=0.9,
        namespace=namespace,
    )
    await call(
        client,
        "link_thoughts",
        from_thought_id=ids["start"],
        to_thought_id=ids["pr"],
        edge_type="CAUSED_BY",
        confidence=0.8,
        namespace=namespace,
    )

    got = await call(client, "get_thought", thought_id=ids["pr"], namespace=namespace)
    assert got["essence"].startswith("Config PR")
    updated = await call(
        client, "update_thought", thought_id=ids["pr"], priority="P1", namespace=namespace
    )
    assert updated["priority"] == "P1"

    recalled = await call(client, "retrieve", query="why did the deploy fail?", namespace=namespace)
    assert recalled["results"], recalled
    assert recalled["context"].startswith("Relevant memories")
    assert "because:" in recalled["context"]
    explained = await call(
        client, "explain", query="why did the deploy fail?", level="debug", namespace=namespace
    )
    assert explained["candidates"]

    hybrid = await call(client, "search_memory", query_text="billing", namespace=namespace)
    assert {r["thought_id"] for r in hybrid["results"]} >= {ids["pr"], ids["start"]}
    keywords = await call(client, "search_keywords", query="config PR", namespace=namespace)
    assert keywords["results"][0]["thought_id"] == ids["pr"]
    listed = await call(client, "list_memory", limit=10, namespace=namespace)
    assert len(listed["thoughts"]) == 3
    queried = await call(
        client, "query_memory", metadata_filter={"team": "billing"}, namespace=namespace
    )
    assert len(queried["thoughts"]) == 3
    stats = await call(client, "memory_stats", namespace=namespace)
    assert (stats["thoughts"], stats["edges"]) == (3, 2)
    edges = await call(client, "get_edges", thought_id=ids["start"], namespace=namespace)
    assert len(edges["edges"]) == 2
    causal = await call(client, "list_edges", edge_type="CAUSED_BY", namespace=namespace)
    assert len(causal["edges"]) == 2
    chat = [
        {
            "speaker": "Alice",
            "content": "The billing deploy is on Friday",
            "timestamp": "2026-11-20T10:00:00Z",
        },
        {"speaker": "Bob", "content": "I will watch the health checks"},
    ]
    added = await call(
        client, "add_messages", conversation_id="standup", messages=chat, namespace=namespace
    )
    assert (added["messages"], added["created"]) == (2, 2)
    again = await call(
        client, "add_messages", conversation_id="standup", messages=chat, namespace=namespace
    )
    assert (again["created"], again["thought_ids"]) == (0, added["thought_ids"])
    dreamt = await call(client, "dream", cycle=1, namespace=namespace)
    assert dreamt["current_cycle"] == 1

    assert (await call(client, "delete_edge", edge_id=first["edge_id"], namespace=namespace))[
        "deleted"
    ]
    assert (await call(client, "delete_thought", thought_id=ids["deploy"], namespace=namespace))[
        "deleted"
    ]
    assert not (
        await call(client, "delete_thought", thought_id=ids["deploy"], namespace=namespace)
    )["deleted"]

    # errors a model can act on, as MCP tool errors with the REST service's codes
    assert (
        await error_text(client, "get_thought", thought_id="no-such-thought", namespace=namespace)
    ).startswith("thought_not_found")
    assert (
        await error_text(
            client,
            "link_thoughts",
            from_thought_id=ids["pr"],
            to_thought_id="no-such-thought",
            edge_type="CAUSED_BY",
            namespace=namespace,
        )
    ).startswith("unknown_endpoint")
    assert (
        "validation"
        in (await error_text(client, "retrieve", query="x", top_k=500, namespace=namespace)).lower()
    )
    for loose in (True, "3", 5.0):  # not silently read as 1, 3 and 5
        said = await error_text(client, "retrieve", query="x", top_k=loose, namespace=namespace)
        assert "Input should be an integer" in said, said
    for tool, too_big in (
        ("list_memory", {"min_cycle": 2**63}),
        ("list_memory", {"offset": 2**63}),
        ("dream", {"cycle": 2**70}),
    ):  # refused as arguments, before Neo4j (which stores 64-bit integers) sees them
        said = await error_text(client, tool, namespace=namespace, **too_big)
        assert f"less than or equal to {2**63 - 1}" in said, said
    empty = await error_text(
        client, "add_messages", conversation_id="standup", messages=[], namespace=namespace
    )
    assert empty.startswith("validation_failed") and "1-10000 messages" in empty, empty
    for tool, argument in (("search_memory", "query_text"), ("search_keywords", "query")):
        blank = await error_text(client, tool, namespace=namespace, **{argument: " \u200b"})
        assert "visible character" in blank, blank
    nameless = await error_text(client, "retrieve", query="x", namespace="")
    assert nameless.startswith("invalid_namespace"), nameless  # not the server's namespace
    listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    top_k = listed["retrieve"]["properties"]["top_k"]
    assert (top_k["minimum"], top_k["maximum"]) == (1, 100) and "le" not in top_k, top_k
    # An argument a tool does not name is refused, and every schema says so (a misspelled
    # top_k was dropped silently and the call ran on the default).
    assert all(schema["additionalProperties"] is False for schema in listed.values()), listed
    typo = await error_text(client, "retrieve", query="x", topk=3, namespace=namespace)
    assert typo == (
        "validation_failed: topk: unknown argument (did you mean 'top_k'?); retrieve takes "
        "metadata_filter, min_confidence, namespace, now, query, top_k"
    ), typo
    bogus = await error_text(client, "store_thought", essence="x", bogus_field=1)
    assert bogus.startswith("validation_failed: bogus_field: unknown argument; store_thought "), (
        bogus
    )
    # Refused arguments read as one line naming each, never pydantic's text with its link.
    too_many = await error_text(client, "retrieve", query="x", top_k=500, namespace=namespace)
    assert too_many == "validation_failed: top_k: Input should be less than or equal to 100"
    for said in (typo, bogus, too_many):
        assert "errors.pydantic.dev" not in said and "\n" not in said, said
    unaddressable = await error_text(
        client, "store_thought", essence="x", thought_id="notes/today", namespace=namespace
    )
    assert unaddressable.startswith("validation_failed: thought_id"), unaddressable
    blank_id = await error_text(
        client, "store_thought", essence="x", thought_id="", namespace=namespace
    )
    assert blank_id.startswith("validation_failed: thought_id"), blank_id


def _stdio(connection: ConnectionInfo, namespace: str, *flags: str) -> Client:
    env = {
        **os.environ,
        "NEO4J_URI": connection.uri,
        "NEO4J_USER": connection.user,
        "NEO4J_PASSWORD": connection.password,
        "PYTHONPATH": os.getcwd(),
    }
    return Client(
        StdioServerParameters(
            command=sys.executable,
            args=["-m", "engrava_graph.cli", "mcp", "-n", namespace, *flags],
            env=env,
            cwd=os.getcwd(),
        )
    )


@pytest.fixture
async def namespace(make_store: Callable[..., Neo4jEngravaCore]) -> str:
    """A fresh namespace, deleted after the test (the store object is only for the cleanup)."""
    return make_store().namespace


async def test_stdio_every_tool(connection: ConnectionInfo, namespace: str) -> None:
    async with _stdio(connection, namespace) as client:
        await exercise_every_tool(client, namespace)


async def test_stdio_read_only_offers_no_write_tool(
    connection: ConnectionInfo, namespace: str
) -> None:
    async with _stdio(connection, namespace, "--read-only") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert READ_TOOLS <= names and not names & WRITE_TOOLS
        refused = await error_text(client, "store_thought", essence="x")
        assert "store_thought" in refused
        assert (
            await error_text(client, "list_memory", namespace=f"{namespace}-missing")
        ).startswith("namespace_not_found")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def http_url(connection: ConnectionInfo, namespace: str, provider: Any) -> AsyncIterator[str]:
    """The streamable-HTTP server on a free port, a writer key for ``namespace`` and a reader
    key for every namespace."""
    settings = _settings(
        connection,
        api_keys=(
            ApiKey(name="writer", key=WRITER_KEY, namespaces=(namespace,)),
            ApiKey(name="reader", key=READER_KEY, namespaces=("*",), read_only=True),
        ),
    )
    port = _free_port()
    app = http_app(settings, namespace=namespace, read_only=False, provider=provider)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "the MCP HTTP server did not start"
        await asyncio.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    await task


def _http(url: str, key: str | None) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers)))


async def test_http_every_tool(http_url: str, namespace: str) -> None:
    async with _http(http_url, WRITER_KEY) as client:
        await exercise_every_tool(client, namespace)


async def test_http_keys_decide_namespaces_and_writes(http_url: str, namespace: str) -> None:
    async with _http(http_url, WRITER_KEY) as writer:
        await call(writer, "store_thought", essence="a fact")
        assert (await error_text(writer, "list_memory", namespace="someone-else")).startswith(
            "namespace_forbidden"
        )
    async with _http(http_url, READER_KEY) as reader:
        assert len((await call(reader, "list_memory", namespace=namespace))["thoughts"]) == 1
        assert (await error_text(reader, "store_thought", essence="nope")).startswith(
            "read_only_key"
        )
    async with httpx2.AsyncClient() as anonymous:
        for key in (None, "wrong-key-0123456789"):
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            answer = await anonymous.post(
                http_url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            )
            assert answer.status_code == 401
            assert json.loads(answer.text)["error"] == "unauthenticated"


def test_module_names_every_peer_tool() -> None:
    """The peer's 13 tool names are all offered (a user of engrava-mcp finds them)."""
    peer = {
        "store_thought",
        "search_memory",
        "search_keywords",
        "get_thought",
        "list_memory",
        "query_memory",
        "memory_stats",
        "get_edges",
        "list_edges",
        "update_thought",
        "link_thoughts",
        "delete_thought",
        "delete_edge",
    }
    assert peer <= READ_TOOLS | WRITE_TOOLS


async def test_http_resources_and_recall_prompt(
    http_url: str, namespace: str, make_store: Callable[..., Neo4jEngravaCore]
) -> None:
    store = make_store(namespace=namespace)
    older = await store.create_thought(thought("Config PR removed DATABASE_URL from billing"))
    newer = await store.create_thought(thought("The deploy failed at 3pm"))
    async with _http(http_url, WRITER_KEY) as client:
        listed = (await client.list_resource_templates()).resource_templates
        assert {t.uri_template for t in listed} == {
            "memory://{namespace}/recent",
            "memory://{namespace}/thoughts/{thought_id}",
        }
        recent = (await client.read_resource(f"memory://{namespace}/recent")).contents[0]
        lines = recent.text.splitlines()  # type: ignore[union-attr]
        assert newer.thought_id in lines[0] and older.thought_id in lines[1] and len(lines) == 2
        one = await client.read_resource(f"memory://{namespace}/thoughts/{older.thought_id}")
        assert json.loads(one.contents[0].text)["essence"] == older.essence  # type: ignore[union-attr]

        assert [p.name for p in (await client.list_prompts()).prompts] == ["recall_context"]
        prompt = await client.get_prompt("recall_context", {"question": "why did the deploy fail?"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "The deploy failed at 3pm" in text and text.endswith("why did the deploy fail?")

        with pytest.raises(MCPError, match="namespace_forbidden"):
            await client.read_resource("memory://someone-else/recent")
        with pytest.raises(MCPError, match="thought_not_found"):
            await client.read_resource(f"memory://{namespace}/thoughts/no-such-thought")
        with pytest.raises(MCPError, match="namespace_forbidden"):
            await client.get_prompt("recall_context", {"question": "x", "namespace": "other"})
    async with _http(http_url, READER_KEY) as reader:
        with pytest.raises(MCPError, match="namespace_not_found"):
            await reader.read_resource(f"memory://{namespace}x/recent")
