"""The LangChain/LangGraph adapters on the real Neo4j: the LangGraph store (put, get, search
with and without a query, namespaces, delete), the retriever, the tools, and the example agent
with a fake chat model (no LLM key), whose runs never share a namespace unless told to."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="the LangChain tests need the `langchain` extra")

from langchain_core.messages import ToolMessage  # noqa: E402

from engrava_graph.core import Neo4jEngravaCore  # noqa: E402
from engrava_graph.graph.executor import GraphExecutor  # noqa: E402
from engrava_graph.integrations.langchain import EngravaRetriever, memory_tools  # noqa: E402
from engrava_graph.integrations.langgraph_store import EngravaStore  # noqa: E402
from engrava_graph.model.errors import Neo4jUnavailableError, ValidationFailedError  # noqa: E402
from examples.langgraph_agent import chat, main, parse, scripted_model  # noqa: E402


async def test_store_put_get_search_namespaces_delete(store: Neo4jEngravaCore) -> None:
    memories = EngravaStore(store)
    await memories.aput(
        ("alice", "facts"), "k1", {"text": "Alice's deploys go out on Tuesdays", "kind": "schedule"}
    )
    await memories.aput(("alice", "facts"), "k2", {"text": "Alice prefers tea to coffee"})
    await memories.aput(("bob", "facts"), "k1", {"text": "Bob deploys on Fridays"})

    item = await memories.aget(("alice", "facts"), "k1")
    assert item is not None and item.value["kind"] == "schedule" and item.key == "k1"
    await memories.aput(("alice", "facts"), "k1", {"text": "Alice deploys on Wednesdays now"})
    assert (await memories.aget(("alice", "facts"), "k1")).value == {  # type: ignore[union-attr]
        "text": "Alice deploys on Wednesdays now"
    }

    found = await memories.asearch(("alice",), query="when does Alice deploy?", limit=2)
    assert found[0].key == "k1" and found[0].namespace == ("alice", "facts")
    assert found[0].score is not None and all(i.namespace[0] == "alice" for i in found)
    listed = await memories.asearch(("bob",))
    assert [(i.namespace, i.key) for i in listed] == [(("bob", "facts"), "k1")]
    assert len(await memories.asearch((), filter={"text": "Alice prefers tea to coffee"})) == 1

    assert await memories.alist_namespaces() == [("alice", "facts"), ("bob", "facts")]
    assert await memories.alist_namespaces(prefix=("bob",)) == [("bob", "facts")]
    assert await memories.alist_namespaces(max_depth=1) == [("alice",), ("bob",)]

    await memories.aput(("bob", "facts"), "k2", {"text": "\u200b", "data": "Bob likes jazz"})
    shown = await store.list_thoughts(filters={"langgraph.key": "k2", "langgraph.ns.0": "bob"})
    assert [t.essence for t in shown] == ["Bob likes jazz"]  # a blank text does not stand for it
    await memories.adelete(("bob", "facts"), "k2")

    await memories.adelete(("bob", "facts"), "k1")
    assert await memories.aget(("bob", "facts"), "k1") is None
    with pytest.raises(NotImplementedError):
        memories.get(("alice", "facts"), "k1")


async def test_store_filters_before_the_page_and_refuses_what_it_cannot_keep(
    store: Neo4jEngravaCore,
) -> None:
    memories = EngravaStore(store)
    for i in range(6):
        await memories.aput(("u1",), f"k{i}", {"text": f"My cat is called Tom ({i})", "kind": "a"})
    await memories.aput(("u1",), "cat", {"text": "What is my cat called? Tom", "kind": "b"})
    # The filter runs before the page is cut: the one "b" item is found with limit 1.
    asked = await memories.asearch(("u1",), query="cat name", filter={"kind": "b"}, limit=1)
    assert [i.key for i in asked] == ["cat"]
    assert [i.key for i in await memories.asearch(("u1",), filter={"kind": "b"}, limit=1)] == [
        "cat"
    ]
    assert len(await memories.asearch(("u1",), limit=2, offset=5)) == 2
    for bad in ({"offset": -1}, {"limit": -1}, {"query": "cat", "offset": 200}):
        with pytest.raises(ValidationFailedError):
            await memories.asearch(("u1",), **bad)
    assert await memories.alist_namespaces(max_depth=1, limit=1) == [("u1",)]
    for bad in ({"offset": -1}, {"limit": -1}, {"max_depth": 0}):  # a tail, nothing, everything
        with pytest.raises(ValidationFailedError, match=next(iter(bad))):
            await memories.alist_namespaces(**bad)
    for value in ("just a string", {"when": object()}, {"x": float("nan")}):
        with pytest.raises(ValidationFailedError, match="value"):
            await memories.aput(("u1",), "odd", value)  # type: ignore[arg-type]
    with pytest.raises(ValidationFailedError):
        await memories.aput(("u1",), "nul\x00key", {"text": "x"})
    assert await memories.aget(("u1",), "odd") is None
    with pytest.raises(ValidationFailedError, match="filter operators"):
        await memories.asearch(("u1",), filter={"kind": {"$eq": "b"}})


async def test_store_items_of_two_namespaces_never_share_a_thought(
    store: Neo4jEngravaCore,
) -> None:
    """A label holding the unit separator that joins an item's name would make one label name
    the items of two; it is refused, and the two-label item stays its own."""
    memories = EngravaStore(store)
    await memories.aput(("team", "alice"), "note", {"text": "Alice's private note"})
    for call in (
        memories.aput(("team\x1falice",), "note", {"text": "Overwriter"}),
        memories.aget(("team\x1falice",), "note"),
    ):
        with pytest.raises(ValidationFailedError, match="U\\+001F"):
            await call
    kept = await memories.aget(("team", "alice"), "note")
    assert kept is not None and kept.value == {"text": "Alice's private note"}


async def test_retriever_and_tools(store: Neo4jEngravaCore) -> None:
    recall_memory, remember = memory_tools(store)
    assert "remembered" in await remember.ainvoke({"text": "The billing DB moved to eu-west"})
    text = await recall_memory.ainvoke({"query": "where is the billing database?"})
    assert text.startswith("Relevant memories") and "eu-west" in text

    documents = await EngravaRetriever(store=store, top_k=3).ainvoke("billing database")
    assert documents[0].page_content == "The billing DB moved to eu-west"
    assert 0 < documents[0].metadata["confidence"] <= 1 and documents[0].metadata["when"]


async def test_tools_answer_refused_input_to_the_model(store: Neo4jEngravaCore) -> None:
    recall_memory, remember = memory_tools(store)
    refused = {
        "empty query": (recall_memory, {"query": ""}, "validation_failed: query: query must not"),
        "long query": (recall_memory, {"query": "x" * 2001}, "at most 2000 characters"),
        "no query": (recall_memory, {}, "validation_failed: query: Field required"),
        "misspelled": (recall_memory, {"query": "x", "topk": 3}, "topk: Extra inputs are not"),
        "extra": (remember, {"text": "x", "source": "me"}, "source: Extra inputs are not"),
        # the text is named as the tool's argument, as the query is (not essence / content)
        "blank text": (remember, {"text": " \u200b "}, "validation_failed: text: text must not"),
        "huge text": (remember, {"text": "y" * 1_000_001}, "validation_failed: text: String"),
        "nul text": (remember, {"text": "a\x00b"}, "validation_failed: text: must not contain"),
    }
    for name, (tool, args, expected) in refused.items():
        answer = await tool.ainvoke(args)
        assert expected in answer and "essence" not in answer and "content" not in answer, name
        if "text: " in expected:  # one failure, given once (not once per field made of it)
            assert answer.count("text:") == 1, answer
        call = {"type": "tool_call", "id": "c1", "name": tool.name, "args": args}
        message = await tool.ainvoke(call)
        assert isinstance(message, ToolMessage) and message.status == "error", name
        assert expected in message.content, name
    assert await store.list_thoughts() == []  # nothing was half-written


async def test_tools_raise_when_neo4j_is_unreachable(store: Neo4jEngravaCore) -> None:
    nowhere = GraphExecutor.connect(
        "bolt://127.0.0.1:1", ("neo4j", "x"), None, max_transaction_retry_time=0.2
    )
    down = Neo4jEngravaCore(
        nowhere, namespace=store.namespace, embedding_provider=store.embedding_provider
    )
    try:
        for tool, args in zip(memory_tools(down), ({"query": "x"}, {"text": "x"}), strict=True):
            with pytest.raises(Neo4jUnavailableError):
                await tool.ainvoke(args)
    finally:
        await nowhere.close()


async def test_example_agent_remembers_across_turns(store: Neo4jEngravaCore) -> None:
    turns = ["My cat is called Miso", "What is my cat called?"]
    states = await chat(store, scripted_model(2), "user-1", turns)
    assert states[0]["memories"] == "No relevant memories."
    assert "My cat is called Miso" in states[1]["memories"]
    assert states[1]["messages"][-1].content.startswith("(scripted answer 2")


async def test_example_runs_do_not_mix_memories(
    provider: Any, connection: Any, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.setenv("NEO4J_URI", connection.uri)
    monkeypatch.setenv("NEO4J_USER", connection.user)
    monkeypatch.setenv("NEO4J_PASSWORD", connection.password)
    first, second = parse(["My cat is called Miso"]), parse(["What is my cat called?"])
    assert first.temporary and second.temporary and first.namespace != second.namespace
    kept = parse(["--namespace", "my-agent", "hello"])
    assert (kept.namespace, kept.temporary, kept.messages) == ("my-agent", False, ["hello"])

    await asyncio.gather(main(first, provider), main(second, provider))
    printed = capsys.readouterr().out
    assert printed.split("> What is my cat called?")[1].split("<")[0].strip() == (
        "No relevant memories."
    )
    checker = Neo4jEngravaCore.from_uri(
        connection.uri, auth=(connection.user, connection.password), namespace=first.namespace
    )
    async with checker:
        for run in (first, second):
            assert not await checker.for_namespace(run.namespace).namespace_exists()
