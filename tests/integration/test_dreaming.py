"""Dreaming on a real Neo4j: gates, one reflection per cluster with its edges and centroid,
re-run idempotence, a pass killed half-way then finished, retirement, reflection retrieval."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from engrava_graph.dreaming.config import DreamingConfig, DreamingGates
from engrava_graph.dreaming.consolidate import dream_runs
from engrava_graph.model import (
    CycleRequiredError,
    EdgeDirection,
    EdgeType,
    KnowledgeSource,
    LifecycleStatus,
    StaticCycleProvider,
    ThoughtType,
)
from engrava_graph.model.bounds import blank
from tests.factories import thought

TOPICS = {
    "dogs": [
        "Caroline adopted a golden retriever puppy named Max",
        "Caroline's golden retriever puppy Max loves playing fetch in the park",
        "Caroline walks her golden retriever puppy Max every morning",
        "Max, Caroline's retriever puppy, chewed her new shoes",
    ],
    "budget": [
        "The quarterly budget review is scheduled for Friday",
        "The quarterly budget review moved to Friday afternoon",
        "Finance wants the quarterly budget numbers before the Friday review",
        "The quarterly budget review on Friday needs the sales forecast",
    ],
    "paint": [
        "Melanie painted a sunrise over the lake last summer",
        "Melanie's painting of the lake sunrise won a local art prize",
        "Melanie likes painting lakes at sunrise",
    ],
}
#: MiniLM puts each topic's sentences at cosine 0.65-0.88 and topics apart below 0.25.
CONFIG = DreamingConfig(similarity_threshold=0.6)


@pytest.fixture
async def memory(store):
    """The three topics as OBSERVATIONs written at cycle 1, plus a NOTE about the dog."""
    records = [
        thought(text, created_cycle=1, updated_cycle=1)
        for texts in TOPICS.values()
        for text in texts
    ]
    records.append(
        thought(
            "Caroline's golden retriever puppy Max is a good dog",
            thought_type=ThoughtType.NOTE,
            created_cycle=1,
            updated_cycle=1,
        )
    )
    stored = await store.bulk_store(records)
    ids = [t.thought_id for t in stored]
    return {"dogs": ids[0:4], "budget": ids[4:8], "paint": ids[8:11], "note": ids[11]}


async def _reflections(store, **filters):
    return await store.list_thoughts(thought_type=ThoughtType.REFLECTION.value, **filters)


async def _edge_counts(store):
    return {
        t: len(await store.list_edges(edge_type=t))
        for t in (EdgeType.CONSOLIDATED_FROM, EdgeType.ASSOCIATED)
    }


async def test_consolidate_without_a_cycle_raises_value_error(store, memory):
    with pytest.raises(CycleRequiredError) as info:
        await store.consolidate()
    assert isinstance(info.value, ValueError)
    assert await _reflections(store) == []


async def test_age_type_schedule_and_confirmation_gates(store, memory):
    young = await store.consolidate(1, config=CONFIG)  # written at cycle 1: age 0 < 1
    assert young.due and young.candidates_evaluated == 0 and young.reflections_created == 0
    unconfirmed = CONFIG.model_copy(
        update={"gates": DreamingGates(allow_zero_confirmation=False, min_confirmations=1)}
    )
    assert (await store.consolidate(2, config=unconfirmed)).candidates_evaluated == 0
    sparse = CONFIG.model_copy(update={"schedule_every_n_cycles": 3})
    assert not (await store.consolidate(2, config=sparse)).due
    assert await _reflections(store) == []
    result = await store.consolidate(3, config=sparse)
    assert result.due and result.candidates_evaluated == 11  # the NOTE is not eligible
    assert result.reflections_created == 3


async def test_a_cycle_provider_supplies_the_cycle(make_store, memory, store):
    provided = make_store(namespace=store.namespace, cycle_provider=StaticCycleProvider(2))
    result = await provided.consolidate(config=CONFIG)
    assert result.current_cycle == 2 and result.reflections_created == 3


async def test_a_cluster_becomes_one_reflection_with_edges_and_centroid(store, memory):
    result = await store.consolidate(2, config=CONFIG)
    assert (result.clusters_found, result.reflections_created, result.strategy) == (3, 3, "exact")
    dogs = set(memory["dogs"])
    [reflection] = [r for r in await _reflections(store) if set(r.consolidated_from) == dogs]
    assert reflection.source_type is KnowledgeSource.DREAMING
    assert reflection.lifecycle_status is LifecycleStatus.ACTIVE
    assert reflection.created_cycle == 2 and reflection.source.startswith("dreaming:")
    assert reflection.essence in TOPICS["dogs"] and "retriever" in reflection.content
    assert reflection.metadata["dreaming"]["member_count"] == 4

    out = await store.get_edges(reflection.thought_id, direction=EdgeDirection.OUT)
    assert {e.to_thought_id for e in out} == dogs
    assert all(
        e.edge_type is EdgeType.CONSOLIDATED_FROM
        and e.source is KnowledgeSource.DREAMING
        and e.created_cycle == 2
        for e in out
    )
    associated = [
        e
        for m in dogs
        for e in await store.get_edges(m, direction=EdgeDirection.OUT)
        if e.edge_type is EdgeType.ASSOCIATED
    ]
    assert len(associated) >= len(dogs) - 1  # the members are linked to each other
    assert {e.from_thought_id for e in associated} | {e.to_thought_id for e in associated} == dogs

    vectors = np.array([await store.get_embedding(m) for m in sorted(dogs)])
    mean = vectors.mean(axis=0)
    expected = mean / np.linalg.norm(mean)
    assert np.allclose(await store.get_embedding(reflection.thought_id), expected, atol=1e-5)

    [run] = await dream_runs(store.executor, store.namespace)
    assert run["status"] == "completed" and run["run_id"] == result.run_id
    assert run["produced"] == 3 and run["reflections_created"] == 3
    assert run["edges_created"] == result.edges_created and run["current_cycle"] == 2
    assert json.loads(run["parameters"])["similarity_threshold"] == 0.6


async def test_every_neighbour_strategy_finds_the_same_clusters(store, memory):
    exact = await store.consolidate(
        2, config=CONFIG.model_copy(update={"neighbour_strategy": "exact"})
    )
    clusters = {frozenset(r.consolidated_from) for r in await _reflections(store)}
    for strategy, cycle in (("index", 3), ("stream", 4), ("ivf", 5)):
        for reflection in await _reflections(store):
            await store.delete_thought(reflection.thought_id)
        other = await store.consolidate(
            cycle, config=CONFIG.model_copy(update={"neighbour_strategy": strategy, "page_size": 2})
        )
        assert other.strategy == strategy and other.reflections_created == 3
        assert {frozenset(r.consolidated_from) for r in await _reflections(store)} == clusters
    assert exact.strategy == "exact"


async def test_running_the_same_pass_twice_creates_nothing(store, memory):
    first = await store.consolidate(2, config=CONFIG)
    thoughts, edges = await store.count_thoughts(), await _edge_counts(store)
    again = await store.consolidate(2, config=CONFIG)
    assert again.run_id == first.run_id
    assert (again.reflections_created, again.reflections_existing, again.edges_created) == (0, 3, 0)
    assert await store.count_thoughts() == thoughts and await _edge_counts(store) == edges
    [run] = await dream_runs(store.executor, store.namespace)
    assert run["passes"] == 2 and run["reflections_created"] == 3
    later = await store.consolidate(3, config=CONFIG)  # a new run over the same clusters
    assert later.run_id != first.run_id and later.reflections_created == 0
    assert await store.count_thoughts() == thoughts


async def test_a_pass_over_unchanged_data_skips_the_search_and_any_change_runs_it(store, memory):
    first = await store.consolidate(2, config=CONFIG)
    reflections = {r.thought_id for r in await _reflections(store)}
    edges = await _edge_counts(store)
    again = await store.consolidate(3, config=CONFIG)  # a later cycle, nothing new
    assert again.unchanged_since == first.run_id and again.strategy == ""
    assert (again.reflections_created, again.reflections_existing, again.clusters_found) == (
        0,
        3,
        3,
    )
    assert {r.thought_id for r in await _reflections(store)} == reflections
    assert await _edge_counts(store) == edges
    runs = {r["run_id"]: r for r in await dream_runs(store.executor, store.namespace)}
    assert runs[again.run_id]["unchanged_since"] == first.run_id
    assert runs[again.run_id]["fingerprint"] == runs[first.run_id]["fingerprint"]

    # a deleted reflection: the pass runs and writes it again
    [paint] = [
        r for r in await _reflections(store) if set(r.consolidated_from) == set(memory["paint"])
    ]
    await store.delete_thought(paint.thought_id)
    redo = await store.consolidate(4, config=CONFIG)
    assert redo.unchanged_since is None and redo.reflections_created == 1
    assert (await store.consolidate(5, config=CONFIG)).unchanged_since == redo.run_id

    # a member written again (its text changed): the pass runs; its cluster is unchanged
    await store.update_thought(
        memory["budget"][0], content="The quarterly budget review is scheduled for Friday 10am"
    )
    changed = await store.consolidate(6, config=CONFIG)
    assert changed.unchanged_since is None and changed.reflections_existing == 3

    # a new thought joins a cluster: the pass runs and the grown cluster gets its reflection
    await store.bulk_store(
        [
            thought(
                "Caroline taught her golden retriever puppy Max to sit",
                created_cycle=6,
                updated_cycle=6,
            )
        ]
    )
    grown = await store.consolidate(7, config=CONFIG)
    assert grown.unchanged_since is None
    assert (grown.reflections_created, grown.reflections_superseded) == (1, 1)


async def test_regrouping_consolidated_members_adds_no_reflection(store, memory):
    await store.consolidate(2, config=CONFIG)
    tighter = CONFIG.model_copy(
        update={"similarity_threshold": 0.75, "gates": DreamingGates(min_cluster_size=2)}
    )
    result = await store.consolidate(2, config=tighter)  # other, smaller groups of the members
    assert result.clusters_covered >= 1
    assert result.clusters_covered + result.reflections_existing == result.clusters_found
    assert result.reflections_created == 0 and len(await _reflections(store)) == 3


async def test_a_cluster_whose_texts_show_nothing_yields_no_reflection(store, memory):
    """Members whose essence and content are only invisible characters (stored before writes
    refused such text, here set by hand in Neo4j) still cluster by their vectors, but give a
    reflection nothing to say: none is written for them, and no reflection is blank."""
    async with store.executor.driver.session(database=store.executor.database) as session:
        result = await session.run(
            "MATCH (t:Thought {namespace: $ns}) WHERE t.thought_id IN $ids "
            "SET t.essence = '\u200b', t.content = ' \u2060\ufeff '",
            ns=store.namespace,
            ids=memory["dogs"],
        )
        await result.consume()
    result = await store.consolidate(2, config=CONFIG)
    assert (result.clusters_found, result.reflections_created) == (3, 2)
    reflections = await _reflections(store)
    assert {frozenset(r.consolidated_from) for r in reflections} == {
        frozenset(memory["budget"]),
        frozenset(memory["paint"]),
    }
    assert not any(blank(r.essence) for r in reflections)


_KILLED_PASS = textwrap.dedent("""
    import asyncio, os, signal, sys
    from engrava_graph.core import Neo4jEngravaCore
    from engrava_graph.dreaming.config import DreamingConfig
    from engrava_graph.graph.connection import resolve_connection

    def crash(phase, done, total):
        if phase == "clusters" and done >= 1:
            os.kill(os.getpid(), signal.SIGKILL)  # dies right after the first transaction

    async def main():
        c = resolve_connection()
        store = Neo4jEngravaCore.from_uri(c.uri, auth=(c.user, c.password), database=c.database,
                                          namespace=sys.argv[1])
        config = DreamingConfig(similarity_threshold=0.6, write_batch_clusters=1)
        await store.consolidate(2, config=config, progress=crash)

    asyncio.run(main())
""")


async def _kill_after_first_cluster(namespace):
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED_PASS, namespace],
        env={**os.environ, "PYTHONPATH": os.getcwd()},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == -9, proc.stderr[-2000:]


async def test_a_pass_killed_half_way_is_completed_by_the_next(store, memory):
    await _kill_after_first_cluster(store.namespace)
    [half] = await _reflections(store)  # one whole cluster, with all its edges
    edges = await store.get_edges(half.thought_id, direction=EdgeDirection.OUT)
    assert {e.to_thought_id for e in edges} == set(half.consolidated_from)
    [run] = await dream_runs(store.executor, store.namespace)
    assert run["status"] == "running"

    result = await store.consolidate(
        2, config=CONFIG.model_copy(update={"write_batch_clusters": 1})
    )
    assert result.resumed and result.run_id == run["run_id"]
    assert (result.reflections_created, result.reflections_existing) == (2, 1)
    reflections = await _reflections(store)
    clusters = [frozenset(r.consolidated_from) for r in reflections]
    assert sorted(map(len, clusters)) == [3, 4, 4] and len(set(clusters)) == 3
    for r in reflections:
        out = await store.get_edges(r.thought_id, direction=EdgeDirection.OUT)
        assert {e.to_thought_id for e in out} == set(r.consolidated_from)
    [run] = await dream_runs(store.executor, store.namespace)
    assert run["status"] == "completed" and run["produced"] == 3


async def test_a_pass_with_other_parameters_marks_a_killed_run_interrupted(store, memory):
    await _kill_after_first_cluster(store.namespace)
    [killed] = await dream_runs(store.executor, store.namespace)
    result = await store.consolidate(3, config=CONFIG)
    assert not result.resumed and result.interrupted_runs == [killed["run_id"]]
    assert (result.reflections_created, result.reflections_existing) == (2, 1)
    runs = {r["run_id"]: r for r in await dream_runs(store.executor, store.namespace)}
    assert runs[killed["run_id"]]["status"] == "interrupted"
    assert runs[killed["run_id"]]["finished_by"] == result.run_id
    assert runs[result.run_id]["status"] == "completed"


async def test_a_failed_pass_is_recorded_and_resumed(store, memory):
    first = await store.consolidate(2, config=CONFIG)
    # a new, unrelated observation: the next pass's fingerprint differs, so it searches again
    await store.bulk_store(
        [thought("The office coffee machine is broken again", created_cycle=2, updated_cycle=2)]
    )

    def boom(phase, done, total):
        raise RuntimeError("crash")

    with pytest.raises(RuntimeError):
        await store.consolidate(3, config=CONFIG, progress=boom)
    runs = {r["run_id"]: r for r in await dream_runs(store.executor, store.namespace)}
    assert sorted(r["status"] for r in runs.values()) == ["completed", "failed"]
    retry = await store.consolidate(3, config=CONFIG)
    assert retry.resumed and retry.reflections_existing == 3 and first.run_id in runs


async def test_retired_reflection_is_hidden_even_with_include_archived(store, memory):
    await store.consolidate(2, config=CONFIG)
    [paint] = [
        r for r in await _reflections(store) if set(r.consolidated_from) == set(memory["paint"])
    ]
    hits = [i for i, _ in (await store.recall("Melanie painting a lake sunrise")).results]
    assert paint.thought_id in hits
    for member in memory["paint"]:
        await store.update_thought(member, lifecycle_status=LifecycleStatus.ARCHIVED)
    result = await store.consolidate(3, config=CONFIG)
    assert result.orphans_retired == 1
    retired = await store.get_thought(paint.thought_id)
    assert retired.lifecycle_status is LifecycleStatus.ARCHIVED
    for kwargs in ({}, {"include_archived": True}):
        hits = await store.recall("Melanie painting a lake sunrise", **kwargs)
        assert paint.thought_id not in [i for i, _ in hits.results]
    assert paint.thought_id not in [
        i for i, _ in (await store.search_reflections_only("painting at sunrise")).results
    ]
    found = await store.retrieve("Melanie painting a lake sunrise", include_archived=True)
    assert paint.thought_id not in [m.thought_id for m in found.results]

    # a member ACTIVE again: no longer retired, still ARCHIVED (include_archived finds it)
    await store.restore_thought(memory["paint"][0])
    assert (await store.consolidate(4, config=CONFIG)).reflections_unretired == 1
    hits = await store.recall("Melanie painting a lake sunrise", include_archived=True)
    assert paint.thought_id in [i for i, _ in hits.results]
    assert paint.thought_id not in [
        i for i, _ in (await store.recall("Melanie painting a lake sunrise")).results
    ]


async def test_a_grown_cluster_supersedes_its_old_reflection(store):
    dogs = TOPICS["dogs"]
    await store.bulk_store([thought(t, created_cycle=1, updated_cycle=1) for t in dogs[:3]])
    await store.consolidate(2, config=CONFIG)
    [old] = await _reflections(store)
    [late] = await store.bulk_store([thought(dogs[3], created_cycle=2, updated_cycle=2)])
    grown = await store.consolidate(3, config=CONFIG)
    assert (grown.reflections_created, grown.reflections_superseded) == (1, 1)
    [new] = [r for r in await _reflections(store) if r.thought_id != old.thought_id]
    assert set(new.consolidated_from) == set(old.consolidated_from) | {late.thought_id}
    archived = await store.get_thought(old.thought_id)
    assert archived.lifecycle_status is LifecycleStatus.ARCHIVED
    [link] = [
        e
        for e in await store.get_edges(new.thought_id, direction=EdgeDirection.OUT)
        if e.edge_type is EdgeType.DERIVED_FROM
    ]
    assert link.to_thought_id == old.thought_id and link.source is KnowledgeSource.DREAMING
    query = "Caroline's golden retriever puppy Max"
    for kwargs in ({}, {"include_archived": True}):  # out of every ranked path
        assert [
            i
            for i, _ in (await store.recall(query, **kwargs)).results
            if i in (old.thought_id, new.thought_id)
        ] == [new.thought_id]
    assert old.thought_id not in [
        i for i, _ in (await store.search_reflections_only(query)).results
    ]
    assert old.thought_id not in [m.thought_id for m in (await store.retrieve(query)).results]

    for cycle in (3, 4):  # idempotent: the same pass again and a later one change nothing
        again = await store.consolidate(cycle, config=CONFIG)
        assert (
            again.reflections_created,
            again.reflections_superseded,
            again.reflections_unretired,
        ) == (0, 0, 0)
    assert (await store.get_thought(old.thought_id)).lifecycle_status is LifecycleStatus.ARCHIVED
    assert len(await _reflections(store)) == 2
    assert old.thought_id not in [
        i for i, _ in (await store.recall(query, include_archived=True)).results
    ]


async def test_restore_thought_brings_a_retired_reflection_back(store, memory):
    await store.consolidate(2, config=CONFIG)
    [budget] = [
        r for r in await _reflections(store) if set(r.consolidated_from) == set(memory["budget"])
    ]
    for member in memory["budget"]:
        await store.delete_thought(member)  # hard-deleted sources: no edges left
    assert (await store.consolidate(3, config=CONFIG)).orphans_retired == 1
    restored = await store.restore_thought(budget.thought_id)
    assert restored.lifecycle_status is LifecycleStatus.ACTIVE
    hits = await store.recall("quarterly budget review on Friday")
    assert budget.thought_id in [i for i, _ in hits.results]


async def test_pinned_reflection_is_never_retired(store, memory):
    await store.consolidate(2, config=CONFIG)
    [dogs] = [
        r for r in await _reflections(store) if set(r.consolidated_from) == set(memory["dogs"])
    ]
    await store.update_thought(dogs.thought_id, pinned=True)
    for member in memory["dogs"]:
        await store.update_thought(member, lifecycle_status=LifecycleStatus.ARCHIVED)
    assert (await store.consolidate(3, config=CONFIG)).orphans_retired == 0


async def test_reflections_are_retrievable_by_every_search_path(store, memory):
    await store.consolidate(2, config=CONFIG)
    [budget] = [
        r for r in await _reflections(store) if set(r.consolidated_from) == set(memory["budget"])
    ]
    query = "when is the quarterly budget review"
    assert budget.thought_id in [i for i, _ in (await store.search_hybrid(query)).results]
    assert budget.thought_id in [i for i, _ in (await store.recall(query)).results]
    assert budget.thought_id in [m.thought_id for m in (await store.retrieve(query)).results]
    only = await store.search_reflections_only(query, top_k=2)
    assert only.results[0][0] == budget.thought_id and len(only.results) == 2
    assert only.backends_used == {"vector"}
    blended = await store.search_reflections_only(query, current_cycle=50)
    assert blended.backends_used == {"vector", "recency"} and len(blended.results) == 3


async def test_access_buffer_is_flushed_first_and_the_pass_reads_count_nothing(make_store):
    tracked = make_store(access_tracking_enabled=True)
    await tracked.ensure_namespace()
    stored = await tracked.bulk_store(
        [thought(t, created_cycle=1, updated_cycle=1) for t in TOPICS["dogs"]]
    )
    await tracked.get_thought(stored[0].thought_id)  # one buffered access
    result = await tracked.consolidate(2, config=CONFIG)
    assert result.reflections_created == 1
    assert "frequency" in result.active_signal_weights
    assert result.active_signal_weights["frequency"] > 0  # the flushed access was seen
    counts = {
        t.thought_id: t.access_count
        for t in await tracked.list_thoughts(thought_type="OBSERVATION")
    }
    assert counts[stored[0].thought_id] == 1 and sum(counts.values()) == 1


def _dream_command(*args: str) -> subprocess.CompletedProcess[str]:
    """``engrava-graph dream ARGS`` in a child process (no terminal: plain progress lines)."""
    return subprocess.run(
        [sys.executable, "-c", "from engrava_graph.cli import app; app()", "dream", *args],
        env={**os.environ, "PYTHONPATH": os.getcwd()},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


async def test_dream_command_reports_progress_and_a_summary(store, memory):
    proc = _dream_command("--namespace", store.namespace, "--cycle", "2", "--threshold", "0.6")
    assert proc.returncode == 0, proc.stderr
    assert "neighbours: 11/11" in proc.stdout and "clusters: 3/3" in proc.stdout
    for line in ("clusters", "reflections created", "edges created", "seconds"):
        assert line in proc.stdout
    assert len(await _reflections(store)) == 3


async def test_dream_command_fails_clearly_without_neo4j():
    proc = _dream_command("-n", "nowhere", "-c", "1", "--uri", "bolt://127.0.0.1:1")
    assert proc.returncode == 1
    assert "Neo4j is not reachable" in proc.stderr
    bad = _dream_command(
        "-n", "x", "-c", "1", "--min-size", "9", "--max-size", "4", "--uri", "bolt://127.0.0.1:1"
    )
    assert bad.returncode == 2 and "--max-size (4) must be >= --min-size (9)" in bad.stderr


async def test_dream_command_refuses_a_namespace_that_does_not_exist(make_store):
    absent = make_store()  # never registered
    proc = _dream_command("--namespace", absent.namespace, "--cycle", "1")
    assert proc.returncode == 2  # the call must change, not "Neo4j unreachable" (1)
    assert absent.namespace in proc.stderr and "does not exist" in proc.stderr
    assert not await absent.namespace_exists()  # nothing registered as a side effect
