"""The MCP server: the memory's tools for agents (Claude Desktop, Claude Code, Cursor, ...).

Built with the official ``mcp`` SDK's :class:`MCPServer` (FastMCP before mcp 2). The tools of the
peer's ``engrava-mcp`` keep their names and arguments where they mean the same thing here
(``store_thought``, ``search_memory``, ``search_keywords``, ``get_thought``, ``list_memory``,
``query_memory``, ``memory_stats``, ``get_edges``, ``list_edges``, ``update_thought``,
``link_thoughts``, ``delete_thought``, ``delete_edge``), so a user of the peer switches without
relearning; ``retrieve``, ``explain``, ``dream`` and ``add_messages`` are this memory's own.
``query_memory`` takes a metadata filter (the peer's takes a MindQL ``FIND`` query, which this
memory does not have).

Every tool takes an optional ``namespace`` (default: the server's). On streamable HTTP
(served by :mod:`api.mcp`) the caller's API key (``Authorization: Bearer``, the REST service's
keys and rules) decides which namespaces it may use and whether it may write; over stdio the
local user may use every namespace. With ``read_only`` the write tools are not registered at all
(as in the peer). A tool refuses an argument it does not name (:mod:`engrava_graph.mcp.strict`).
A failure the caller can act on comes back as an MCP tool error (``isError``) whose text starts
with the REST service's error code, e.g. ``thought_not_found: no thought 'x'``. The resources
and the prompt are in :mod:`engrava_graph.mcp.context`; the rights and the error mapping in
:mod:`engrava_graph.mcp.access`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field
from pydantic_core import to_jsonable_python

from engrava_graph.integrations.messages import added_messages
from engrava_graph.integrations.prompt import format_for_prompt
from engrava_graph.mcp.access import StoreSource, tool_errors
from engrava_graph.mcp.context import register_prompts, register_resources
from engrava_graph.mcp.strict import StrictTools
from engrava_graph.model.bounds import Count, Cycle, no_loose_numbers
from engrava_graph.model.enums import (
    EdgeDirection,
    EdgeType,
    LifecycleStatus,
    Priority,
    ThoughtType,
)
from engrava_graph.model.errors import (
    ThoughtNotFoundError,
)
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.records import EdgeRecord, ThoughtRecord
from engrava_graph.retrieval.request import QueryText, RetrieveRequest

SERVER_NAME = "engrava-graph"
DEFAULT_TOP_K = 10
DEFAULT_LIST_LIMIT = 50

_READ = ToolAnnotations(readOnlyHint=True)
_CREATE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False)
_UPDATE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True)
_DELETE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True)

Namespace = Annotated[
    str | None, Field(description="The memory (namespace) to use; default: the server's namespace.")
]
_INT = no_loose_numbers(int)
_FLOAT = no_loose_numbers(float)
# The bounds come before the number check, so that the tool schemas publish them as JSON
# Schema's minimum/maximum (after it, pydantic would publish its own "ge"/"le").
TopK = Annotated[int, Field(ge=1, le=100, description="How many results, 1-100."), _INT]
Unit = Annotated[float, Field(ge=0.0, le=1.0), _FLOAT]
CycleArg = Annotated[Cycle, _INT]
Offset = Annotated[Count, _INT]
SearchText = Annotated[
    QueryText, Field(description="The search text (at least one visible character).")
]  # refused when blank, as retrieve's query is (it used to find nothing, silently)
ListLimit = Annotated[int, Field(ge=1, le=1000), _INT]
EdgeLimit = Annotated[int, Field(ge=1, le=5000), _INT]


INSTRUCTIONS = (
    "A long-term memory on a Neo4j thought graph. Use `retrieve` to recall what is relevant to a "
    "question (its `context` field is ready to put in a prompt), `store_thought` to remember "
    "something, `link_thoughts` with CAUSED_BY/LEADS_TO to record why something happened, and "
    "`explain` to see how a recall was reached. Every tool takes an optional `namespace`."
)


def _thought(record: ThoughtRecord) -> dict[str, Any]:
    return record.model_dump(mode="json")


def _edge(record: EdgeRecord) -> dict[str, Any]:
    return record.model_dump(mode="json")


def _scored(hits: Sequence[tuple[str, float]]) -> list[dict[str, Any]]:
    return [{"thought_id": thought_id, "score": score} for thought_id, score in hits]


def build_server(
    stores: StoreSource, *, read_only: bool = False, has_add_messages: bool = True
) -> MCPServer:
    """The MCP server over the stores of ``stores``.

    Args:
        stores: the stores and the caller check.
        read_only: register only the read tools (the write tools are not advertised).
        has_add_messages: register ``add_messages`` (storing conversations).

    Returns:
        The server; run it with ``run_stdio_async()`` or serve ``streamable_http_app()``
        (see :mod:`api.mcp`).
    """
    tools = StrictTools()
    _register_reads(tools, stores)
    if not read_only:
        _register_writes(tools, stores)
        if has_add_messages:
            _register_add_messages(tools, stores)
    server = MCPServer(
        SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING", tools=tools.built
    )
    register_resources(server, stores)
    register_prompts(server, stores)
    return server


def _register_reads(tools: StrictTools, stores: StoreSource) -> None:  # noqa: C901 - one tool each
    @tools.tool(annotations=_READ)
    async def get_thought(
        thought_id: str, ctx: Context, namespace: Namespace = None
    ) -> dict[str, Any]:
        """Fetch one thought by its id (all its fields)."""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            record = await store.get_thought(thought_id)
            if record is None:
                raise ThoughtNotFoundError(thought_id)
            return _thought(record)

    @tools.tool(annotations=_READ)
    async def retrieve(
        query: str,
        ctx: Context,
        top_k: TopK = DEFAULT_TOP_K,
        namespace: Namespace = None,
        min_confidence: Unit = 0.0,
        metadata_filter: dict[str, Any] | None = None,
        now: Annotated[
            str | None,
            Field(description="The clock, ISO 8601 (default: now, UTC); resolves 'last Tuesday'."),
        ] = None,
    ) -> dict[str, Any]:
        """Recall the memories relevant to a question with the retrieval cycle (meaning,
        keywords, time and causal links). `context` is the results as prompt text; `results`
        has each memory's id, text, confidence and causal links."""
        async with tool_errors():
            request = RetrieveRequest.build(
                query=query,
                top_k=top_k,
                min_confidence=min_confidence,
                metadata_filter=metadata_filter,
                now=datetime.now(UTC) if now is None else now,  # "" is refused
            )
            store = await stores.store(ctx, namespace)
            response = await store.retrieve(**request.model_dump(exclude_unset=True))
            answer = response.model_dump(
                mode="json", include={"results", "pathway", "intent", "causal_links"}
            )
            return {"context": format_for_prompt(response), **answer}

    @tools.tool(annotations=_READ)
    async def explain(
        query: str,
        ctx: Context,
        top_k: TopK = DEFAULT_TOP_K,
        namespace: Namespace = None,
        level: Annotated[str, Field(pattern="^(summary|debug)$")] = "summary",
    ) -> dict[str, Any]:
        """Run the retrieval cycle for a question and show how it decided: intent, entities,
        pathway, candidate counts, timings (ms); at level 'debug' every candidate's signals and
        the step that dropped it."""
        async with tool_errors():
            request = RetrieveRequest.build(query=query, top_k=top_k, now=datetime.now(UTC))
            store = await stores.store(ctx, namespace)
            explanation = await store.explain(level=level, **request.model_dump(exclude_unset=True))
            return explanation.model_dump(mode="json")

    @tools.tool(annotations=_READ)
    async def search_memory(
        query_text: SearchText,
        ctx: Context,
        top_k: TopK = DEFAULT_TOP_K,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Hybrid ranked search (keywords + vector + recency + priority), as the peer's
        search_memory. Returns thought ids with scores; use `retrieve` for the full cycle."""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            found = await store.search_hybrid(query_text, top_k=top_k)
            return {"results": _scored(found.results), "backends_used": sorted(found.backends_used)}

    @tools.tool(annotations=_READ)
    async def search_keywords(
        query: SearchText, ctx: Context, top_k: TopK = DEFAULT_TOP_K, namespace: Namespace = None
    ) -> dict[str, Any]:
        """Full-text (Lucene BM25) keyword search. Returns thought ids with scores."""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            hits = await store.search_fts(query, top_k)
            return {"results": _scored(hits)}

    @tools.tool(annotations=_READ)
    async def list_memory(
        ctx: Context,
        thought_type: ThoughtType | None = None,
        lifecycle_status: LifecycleStatus | None = None,
        priority: Priority | None = None,
        min_cycle: CycleArg | None = None,
        max_cycle: CycleArg | None = None,
        include_expired: bool = False,
        limit: ListLimit = DEFAULT_LIST_LIMIT,
        offset: Offset = 0,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """List thoughts by type, lifecycle status, priority and cycle range, unranked, ordered
        by id, with limit/offset paging."""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            rows = await store.list_thoughts(
                thought_type=thought_type,
                lifecycle_status=lifecycle_status,
                priority=priority,
                min_cycle=min_cycle,
                max_cycle=max_cycle,
                include_expired=include_expired,
                limit=limit,
                offset=offset,
            )
            return {"thoughts": [_thought(t) for t in rows]}

    @tools.tool(annotations=_READ)
    async def query_memory(
        metadata_filter: dict[str, Any],
        ctx: Context,
        thought_type: ThoughtType | None = None,
        limit: ListLimit = DEFAULT_LIST_LIMIT,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Structured query: the thoughts whose metadata matches every entry of
        `metadata_filter` ({"path": value or [values]}, dotted paths), optionally of one type.
        (The peer's query_memory takes MindQL; this memory filters on metadata instead.)"""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            rows = await store.list_thoughts(
                thought_type=thought_type,
                filters=MetadataFilter.from_mapping(metadata_filter),
                limit=limit,
            )
            return {"thoughts": [_thought(t) for t in rows]}

    @tools.tool(annotations=_READ)
    async def memory_stats(ctx: Context, namespace: Namespace = None) -> dict[str, Any]:
        """Counts of the namespace: thoughts by type, and edges."""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            by_type = {t.value: await store.count_thoughts(thought_type=t) for t in ThoughtType}
            edges = await store.list_edges(limit=100_000)
            return {
                "namespace": store.namespace,
                "thoughts": sum(by_type.values()),
                "thoughts_by_type": by_type,
                "edges": len(edges),
                "highest_cycle": await store.max_cycle(),
            }

    @tools.tool(annotations=_READ)
    async def get_edges(
        thought_id: str,
        ctx: Context,
        direction: EdgeDirection = EdgeDirection.BOTH,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """A thought's edges (OUT, IN or BOTH), oldest first."""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            return {
                "edges": [_edge(e) for e in await store.get_edges(thought_id, direction=direction)]
            }

    @tools.tool(annotations=_READ)
    async def list_edges(
        ctx: Context,
        edge_type: EdgeType | None = None,
        limit: EdgeLimit = 500,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Edges of the namespace, optionally of one type, oldest first."""
        async with tool_errors():
            store = await stores.store(ctx, namespace)
            return {
                "edges": [
                    _edge(e) for e in await store.list_edges(edge_type=edge_type, limit=limit)
                ]
            }


def _register_writes(tools: StrictTools, stores: StoreSource) -> None:  # noqa: C901
    @tools.tool(annotations=_CREATE)
    async def store_thought(
        essence: str,
        ctx: Context,
        content: str | None = None,
        thought_type: ThoughtType = ThoughtType.NOTE,
        priority: Priority = Priority.P3,
        source: str = "agent",
        confidence: Unit | None = None,
        metadata: dict[str, Any] | None = None,
        valid_from: Annotated[str | None, Field(description="When it happened, ISO 8601.")] = None,
        thought_id: str | None = None,
        deduplicate: bool = False,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Remember something: a thought with its essence (a short line) and optional full
        content (default: the essence). Creates the namespace on its first thought. Returns the
        stored thought."""
        async with tool_errors():
            fields: dict[str, Any] = {
                "essence": essence,
                "content": content or essence,
                "thought_type": thought_type,
                "priority": priority,
                "source": source,
                "confidence": confidence,
                "metadata": metadata or {},
                "valid_from": valid_from,
            }
            if thought_id is not None:  # a blank one is refused, not replaced by a new id
                fields["thought_id"] = thought_id
            record = ThoughtRecord.model_validate(
                {k: v for k, v in fields.items() if v is not None}
            )
            store = await stores.store(ctx, namespace, write=True, create=True)
            return _thought(await store.create_thought(record, deduplicate=deduplicate))

    @tools.tool(annotations=_UPDATE)
    async def update_thought(
        thought_id: str,
        ctx: Context,
        essence: str | None = None,
        content: str | None = None,
        priority: Priority | None = None,
        lifecycle_status: LifecycleStatus | None = None,
        confidence: Unit | None = None,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Change the given fields of a thought (the others stay); returns the new version."""
        async with tool_errors():
            changes = {
                k: v
                for k, v in {
                    "essence": essence,
                    "content": content,
                    "priority": priority,
                    "lifecycle_status": lifecycle_status,
                    "confidence": confidence,
                }.items()
                if v is not None
            }
            store = await stores.store(ctx, namespace, write=True)
            return _thought(await store.update_thought(thought_id, **changes))

    @tools.tool(annotations=_CREATE)
    async def link_thoughts(
        from_thought_id: str,
        to_thought_id: str,
        edge_type: EdgeType,
        ctx: Context,
        weight: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0,
        confidence: Unit | None = None,
        edge_id: str | None = None,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Link two existing thoughts with a typed edge. CAUSED_BY points from the effect to its
        cause, LEADS_TO from a cause to its effect; `confidence` is how sure the link is."""
        async with tool_errors():
            fields: dict[str, Any] = {
                "from_thought_id": from_thought_id,
                "to_thought_id": to_thought_id,
                "edge_type": edge_type,
                "weight": weight,
                "confidence": confidence,
            }
            if edge_id:
                fields["edge_id"] = edge_id
            record = EdgeRecord.model_validate(fields)
            store = await stores.store(ctx, namespace, write=True)
            return _edge(await store.create_edge(record))

    @tools.tool(annotations=_DELETE)
    async def delete_thought(
        thought_id: str, ctx: Context, namespace: Namespace = None
    ) -> dict[str, Any]:
        """Delete a thought and its edges; `deleted` is false when there was none."""
        async with tool_errors():
            store = await stores.store(ctx, namespace, write=True)
            return {"deleted": await store.delete_thought(thought_id)}

    @tools.tool(annotations=_DELETE)
    async def delete_edge(
        edge_id: str, ctx: Context, namespace: Namespace = None
    ) -> dict[str, Any]:
        """Delete an edge; `deleted` is false when there was none."""
        async with tool_errors():
            store = await stores.store(ctx, namespace, write=True)
            return {"deleted": await store.delete_edge(edge_id)}

    @tools.tool(annotations=_UPDATE)
    async def dream(
        cycle: Annotated[
            CycleArg,
            Field(
                description=(
                    "The cognitive cycle to dream at (the agent's own clock, e.g. its turn "
                    "or session count)."
                ),
            ),
        ],
        ctx: Context,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Consolidate: cluster similar thoughts into reflections (one dreaming pass)."""
        async with tool_errors():
            store = await stores.store(ctx, namespace, write=True)
            result = await store.consolidate(cycle)
            return to_jsonable_python(result)


def _register_add_messages(tools: StrictTools, stores: StoreSource) -> None:
    @tools.tool(annotations=_UPDATE)
    async def add_messages(
        conversation_id: str,
        messages: list[dict[str, Any]],
        ctx: Context,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Store a conversation's messages ({content, speaker or role, timestamp?, message_id?}),
        one observation each, in order; re-sending the same messages adds nothing."""
        async with tool_errors():
            store = await stores.store(ctx, namespace, write=True, create=True)
            return added_messages(await store.add_messages(conversation_id, messages))
