"""A LangGraph agent with long-term memory in engrava-graph.

Each turn: recall what the memory holds about the user's message (the retrieval cycle, as prompt
text from ``format_for_prompt``), answer with the chat model, and remember the message. The
graph reaches the memory through LangGraph's store (:class:`EngravaStore`), so any LangGraph
node can ``aput``/``asearch`` it too.

Run it (the shared or local Neo4j, ``NEO4J_*`` in the environment; ``pip install
'engrava-graph[langchain]'``)::

    python examples/langgraph_agent.py "The deploy failed at 3pm" "Why did the deploy fail?"
    python examples/langgraph_agent.py --namespace my-agent "My cat is called Miso"

Without ``--namespace`` each run writes into a namespace of its own (``langgraph-example-`` and a
random suffix) and deletes it at the end, so runs, concurrent or not, never mix memories; with
``--namespace NAME`` the memory is kept, and the next run with the same name continues it.

With no model configured it answers with a scripted fake chat model from langchain-core (no API
key needed); pass your own model to :func:`build_agent` for real answers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.store.base import BaseStore

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings import EmbeddingProvider, SentenceTransformerProvider
from engrava_graph.graph.connection import resolve_connection
from engrava_graph.integrations.langgraph_store import EngravaStore
from engrava_graph.integrations.prompt import format_for_prompt

NAMESPACE_PREFIX = "langgraph-example"
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


@dataclass(frozen=True)
class Run:
    """The example's command line: the messages, and the namespace they go to.

    Attributes:
        messages: one turn each.
        namespace: the store's namespace.
        temporary: True when the namespace was made up for this run (deleted at its end).
    """

    messages: list[str]
    namespace: str
    temporary: bool


def parse(argv: list[str]) -> Run:
    """Read the command line (``[--namespace NAME] [MESSAGE ...]``)."""
    parser = argparse.ArgumentParser(description="A LangGraph agent with engrava-graph memory.")
    parser.add_argument(
        "--namespace",
        help="Keep the memory in this namespace (default: a new one "
        "for this run, deleted at its end).",
    )
    parser.add_argument("messages", nargs="*", help="The user's messages, one turn each.")
    args = parser.parse_args(argv)
    messages = args.messages or ["The deploy failed at 3pm", "Why did the deploy fail?"]
    if args.namespace:
        return Run(messages, args.namespace, temporary=False)
    return Run(messages, f"{NAMESPACE_PREFIX}-{uuid.uuid4().hex[:12]}", temporary=True)


async def main(run: Run, embedding_provider: EmbeddingProvider | None = None) -> None:
    """Talk to the agent on the resolved Neo4j, in ``run``'s namespace (a temporary one is
    deleted at the end, also after a failure).

    Args:
        run: the command line.
        embedding_provider: the model to embed with (default: the bundled all-MiniLM-L6-v2).
    """
    info = resolve_connection(start_local=False)
    async with Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        namespace=run.namespace,
        embedding_provider=embedding_provider or SentenceTransformerProvider(),
    ) as store:
        print(f"namespace {run.namespace!r}" + (" (deleted at the end)" if run.temporary else ""))
        try:
            states = await chat(
                store, scripted_model(len(run.messages)), "example-user", run.messages
            )
            for text, state in zip(run.messages, states, strict=True):
                print(f"> {text}\n{state['memories']}\n< {state['messages'][-1].content}\n")
        finally:
            if run.temporary and await store.namespace_exists():
                await store.delete_namespace()


if __name__ == "__main__":
    asyncio.run(main(parse(sys.argv[1:])))
