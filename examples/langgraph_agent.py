"""A LangGraph agent with long-term memory in engrava-graph.

Each turn: recall what the memory holds about the user's message (the retrieval cycle, as prompt
text from ``format_for_prompt``), answer with the chat model, and remember the message. The
graph reaches the memory through LangGraph's store (:class:`EngravaStore`), so any LangGraph
node can ``aput``/``asearch`` it too.

Run it (the shared or local Neo4j, ``NEO4J_*`` in the environment; ``pip install
'engrava-graph[langchain]'``)::

    python examples/langgraph_agent.py "The deploy failed at 3pm" "Why did the deploy fail?"

With no model configured it answers with a scripted fake chat model from langchain-core (no API
key needed); pass your own model to :func:`build_agent` for real answers.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.store.base import BaseStore

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import resolve_connection
from engrava_graph.integrations.langgraph_store import EngravaStore
from engrava_graph.integrations.prompt import format_for_prompt

NAMESPACE = "langgraph-example"
SYSTEM = "You are a helpful assistant. What you remember about this user:\n{memories}"


class State(TypedDict):
    """The conversation and the memory text recalled for the last message."""

    messages: Annotated[list[AnyMessage], add_messages]
    memories: str


def build_agent(model: BaseChatModel, user_id: str) -> Any:
    """The graph ``recall -> answer -> remember`` for one user (compile it with a store).

    Args:
        model: any LangChain chat model.
        user_id: whose memories (the LangGraph namespace ``("memories", user_id)``).
    """
    scope = ("memories", user_id)

    async def recall(state: State, *, store: BaseStore) -> dict[str, Any]:
        assert isinstance(store, EngravaStore)
        question = str(state["messages"][-1].content)
        return {"memories": format_for_prompt(await store.recall(scope, question))}

    async def answer(state: State) -> dict[str, Any]:
        prompt = [SystemMessage(SYSTEM.format(memories=state["memories"])), *state["messages"]]
        return {"messages": [await model.ainvoke(prompt)]}

    async def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        said = next(m for m in reversed(state["messages"]) if isinstance(m, HumanMessage))
        await store.aput(scope, str(uuid.uuid4()), {"text": str(said.content)})
        return {}

    graph = StateGraph(State)
    graph.add_node("recall", recall)
    graph.add_node("answer", answer)
    graph.add_node("remember", remember)
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "answer")
    graph.add_edge("answer", "remember")
    graph.add_edge("remember", END)
    return graph


def scripted_model(turns: int) -> BaseChatModel:
    """A fake chat model (langchain-core) that answers each turn with a fixed line."""
    return GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(f"(scripted answer {i + 1}: pass a real chat model to build_agent)")
                for i in range(turns)
            ]
        )
    )


async def chat(
    store: Neo4jEngravaCore, model: BaseChatModel, user_id: str, messages: list[str]
) -> list[State]:
    """Run one turn per message; the final state of each turn."""
    agent = build_agent(model, user_id).compile(store=EngravaStore(store))
    return [
        await agent.ainvoke({"messages": [HumanMessage(text)], "memories": ""}) for text in messages
    ]


async def main(messages: list[str]) -> None:
    """Talk to the agent on the resolved Neo4j, in the ``langgraph-example`` namespace."""
    info = resolve_connection(start_local=False)
    async with Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        namespace=NAMESPACE,
        embedding_provider=SentenceTransformerProvider(),
    ) as store:
        for text, state in zip(
            messages,
            await chat(store, scripted_model(len(messages)), "example-user", messages),
            strict=True,
        ):
            print(f"> {text}\n{state['memories']}\n< {state['messages'][-1].content}\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:] or ["The deploy failed at 3pm", "Why did the deploy fail?"]))
