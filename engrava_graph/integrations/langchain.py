"""LangChain adapters (the ``langchain`` extra): a retriever and tools over the memory.

- :class:`EngravaRetriever`: a LangChain retriever; each ``Document`` is one memory (its essence
  as ``page_content``; id, confidence, when, causal links in ``metadata``).
- :func:`memory_tools`: ``recall_memory`` (the retrieval cycle, answered as
  :func:`~engrava_graph.integrations.prompt.format_for_prompt` text) and ``remember`` (store a
  fact), for a tool-calling agent.

Async only (``ainvoke``): the Neo4j driver is asynchronous and bound to its event loop.
"""

from __future__ import annotations

from datetime import UTC, datetime

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import ConfigDict, Field

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.integrations.prompt import format_for_prompt, when
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


def memory_tools(store: Neo4jEngravaCore, *, top_k: int = 5) -> list[BaseTool]:
    """``recall_memory(query)`` and ``remember(text)`` as LangChain tools over ``store``.

    Args:
        store: the memory store (its namespace is used).
        top_k: memories ``recall_memory`` returns.

    Returns:
        The two tools (async: call them with ``ainvoke``).
    """

    async def recall_memory(query: str) -> str:
        """Recall what the long-term memory holds about a question: memories with when they
        happened, how confident the recall is, and why (causal links)."""
        response = await store.retrieve(query, top_k=top_k, now=datetime.now(UTC))
        return format_for_prompt(response)

    async def remember(text: str) -> str:
        """Store a fact or an event in the long-term memory for later recall."""
        stored = await store.remember(text, source="agent")
        return f"remembered ({stored.thought_id})"

    return [
        StructuredTool.from_function(coroutine=recall_memory, name="recall_memory"),
        StructuredTool.from_function(coroutine=remember, name="remember"),
    ]
