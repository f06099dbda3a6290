"""Phases 4 (over the pool), 5, 7 and 8 in Cypher (retrieval/_rank and retrieval/_walk), run
through retrieval/rank on pools the tests write themselves: each candidate's keyword score and
cosine are given, so its direct similarity is known; the signals, the composite and the
near-duplicate walk come back from the server."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.registry import cypher
from engrava_graph.model import Priority, ThoughtType
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.retrieval import phases
from engrava_graph.retrieval.candidates import SIGNAL_ROW
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.scoring import DEFAULT_WEIGHTS, RankWeights
from engrava_graph.retrieval.types import Pathway, TemporalRange
from tests.factories import thought

DIMENSIONS = 384
ONLY_RELEVANCE = RankWeights(
    similarity=1.0, temporal=0.0, causal=0.0, importance=0.0, access_frequency=0.0
)


def at_angle(degrees: float) -> list[float]:
    """A unit vector in the plane of the first two axes: cosines between two of them are the
    cosines of their angle difference."""
    v = [0.0] * DIMENSIONS
    v[0], v[1] = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return v


async def stored(store: Neo4jEngravaCore, angles: dict[str, float], **fields: object) -> None:
    for name, degrees in angles.items():
        await store.create_thought(
            thought(f"memory {name}", thought_id=name, **fields), embedding=at_angle(degrees)
        )


def inputs(**changes: Any) -> phases.RankingInputs:
    values: dict[str, Any] = {
        "weights": ONLY_RELEVANCE,
        "axis": None,
        "now": None,
        "recency": None,
        "decay_rate": 0.05,
        "temporal": None,
        "spreading": True,
        "need": 10,
        "trace": True,
    }
    return phases.RankingInputs(**(values | changes))


async def element_ids(store: Neo4jEngravaCore, ids: list[str]) -> dict[str, str]:
    """The element ids the cycle's main read gives ``ids`` (each a keyword hit)."""
    deps = store._cycle.deps
    scope = deps.retrievable(include_archived=True, filters=MetadataFilter(), now=None)
    profile = deps.config.profiles[Pathway.EXACT]
    activation = await phases.prepare_activation(deps, profile, 0, scope, inputs())
    ranking = await phases.activate(deps, activation, dict.fromkeys(ids, 1.0), [], None)
    return {tid: c.fields.element_id for tid, c in ranking.pool.items() if c.fields}


async def rank(
    store: Neo4jEngravaCore,
    pool: dict[str, dict[str, Any]],
    ranking: phases.RankingInputs | None = None,
    config: RetrievalConfig | None = None,
    *,
    has_vector: bool = True,
    **params: Any,
) -> dict[str, Any]:
    """Run retrieval/rank on ``pool`` ({thought_id: what differs from an activated candidate
    with keyword 0, no cosine, no arrivals}); ``params`` replace statement parameters."""
    known = await element_ids(store, list(pool))
    entries = [
        {
            "element_id": known.get(tid, "4:none:0"),
            "thought_id": tid,
            "keyword": 0.0,
            "cosine": None,
            "activated": True,
            "reached_by": "activation",
            "hops": 0,
            "arrivals": [],
            "causal": 0.0,
        }
        | entry
        for tid, entry in pool.items()
    ]
    line = await server_line(store.executor)
    rows = await store.executor.read(
        cypher("retrieval/rank", line.dialect),
        namespace=store.namespace,
        pool=entries,
        **(
            (ranking or inputs()).params(config or RetrievalConfig())
            | {"has_vector": has_vector}
            | params
        ),
    )
    return rows[0]


def signals(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every traced candidate's signal row as a map, by thought id."""
    return {row[0][0]: dict(zip(SIGNAL_ROW, row[0], strict=True)) for row in result["trace"]}


def order(result: dict[str, Any]) -> list[str]:
    return [row[0][0] for row in result["trace"]]


# ----------------------------------------------------------------- Phase 4 over the pool


async def messages(store: Neo4jEngravaCore, conversation: str, count: int) -> list[str]:
    stored = await store.add_messages(
        conversation, [{"speaker": "Ann", "content": f"message {i}"} for i in range(count)]
    )
    return [m.thought.thought_id for m in stored]


async def test_a_message_takes_the_best_neighbour_similarity_within_the_window(store):
    s1 = await messages(store, "s1", 8)
    (s2,) = await messages(store, "s2", 1)
    question, reply, far, other = s1[4], s1[5], s1[7], s2
    config = RetrievalConfig(vector_share=1.0, conversation_window=2, neighbour_decay=0.5)
    result = await rank(
        store,
        {
            question: {"cosine": 0.8},
            reply: {"cosine": 0.1},
            far: {"cosine": 0.2},
            other: {"cosine": 0.9},
        },  # fmt: skip
        config=config,
    )
    by_id = signals(result)
    assert math.isclose(by_id[reply]["spread"], 0.8)  # the adjacent question, weight 1
    assert math.isclose(by_id[far]["spread"], 0.05)  # the reply two positions away, weight 0.5
    assert math.isclose(by_id[question]["spread"], 0.1)
    assert [question, "CONVERSATION", pytest.approx(0.8)] in by_id[reply]["links"]
    assert by_id[other]["spread"] == 0.0


async def test_a_neighbour_that_arrived_from_spreading_links_once(store):
    seed, reply = await messages(store, "s1", 2)
    arrived = [[seed, "CONVERSATION", 0.6]]
    result = await rank(
        store,
        {
            seed: {"cosine": 0.6},
            reply: {"activated": False, "reached_by": "spread", "hops": 1, "arrivals": arrived},
        },  # fmt: skip
        config=RetrievalConfig(vector_share=1.0),
    )
    row = signals(result)[reply]
    assert row["arrivals"] == arrived and not any(link[0] == seed for link in row["links"])


async def test_the_session_signal_is_the_mean_of_its_best_matches(store):
    s1 = await messages(store, "s1", 5)
    (alone,) = await messages(store, "s2", 1)
    config = RetrievalConfig(vector_share=1.0, session_top=2, conversation_window=0)
    pool = {tid: {"cosine": cos} for tid, cos in zip(s1[:3], (0.9, 0.5, 0.1), strict=True)}
    pool[s1[4]] = {"cosine": 0.0, "activated": False, "reached_by": "spread", "hops": 1}
    pool[alone] = {"cosine": 0.4}
    await store.create_thought(thought("a note", thought_id="note"), embedding=at_angle(0))
    pool["note"] = {"cosine": 0.9}
    by_id = signals(await rank(store, pool, config=config))
    assert all(math.isclose(by_id[tid]["session"], 0.7) for tid in (*s1[:3], s1[4]))
    assert math.isclose(by_id[alone]["session"], 0.2) and by_id["note"]["session"] == 0.0
    assert by_id[s1[4]]["links"] == [["s1", "SESSION", pytest.approx(0.7)]]


async def test_without_spreading_there_is_no_neighbour_link_or_session(store):
    question, reply = await messages(store, "s1", 2)
    result = await rank(
        store,
        {question: {"cosine": 0.8}, reply: {"cosine": 0.1}},
        inputs(spreading=False),
        RetrievalConfig(vector_share=1.0),
    )
    assert all(r["spread"] == 0.0 and r["session"] == 0.0 for r in signals(result).values())


# --------------------------------------------------------------------- Phases 5 and 7


async def test_relevance_is_a_weighted_mean_of_own_spread_and_session(store):
    question, reply = await messages(store, "s1", 2)
    config = RetrievalConfig(vector_share=1.0, spread_gain=0.5, session_gain=0.5, session_top=1)
    by_id = signals(await rank(store, {question: {"cosine": 0.6}, reply: {"cosine": 0.2}},
                               config=config))  # fmt: skip
    row = by_id[reply]  # spread 0.6 (the question next to it), session 0.6 (its best match)
    assert math.isclose(row["relevance"], (0.2 + 0.5 * 0.6 + 0.5 * 0.6) / 2.0)
    assert math.isclose(row["composite"], row["relevance"])  # only relevance weighs


async def test_a_memory_outside_the_named_range_is_marked_and_penalised(store):
    await store.create_thought(
        thought("inside", thought_id="in", valid_from=datetime(2024, 5, 8, tzinfo=UTC))
    )
    await store.create_thought(
        thought("outside", thought_id="out", valid_from=datetime(2024, 4, 1, tzinfo=UTC))
    )
    week = TemporalRange(
        reference="last week",
        direction="within",
        start=datetime(2024, 5, 6, tzinfo=UTC),
        end=datetime(2024, 5, 13, tzinfo=UTC),
    )
    ranking = inputs(axis="access", now=datetime(2024, 5, 15, tzinfo=UTC), temporal=week)
    result = await rank(store, {"in": {"keyword": 0.5}, "out": {"keyword": 0.5}}, ranking)
    by_id = signals(result)
    assert by_id["in"]["in_range"] is True and by_id["in"]["temporal"] == 1.0
    assert by_id["out"]["in_range"] is False and by_id["out"]["temporal"] < 0.5
    factor = RetrievalConfig().outside_range_factor
    assert math.isclose(by_id["out"]["composite"], by_id["out"]["relevance"] * factor)
    assert order(result) == ["in", "out"]


async def test_decay_ages_a_memory_from_its_last_access_else_from_when_it_happened(store):
    now = datetime(2024, 1, 2, tzinfo=UTC)
    await store.create_thought(thought("old", thought_id="old", valid_from=now - timedelta(366)))
    await store.create_thought(thought("new", thought_id="new", valid_from=now - timedelta(1)))
    await store.create_thought(
        thought(
            "recalled",
            thought_id="recalled",
            valid_from=now - timedelta(366),
            last_accessed_at=now - timedelta(days=1),
        )  # fmt: skip
    )
    await store.create_thought(
        thought("pinned", thought_id="pinned", valid_from=now - timedelta(366), pinned=True)
    )
    pool = {tid: {} for tid in ("old", "new", "recalled", "pinned")}
    by_id = signals(await rank(store, pool, inputs(axis="access", now=now, decay_rate=0.05)))
    assert math.isclose(by_id["new"]["temporal"], 1 / (1 + 1 * 0.05))
    assert math.isclose(by_id["old"]["temporal"], 1 / (1 + 366 * 0.05))
    assert math.isclose(by_id["recalled"]["temporal"], by_id["new"]["temporal"])
    assert by_id["pinned"]["temporal"] == 1.0
    # Without a clock nothing decays: temporal relevance is 0 for every memory.
    assert all(r["temporal"] == 0.0 for r in signals(await rank(store, pool)).values())


async def test_importance_access_frequency_and_the_composite(store):
    await store.create_thought(thought("p1", thought_id="p1", priority=Priority.P1, confidence=1.0))
    await store.create_thought(thought("p4", thought_id="p4", priority=Priority.P4, confidence=0.0))
    await store.create_thought(thought("p2", thought_id="p2", priority=Priority.P2, access_count=3))
    by_id = signals(await rank(store, {"p1": {}, "p4": {}, "p2": {"keyword": 1.0}},
                               inputs(weights=DEFAULT_WEIGHTS), has_vector=False))  # fmt: skip
    assert by_id["p1"]["importance"] == 1.0 and by_id["p4"]["importance"] == 0.0
    assert math.isclose(by_id["p2"]["importance"], 0.7 * 0.6 + 0.3 * 0.5)
    assert math.isclose(by_id["p2"]["access_frequency"], math.log(4) / math.log(11))
    p2 = by_id["p2"]
    expected = 0.35 * p2["relevance"] + 0.15 * p2["importance"] + 0.10 * p2["access_frequency"]
    assert math.isclose(p2["composite"], expected)


async def test_a_causal_candidate_keeps_its_relevance_and_no_conversation_links(store):
    question, reply = await messages(store, "s1", 2)
    result = await rank(
        store,
        {
            question: {"cosine": 0.8},
            reply: {"activated": False, "reached_by": "cause", "hops": 1, "causal": 1.5},
        },  # fmt: skip
        inputs(weights=DEFAULT_WEIGHTS),
        RetrievalConfig(vector_share=1.0),
    )
    row = signals(result)[reply]
    assert row["causal"] == 1.0 and row["spread"] == 0.0 and row["session"] == 0.0
    assert row["reached_by"] == "cause" and row["activation"] == 0.0


# ------------------------------------------------------------------------- Phase 8


async def walk(store: Neo4jEngravaCore, ids: list[str], need: int, **params: Any):
    """Rank ``ids`` in the given order (decreasing keyword scores) and walk them."""
    pool = {tid: {"keyword": 1.0 - i / 100} for i, tid in enumerate(ids)}
    return await rank(store, pool, inputs(need=need), has_vector=False, need=need, **params)


async def test_a_near_duplicate_is_dropped_for_the_kept_one_above_it(store: Neo4jEngravaCore):
    # a ~ b (15 degrees: cosine 0.966) and b ~ c, but a and c are 30 degrees apart (0.866):
    # b goes for a, and c stays, as its only twin above it was dropped.
    await stored(store, {"a": 0, "b": 15, "c": 30, "d": 90})
    result = await walk(store, ["a", "b", "c", "d"], need=10, reflection_window=1)
    assert [row[0][0] for row in result["kept"]] == ["a", "c", "d"]
    assert result["dropped"] == [{"thought_id": "b", "twin": "a"}]
    assert result["scanned"] == 4 and result["rest"] == [] and result["ranked"] == 4


async def test_the_walk_stops_at_the_first_boundary_where_the_results_are_settled(
    store: Neo4jEngravaCore,
):
    await stored(store, {"a": 0, "b": 40, "c": 80, "d": 81, "e": 82, "f": 120})
    ids = ["a", "b", "c", "d", "e", "f"]
    result = await walk(store, ids, need=2, reflection_window=2, walk_first=1)
    kept = [row[0][0] for row in result["kept"]]
    assert kept == ["a", "b"] and result["scanned"] == 2
    assert [r[0] for r in result["rest"]] == ["c", "d", "e", "f"]
    # Stopping points 3, 6: settled after 2, so it walks on to 3.
    result = await walk(store, ids, need=2, reflection_window=2, walk_first=3)
    assert [row[0][0] for row in result["kept"]] == ["a", "b", "c"] and result["scanned"] == 3
    # d and e (1 degree from c) go; the walk ends with the list.
    result = await walk(store, ids, need=5, reflection_window=2)
    assert [row[0][0] for row in result["kept"]] == ["a", "b", "c", "f"]
    assert result["scanned"] == 6 and [d["twin"] for d in result["dropped"]] == ["c", "c"]


async def test_a_memory_deleted_before_the_ranking_is_left_out(store: Neo4jEngravaCore):
    await stored(store, {"a": 0, "b": 40, "c": 80})
    result = await walk(store, ["a", "gone", "b", "c"], need=1, reflection_window=1)
    assert result["ranked"] == 3 and "gone" not in order(result)


async def test_reflections_over_the_cap_do_not_fill_the_window(store: Neo4jEngravaCore):
    await stored(store, {"r1": 0, "r2": 40}, thought_type=ThoughtType.REFLECTION)
    await stored(store, {"a": 80, "b": 120, "c": 160})
    ids = ["r1", "r2", "a", "b", "c"]
    # need 2, window 3, cap 1: r1, r2, a fill the window with only 2 (r2 moves below it).
    result = await walk(store, ids, need=2, reflection_window=3, walk_first=1)
    assert [row[0][0] for row in result["kept"]] == ["r1", "r2", "a", "b"]
    # With a cap of 2 they fill it at the stopping point 3.
    result = await walk(store, ids, need=2, reflection_cap=2, reflection_window=3, walk_first=3)
    assert [row[0][0] for row in result["kept"]] == ["r1", "r2", "a"]


async def test_a_memory_without_an_embedding_is_never_a_near_duplicate(
    store: Neo4jEngravaCore, make_store
):
    await stored(store, {"a": 0})
    unembedded = make_store(namespace=store.namespace, embedding_provider=None)
    await unembedded.create_thought(thought("memory a", thought_id="plain"))
    assert await store.get_embedding("plain") is None
    result = await walk(store, ["a", "plain"], need=5)
    assert [row[0][0] for row in result["kept"]] == ["a", "plain"] and result["dropped"] == []


async def test_nothing_to_walk(store: Neo4jEngravaCore):
    result = await walk(store, [], need=3)
    assert result["kept"] == [] and result["dropped"] == [] and result["ranked"] == 0
