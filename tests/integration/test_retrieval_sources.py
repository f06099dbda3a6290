"""Where candidates come from (Spread) and what time in the question does (Encode, Decay, Rank),
on a real Neo4j: conversation neighbours, shared entities, session activation, named ranges,
and the README's own example."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engrava_graph.model import EdgeType, ThoughtType
from engrava_graph.retrieval.config import RetrievalConfig
from tests.factories import edge, thought

NOW = datetime(2024, 6, 12, tzinfo=UTC)


def _by_id(explanation):
    return {c.thought_id: c for c in explanation.candidates}


async def test_the_reply_next_to_a_matched_message_arrives_as_a_conversation_neighbour(store):
    stored = await store.add_messages(
        "session_1",
        [
            {"speaker": "Ann", "content": "What do you do to relax after a long week at work?"},
            {"speaker": "Bo", "content": "Mostly pottery: I threw three bowls on Saturday."},
            {"speaker": "Ann", "content": "Nice. Did you see the match yesterday?"},
            {"speaker": "Bo", "content": "No, I was at my sister's wedding."},
        ],
    )
    question, reply = stored[0].thought.thought_id, stored[1].thought.thought_id
    explanation = await store.explain(
        "How does Bo relax after a long week at work?", level="debug", pathway="exact"
    )
    candidates = _by_id(explanation)
    assert f"CONVERSATION from {question}" in candidates[reply].via
    assert candidates[reply].spread > 0
    flat = _by_id(
        await store.explain(
            "How does Bo relax after a long week at work?",
            level="debug",
            pathway="exact",
            spread_depth=0,
        )
    )
    assert all(not c.via and c.spread == 0 for c in flat.values())


async def test_messages_of_a_matched_session_share_its_activation(store):
    await store.add_messages(
        "session_1",
        [
            {"speaker": "Ann", "content": "We are planning the garden this spring."},
            {"speaker": "Bo", "content": "Tomatoes and basil by the south fence."},
        ],
    )
    await store.add_messages(
        "session_2",
        [
            {"speaker": "Ann", "content": "The car needs new tyres before winter."},
        ],
    )
    explanation = await store.explain(
        "What are they planting in the garden this spring?", level="debug", pathway="exact"
    )
    sessions = {c.text: c.session for c in explanation.candidates}
    garden = sessions["Ann: We are planning the garden this spring."]
    assert garden > 0
    assert sessions["Bo: Tomatoes and basil by the south fence."] == garden
    assert sessions.get("Ann: The car needs new tyres before winter.", 0.0) < garden


async def test_a_shared_entity_spreads_to_the_memories_that_mention_it(store):
    seed = await store.create_thought(thought("Priya reviewed the Zanzibar migration plan"))
    rare = await store.create_thought(thought("Zanzibar needs a second database replica"))
    await store.bulk_store([thought(f"Priya wrote status note number {i}") for i in range(12)])
    explanation = await store.explain(
        "Priya reviewed the Zanzibar migration plan", level="debug", pathway="exact"
    )
    candidates = _by_id(explanation)
    assert f"ENTITY from {seed.thought_id}" in candidates[rare.thought_id].via
    assert candidates[rare.thought_id].spread > 0


async def test_an_entity_past_the_fanout_is_not_followed(make_store):
    # "Zanzibar" has 4 mentions, one past the fan-out of 3: no memory arrives through it.
    store = make_store(retrieval_config=RetrievalConfig(max_entity_fanout=3))
    await store.create_thought(thought("Priya reviewed the Zanzibar migration plan"))
    await store.bulk_store([thought(f"Zanzibar replica number {i} is healthy") for i in range(3)])
    explanation = await store.explain(
        "Priya reviewed the Zanzibar migration plan", level="debug", pathway="exact"
    )
    assert not [via for c in explanation.candidates for via in c.via if via.startswith("ENTITY")]


async def test_explain_and_retrieve_name_the_source_of_a_spread_result(store):
    dog = await store.create_thought(thought("Caroline adopted a golden retriever named Max"))
    pie = await store.create_thought(thought("Grandma's apple pie recipe uses cinnamon"))
    await store.create_edge(edge(dog, pie, EdgeType.ASSOCIATED, weight=1.0))
    result = await store.retrieve("Tell me about Caroline's golden retriever", pathway="exact")
    by_id = {r.thought_id: r for r in result}
    assert by_id[pie.thought_id].reached_by == "spread"
    assert by_id[pie.thought_id].via == [f"ASSOCIATED from {dog.thought_id}"]
    assert (
        by_id[dog.thought_id].via == [f"ASSOCIATED from {pie.thought_id}"]
        or not by_id[dog.thought_id].via
    )


async def test_typed_edges_spread_as_many_links_as_spread_depth_asks(store):
    """A chain dog - pie - oven - tiles of ASSOCIATED edges: depth d reaches d links from the
    matched memory (the third link is read only when asked for), and the trace counts them."""
    chain = [
        await store.create_thought(thought(text))
        for text in (
            "Caroline adopted a golden retriever named Max",
            "Grandma's apple pie recipe uses cinnamon",
            "The oven thermostat was replaced in March",
            "Blue tiles were ordered for the bathroom floor",
        )
    ]
    for a, b in zip(chain, chain[1:], strict=False):
        await store.create_edge(edge(a, b, EdgeType.ASSOCIATED, weight=1.0))
    reached = {}
    for depth in (1, 2, 3):
        explanation = await store.explain(
            "Tell me about Caroline's golden retriever",
            level="debug",
            pathway="exact",
            spread_depth=depth,
        )
        reached[depth] = {
            t.thought_id
            for t in chain[1:]
            for c in explanation.candidates
            if c.thought_id == t.thought_id and any(v.startswith("ASSOCIATED") for v in c.via)
        }
    ids = [t.thought_id for t in chain]
    assert reached == {1: set(ids[1:2]), 2: set(ids[1:3]), 3: set(ids[1:4])}
    hops = {c.thought_id: c.hops for c in explanation.candidates}  # depth 3's
    assert [hops[i] for i in ids] == [0, 1, 2, 3]


async def test_a_reflection_spreads_to_its_members_but_does_not_link_them_to_each_other(store):
    """Member -> reflection is one link (the reflection informs); member -> reflection ->
    co-member is not followed: dreaming links co-members by ASSOCIATED at their cosine, and the
    path through the reflection (weight 1.0) crowded out a seed's conversation neighbours."""
    dog = await store.create_thought(thought("Caroline adopted a golden retriever named Max"))
    pie = await store.create_thought(thought("Grandma's apple pie recipe uses cinnamon"))
    summary = await store.create_thought(
        thought("Caroline's pets and family recipes", thought_type=ThoughtType.REFLECTION)
    )
    for member in (dog, pie):
        await store.create_edge(edge(summary, member, EdgeType.CONSOLIDATED_FROM, weight=1.0))
    explanation = await store.explain(
        "Tell me about Caroline's golden retriever", level="debug", pathway="exact", spread_depth=2
    )
    via = {c.thought_id: c.via for c in explanation.candidates}
    assert f"CONSOLIDATED_FROM from {dog.thought_id}" in via[summary.thought_id]
    assert f"CONSOLIDATED_FROM from {dog.thought_id}" not in via.get(pie.thought_id, [])


async def test_last_weeks_memory_beats_an_older_more_similar_one(store):
    older = await store.create_thought(
        thought(
            "What happened with the deploy: the deploy pipeline deploy was slow",
            valid_from=NOW - timedelta(days=40),
        )
    )
    recent = await store.create_thought(
        thought(
            "The release was rolled back after the deploy broke logins",
            valid_from=NOW - timedelta(days=7),
        )
    )
    result = await store.retrieve("what happened last week about the deploy", now=NOW)
    ranked = [r.thought_id for r in result]
    assert ranked.index(recent.thought_id) < ranked.index(older.thought_id)
    explanation = await store.explain("what happened last week about the deploy", now=NOW)
    assert explanation.temporal is not None and explanation.temporal.reference == "last week"


async def test_the_readme_example_finds_the_deployment_window_first_and_confident(store):
    window = await store.remember(
        "The deployment window is Tuesday 2-4pm UTC", metadata={"topic": "deploy"}
    )
    failed = await store.remember("Deploy failed at 3pm")
    cause = await store.remember("Missing env variable")
    await store.create_edge(edge(failed, cause, EdgeType.CAUSED_BY))
    result = await store.retrieve("deploy schedule", top_k=5)
    assert result[0].thought_id == window.thought_id
    assert result[0].confidence >= 0.7
