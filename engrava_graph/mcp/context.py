"""The MCP server's resources and prompts: what a client can attach to a conversation besides
calling tools.

Resources (templates; the caller's rights as for the tools):

- ``memory://{namespace}/recent``: the namespace's newest thoughts (up to
  :data:`RECENT_LIMIT`), one line each: when it was stored, the essence, type and id;
- ``memory://{namespace}/thoughts/{thought_id}``: one thought with all its fields (JSON).

Prompts:

- ``recall_context(question, namespace?)``: runs the retrieval cycle for the question and gives
  one user message with the relevant memories as prompt text (``format_for_prompt``) and the
  question, ready to send to the model.

A failure the client can act on (a namespace or thought that does not exist, a key that may not
use the namespace) is an MCP error whose message starts with the REST service's error code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from engrava_graph.integrations.prompt import format_for_prompt, stamp
from engrava_graph.mcp.access import StoreSource, tool_errors
from engrava_graph.model.errors import ThoughtNotFoundError
from engrava_graph.model.records import ThoughtRecord

RECENT_LIMIT = 20
RECALL_TOP_K = 8
EMPTY_NAMESPACE = "No memories yet."


@asynccontextmanager
async def _errors(kind: type[Exception]) -> AsyncIterator[None]:
    """The tools' error text (``"<code>: <message>"``) raised as ``kind``, which the SDK passes
    to the client as is (any other exception would reach it as a bare "Error reading ...")."""
    try:
        async with tool_errors():
            yield
    except ToolError as error:
        if kind is MCPError:
            raise MCPError(INVALID_PARAMS, str(error)) from error
        raise kind(str(error)) from error


def recent_lines(thoughts: list[ThoughtRecord]) -> str:
    """``- [2026-11-24 15:00 UTC] The deploy failed at 3pm (OBSERVATION, id …)`` per thought,
    newest first; :data:`EMPTY_NAMESPACE` for none."""
    if not thoughts:
        return EMPTY_NAMESPACE
    return "\n".join(
        f"- [{stamp(t.created_at)}] {t.essence} ({t.thought_type.value}, id {t.thought_id})"
        for t in thoughts
    )


def register_resources(server: MCPServer, stores: StoreSource) -> None:
    """Add the memory's resource templates to ``server``."""

    @server.resource(
        "memory://{namespace}/recent",
        name="recent_memories",
        description=f"The namespace's {RECENT_LIMIT} newest memories, one line each.",
        mime_type="text/plain",
    )
    async def recent_memories(namespace: str, ctx: Context) -> str:
        async with _errors(ResourceError):
            store = await stores.store(ctx, namespace)
            return recent_lines(await store.recent_thoughts(RECENT_LIMIT))

    @server.resource(
        "memory://{namespace}/thoughts/{thought_id}",
        name="thought",
        description="One memory (thought) with all its fields.",
        mime_type="application/json",
    )
    async def thought(namespace: str, thought_id: str, ctx: Context) -> str:
        async with _errors(ResourceError):
            store = await stores.store(ctx, namespace)
            record = await store.get_thought(thought_id)
            if record is None:
                raise ThoughtNotFoundError(thought_id)
            return record.model_dump_json()


def register_prompts(server: MCPServer, stores: StoreSource) -> None:
    """Add the memory's prompts to ``server``."""

    @server.prompt(
        name="recall_context",
        description="The memories relevant to a question, as context for answering it.",
    )
    async def recall_context(
        question: str, ctx: Context, namespace: str | None = None
    ) -> list[UserMessage]:
        async with _errors(MCPError):
            store = await stores.store(ctx, namespace)
            response = await store.retrieve(question, top_k=RECALL_TOP_K, now=datetime.now(UTC))
        return [
            UserMessage(
                f"What you remember (from the memory, namespace {store.namespace!r}):\n"
                f"{format_for_prompt(response)}\n\nUsing what is relevant above, answer: "
                f"{question}"
            )
        ]
