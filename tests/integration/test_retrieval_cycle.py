"""The retrieval cycle on a real Neo4j: each phase's effect is visible in retrieve / explain."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from engrava_graph.graph.executor import RoundTrips
from engrava_graph.model import (
    EdgeType,
    Priority,
    RecencyModeConflictError,
    ValidationFailedError,
)
from engrava_graph.retrieval.results import PHASES
from tests.factories import edge, thought

NOW = datetime(2024, 6, 2, tzinfo=UTC)


async def test_a_memory_reachable_only_by_spreading_is_returned(store):
    dog = await store.create_thought(thought("Caroline adopted a golden retriever named Max"))
    pie = await store.create_thought(thought("Grandma's apple pie recipe uses cinnamon"))
    await store.create_thought(thought("The quarterly budget review is on Friday"))
    await store.create_edge(edge(dog, pie, EdgeType.ASSOCIATED, weight=1.0))
    result = await store.retrieve(
        "Tell me about Caroline's golden retriever", pathway="exact", top_k=10
    )
    by_id = {r.thought_id: r for r in result}
    assert result[0].thought_id == dog.thought_id
    assert by_id[pie.thought_id].reached_by == "spread"
    without = await store.retrieve(
        "Tell me about Caroline's golden retriever", pathway="exact", spread_depth=0
    )
    assert pie.thought_id not in {r.thought_id for r in without}


@pytest.fixture
async def outage(store):
    deploy = thought("Deploy failed at 3pm", content="The 3pm deploy failed to start")
    env = thought("Missing env variable DATABASE_URL")
    pr = thought("Config PR merged at 2:45pm")
    lunch = thought("The team had pizza for lunch")
    await store.bulk_store([deploy, env, pr, lunch])
    await store.create_edge(edge(deploy, env, EdgeType.CAUSED_BY, confidence=0.9))
    await store.create_edge(edge(pr, env, EdgeType.LEADS_TO, confidence=0.8))
    return deploy, env, pr, lunch


async def test_a_causal_query_returns_the_chain_of_causes_in_order(store, outage):
    deploy, env, pr, _ = outage
    result = await store.retrieve("What caused the deploy failure at 3pm?", now=NOW)
    assert result.intent.value == "causal"
    ids = [r.thought_id for r in result]
    assert ids.index(env.thought_id) < ids.index(pr.thought_id)
    top = result[0]
    assert top.thought_id == deploy.thought_id
    chain = [
        (link.from_thought_id, link.to_thought_id, link.hops)
        for link in top.causal_links
        if link.direction == "cause"
    ]
    assert chain == [(deploy.thought_id, env.thought_id, 1), (pr.thought_id, env.thought_id, 2)]
    assert {link.edge_type for link in result.causal_links} == {"CAUSED_BY", "LEADS_TO"}
    pr_result = next(r for r in result if r.thought_id == pr.thought_id)
    assert pr_result.causal_links and pr_result.reached_by in ("cause", "activation", "spread")


async def test_non_causal_queries_skip_the_cause_phase(store, outage):
    result = await store.retrieve("Config PR merged at 2:45pm", now=NOW)
    assert result.causal_links == [] and "cause" in result.skipped_phases


async def test_an_old_unreinforced_memory_loses_to_a_reinforced_one(make_store):
    clock = {"now": datetime(2024, 1, 1, tzinfo=UTC)}
    store = make_store(clock=lambda: clock["now"])
    old = await store.create_thought(thought("The team meets every Monday for planning"))
    kept = await store.create_thought(thought("Planning meetings happen on Mondays with the team"))
    clock["now"] = datetime(2024, 6, 1, tzinfo=UTC)
    await store.record_access(kept.thought_id)
    result = await store.retrieve("When does the team meet for planning?", now=NOW)
    ranked = [r.thought_id for r in result]
    assert ranked.index(kept.thought_id) < ranked.index(old.thought_id)
    confidences = {r.thought_id: r.confidence for r in result}
    assert confidences[kept.thought_id] > confidences[old.thought_id]
    explained = await store.explain("When does the team meet for planning?", now=NOW)
    assert explained.decay_axis == "access"


async def test_high_priority_memories_do_not_decay(make_store):
    clock = {"now": datetime(2023, 1, 1, tzinfo=UTC)}
    store = make_store(clock=lambda: clock["now"])
    await store.create_thought(thought("Server password rotates monthly", priority=Priority.P1))
    debug = await store.explain("password rotation", level="debug", now=NOW)
    assert debug.candidates[0].temporal == 1.0


async def test_min_confidence_and_metadata_filter_hold(store):
    await store.bulk_store(
        [
            thought("Caroline went hiking in the Alps", metadata={"speaker": "Caroline"}),
            thought("Melanie went hiking in the Rockies", metadata={"speaker": "Melanie"}),
            thought("Caroline loves mountain trails", metadata={"speaker": "Caroline"}),
        ]
    )
    filtered = await store.retrieve("hiking trips", metadata_filter={"speaker": "Caroline"})
    assert filtered.results and {r.metadata["speaker"] for r in filtered} == {"Caroline"}
    everything = await store.retrieve("hiking trips")
    threshold = min(r.confidence for r in everything) + 1e-6
    strict = await store.retrieve("hiking trips", min_confidence=threshold)
    assert strict.results and all(r.confidence >= threshold for r in strict)
    assert len(strict) < len(everything)


async def test_a_question_nothing_answers_is_not_confident(store):
    """The only memory a filter leaves is unrelated to the question: it is returned (it is the
    best there is), but not as probably right, so ``min_confidence=0.7`` drops it."""
    await store.bulk_store(
        [
            thought("The deployment window is Tuesday 2-4pm UTC", metadata={"topic": "deploy"}),
            thought("Deploy failed at 3pm"),
            thought("Missing env variable"),
        ]
    )
    now = datetime(2026, 1, 1, tzinfo=UTC)
    related = await store.retrieve("deploy schedule", metadata_filter={"topic": "deploy"}, now=now)
    unrelated = await store.retrieve(
        "weather on Mars", metadata_filter={"topic": "deploy"}, now=now
    )
    assert related.results[0].confidence >= 0.7 > unrelated.results[0].confidence
    kept = await store.retrieve(
        "weather on Mars", metadata_filter={"topic": "deploy"}, min_confidence=0.7, now=now
    )
    assert kept.results == []


async def test_near_duplicates_collapse(store):
    a = await store.create_thought(thought("The deployment window is Tuesday 2-4pm UTC"))
    b = await store.create_thought(thought("The deployment window is Tuesday 2-4pm UTC."))
    result = await store.retrieve("deployment window")
    returned = {r.thought_id for r in result}
    assert len(returned & {a.thought_id, b.thought_id}) == 1
    debug = await store.explain("deployment window", level="debug")
    dropped = [c for c in debug.candidates if c.dropped_in == "filter"]
    assert dropped and "near-duplicate" in dropped[0].reason


async def test_near_duplicates_collapse_beyond_the_first_head_read(store):
    """More near-duplicates than the first head of the ranking holds: the head grows until the
    results are settled, and exactly one of the twins is returned."""
    base = np.asarray(await store.embed_query("deployment window"), dtype=np.float32)
    noise = np.random.default_rng(7).normal(0.0, 0.004, (20, base.size)).astype(np.float32)
    twins = await store.bulk_store(
        [thought(f"The deployment window, note {i}") for i in range(20)],
        embeddings=[(base + n).tolist() for n in noise],
    )
    others = await store.bulk_store(
        [
            thought("The deployment checklist lives in the wiki"),
            thought("Release notes are written after every window"),
            thought("The deploy bot posts in the ops channel"),
        ]
    )
    result = await store.retrieve("deployment window", top_k=3, pathway="exact")
    returned = [r.thought_id for r in result]
    assert len(returned) == 3
    assert len(set(returned) & {t.thought_id for t in twins}) == 1
    assert set(returned[1:]) <= {t.thought_id for t in others}


async def test_retrieved_instants_are_the_stored_ones(store):
    """The cycle reads instants as epoch parts, not as the driver's DateTime: the same values,
    to the microsecond, in UTC."""
    valid_from = datetime(2023, 5, 7, 9, 30, 15, 123456, tzinfo=UTC)
    created = await store.create_thought(
        thought("Caroline joined the hiking club", valid_from=valid_from)
    )
    stored = await store.get_thought(created.thought_id)
    assert stored is not None
    result = await store.retrieve("hiking club", now=NOW)
    hit = next(r for r in result if r.thought_id == created.thought_id)
    assert hit.valid_from == valid_from and hit.valid_from.tzinfo is not None
    assert hit.created_at == stored.created_at


async def test_explain_counts_match_retrieve(store, outage):
    params = {"now": NOW, "top_k": 3}
    result = await store.retrieve("What caused the deploy failure?", **params)
    summary = await store.explain("What caused the deploy failure?", **params)
    debug = await store.explain("What caused the deploy failure?", level="debug", **params)
    assert summary.candidates_final == len(result.results) == len(debug.results)
    assert summary.candidates_activated == result.candidates_activated
    assert summary.candidates_after_spread == result.candidates_after_spread
    assert [r.thought_id for r in summary.results] == [r.thought_id for r in result]
    assert set(summary.phase_timings) == set(PHASES) and summary.candidates is None
    assert len(debug.candidates) >= debug.candidates_final
    assert sum(c.dropped_in is None for c in debug.candidates) == len(result.results)
    assert summary.pathway_scores.selected == summary.pathway_selected


async def test_a_question_costs_one_read_after_its_embedding_and_one_before(store, outage):
    """The keyword arm (needs no vector), then one composed read (vector arm, spreading,
    ranking, near-duplicates and the results' texts); the namespace statistics are cached."""
    await store.retrieve("Who had pizza for lunch?", now=NOW)
    with store.executor.counting() as sent:
        result = await store.retrieve("Who had pizza for lunch?", now=NOW)
    assert "cause" in result.skipped_phases
    assert sent == RoundTrips(transactions=2, round_trips=2, statements=2)


async def test_a_causal_question_ranks_again_after_the_causal_read(store, outage):
    await store.retrieve("What caused the deploy failure?", now=NOW)
    with store.executor.counting() as sent:
        result = await store.retrieve("What caused the deploy failure?", now=NOW)
    assert "cause" not in result.skipped_phases and result.causal_links
    assert sent == RoundTrips(transactions=4, round_trips=4, statements=4)


async def test_pathway_override_and_confidences(store, outage):
    for pathway in ("exact", "energy", "attention"):
        result = await store.retrieve("deploy problems and their causes", pathway=pathway)
        assert result.pathway.value == pathway
        assert all(0.0 <= r.confidence <= 1.0 for r in result)
        assert [r.confidence for r in result] == sorted(
            (r.confidence for r in result), reverse=True
        )


async def test_bad_requests_are_typed_errors(store):
    with pytest.raises(ValidationFailedError, match="top_k"):
        await store.retrieve("x", top_k=0)
    with pytest.raises(ValidationFailedError, match="temporal_weight"):
        await store.retrieve("x", temporal_weight=1.5)
    with pytest.raises(ValidationFailedError, match="pathway"):
        await store.retrieve("x", pathway="fastest")
    with pytest.raises(RecencyModeConflictError):
        await store.retrieve("x", current_cycle=3, recency_now=NOW)
    # An empty query and one of spaces are refused alike: one type, one message.
    for blank_query in ("", "   ", "\u200b"):
        with pytest.raises(ValidationFailedError, match="query: query must not be empty"):
            await store.retrieve(blank_query)
    with pytest.raises(ValidationFailedError, match="valid string"):  # not decoded for you
        await store.retrieve(b"deploy")
    with pytest.raises(ValidationFailedError, match="level"):
        await store.explain("x", level="verbose")


@pytest.mark.parametrize(
    ("query", "now"),
    [
        ("what happened last tuesday", datetime(1, 1, 1, tzinfo=UTC)),
        ("next tuesday", datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
    ],
)
async def test_a_time_phrase_outside_the_calendar_runs_without_a_range(store, query, now):
    await store.create_thought(thought("what happened at the tuesday standup"))
    result = await store.retrieve(query, now=now)
    assert [r.text for r in result.results] == ["what happened at the tuesday standup"]
    assert (await store.explain(query, now=now)).temporal is None
