"""LangChain adapters (the ``langchain`` extra): a retriever and tools over the memory.

- :class:`EngravaRetriever`: a LangChain retriever; each ``Document`` is one memory (its essence
  as ``page_content``; id, confidence, when, causal links in ``metadata``).
- :func:`memory_tools`: ``recall_memory`` (the retrieval cycle, answered as
  :func:`~engrava_graph.integrations.prompt.format_for_prompt` text) and ``remember`` (store a
  fact), for a tool-calling agent. A call the memory refuses (an empty or oversized query, a
  misspelled or missing argument) answers the model ``"<code>: <message>"`` as the tool's
  output (LangChain's ``handle_tool_error`` / ``handle_validation_error``), so the agent loop
  goes on; a failure of the memory itself (Neo4j unreachable) raises.

Async only (``ainvoke``): the Neo4j driver is asynchronous and bound to its event loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.integrations.prompt import format_for_prompt, when
from engrava_graph.model.error_codes import error_code
from engrava_graph.model.errors import EngravaGraphError, ValidationFailedError
from engrava_graph.retrieval.results import RetrievedMemory

_ASYNC_ONLY = "the memory is async-only: use ainvoke (the Neo4j driver is asynchronous)"


def memory_document(memory: RetrievedMemory) -> Document:
    """A retrieved memory as a LangChain ``Document``."""
    moment = when(memory)
    return Document(
        page_content=memory.text,
        id=memory.thought_id,
        metadata={
            "thought_id": memory.thought_id,
            "confidence": memory.confidence,
            "when": moment.isoformat() if moment else None,
            "thought_type": memory.thought_type,
            "reached_by": memory.reached_by,
            "causal_links": [link.model_dump(mode="json") for link in memory.causal_links],
        },
    )


class RecallArgs(BaseModel):
    """The arguments of ``recall_memory``; any other argument is refused (a misspelled
    ``topk`` is not dropped for the default)."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(description="The question (1-2000 characters).")


class RememberArgs(BaseModel):
    """The arguments of ``remember``; any other argument is refused."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="The fact or event to remember.")


class EngravaRetriever(BaseRetriever):
    """Retrieve memories with the retrieval cycle.

    Attributes:
        store: the memory store (its namespace is searched).
        top_k: memories per query, 1-100.
        min_confidence: drop memories below this confidence, in [0, 1].
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: Neo4jEngravaCore
    top_k: int = Field(default=5, ge=1, le=100)
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        raise NotImplementedError(_ASYNC_ONLY)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        response = await self.store.retrieve(
            query, top_k=self.top_k, min_confidence=self.min_confidence, now=datetime.now(UTC)
        )
        return [memory_document(m) for m in response.results]


@contextmanager
def refusals() -> Iterator[None]:
    """Raise a library error the caller can act on (a 4xx of
    :mod:`~engrava_graph.model.error_codes`) as a ``ToolException`` ``"<code>: <message>"``,
    e.g. ``"validation_failed: query: ..."``; the memory's own failures (5xx, such as
    ``Neo4jUnavailableError``) and any other exception propagate unchanged."""
    try:
        yield
    except EngravaGraphError as error:
        status, code = error_code(error)
        if status >= 500:
            raise
        raise ToolException(f"{code}: {error}") from error


def refused_arguments(error: Exception) -> str:
    """The tool output for arguments that fail the tool's schema (LangChain's
    ``handle_validation_error``): ``"validation_failed: query: Field required"``."""
    if isinstance(error, ValidationError):  # LangChain's type also admits pydantic v1's
        error = ValidationFailedError.from_pydantic(error)
    return f"validation_failed: {error}"


def memory_tools(store: Neo4jEngravaCore, *, top_k: int = 5) -> list[BaseTool]:
    """``recall_memory(query)`` and ``remember(text)`` as LangChain tools over ``store``.

    A refused call returns ``"<code>: <message>"`` to the model as the tool's output (a
    ``ToolMessage`` with ``status="error"`` when invoked with a tool call): an argument the tool
    does not name (``validation_failed: topk: Extra inputs are not permitted``: the
    ``args_schema``, :class:`RecallArgs` / :class:`RememberArgs`, forbids extra fields) or misses
    (``validation_failed: query: Field required``), an empty, blank or over-2000-character query,
    a blank text.

    Args:
        store: the memory store (its namespace is used).
        top_k: memories ``recall_memory`` returns.

    Returns:
        The two tools (async: call them with ``ainvoke``).

    Raises (from the tools):
        Neo4jUnavailableError, EmbeddingError, ...: the memory itself failed (5xx); these are
            not the model's to fix and stop the agent loop.
    """

    async def recall_memory(query: str) -> str:
        """Recall what the long-term memory holds about a question: memories with when they
        happened, how confident the recall is, and why (causal links)."""
        with refusals():
            response = await store.retrieve(query, top_k=top_k, now=datetime.now(UTC))
        return format_for_prompt(response)

    async def remember(text: str) -> str:
        """Store a fact or an event in the long-term memory for later recall."""
        with refusals():
            stored = await store.remember(text, source="agent")
        return f"remembered ({stored.thought_id})"

    return [
        StructuredTool.from_function(
            coroutine=function,
            name=function.__name__,
            args_schema=schema,
            handle_tool_error=True,
            handle_validation_error=refused_arguments,
        )
        for function, schema in ((recall_memory, RecallArgs), (remember, RememberArgs))
    ]
