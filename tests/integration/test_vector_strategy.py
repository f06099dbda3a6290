"""The vector arm's strategy per Neo4j line, on the real server of the run: on 2026.x the index
holds namespace and lifecycle as filter properties and ``SEARCH … WHERE`` ranks one namespace
inside it ("filtered"); on 5.26 the unfiltered index is over-fetched ("index"). Each test runs
on the line it is about and skips, saying why, on the other (CI runs the integration tests on
both: ``make test`` and ``make test-lts``)."""

from __future__ import annotations

import numpy as np
import pytest

from engrava_graph.graph import schema
from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.registry import cypher
from engrava_graph.model import LifecycleStatus, MetadataFilter
from engrava_graph.search.fusion import SearchConfig
from tests.factories import thought

INDEX_PATH = SearchConfig(exact_vector_max_thoughts=0)
EXACT_COSINE = cypher("search/vector_exact")
EXACT_PATH = SearchConfig(exact_vector_max_thoughts=1_000_000)
#: The migration test rebuilds the vector index: only on a database this small (seconds).
MIGRATION_MAX_THOUGHTS = 20_000


def _unit(seed: int, dims: int = 384) -> list[float]:
    vector = np.random.default_rng(seed).normal(size=dims)
    return [float(x) for x in vector / np.linalg.norm(vector)]


@pytest.fixture
async def line(executor):
    return await server_line(executor)


@pytest.fixture
def on_2026(line):
    if not line.filtered_vector_index:
        pytest.skip(f"Neo4j {line.version}: no filter properties in the vector index (2026.01+)")


@pytest.fixture
def on_lts(line):
    if line.filtered_vector_index:
        pytest.skip(f"Neo4j {line.version} filters inside the index; the over-fetch path is 5.x")


async def _fill(make_store, n: int = 120, **options):
    """A namespace of ``n`` thoughts with random unit vectors, and a neighbour namespace holding
    the same vectors (so an unfiltered index would return its thoughts first half the time)."""
    store = make_store(**options)
    other = make_store()
    for target in (store, other):
        await target.bulk_store(
            [thought(f"Point {i}", metadata={"half": i % 2}) for i in range(n)],
            embeddings=[_unit(i) for i in range(n)],
        )
    return store


async def test_the_server_line_is_read_once_per_connection(executor, line):
    with executor.counting() as sent:
        assert await server_line(executor) is line
    assert sent.statements == 0
    assert line.version and line.edition


async def test_the_vector_index_has_the_filter_properties_of_its_line(executor, schema_ready, line):
    index = await schema.vector_index_properties(executor)
    assert index is not None
    expected = ["embedding", *schema.VECTOR_FILTER_PROPERTIES] if line.filtered_vector_index else []
    assert index[1] == (expected or ["embedding"])


async def test_filtered_index_ranks_as_exact_cosine_within_the_namespace(make_store, on_2026):
    store = await _fill(make_store)
    for seed in range(1_000, 1_010):
        scope = store.retrievable_scope()
        hits, plan = await store._arms.vector(_unit(seed), 10, scope)
        truth = await store.executor.read(
            EXACT_COSINE, vector=_unit(seed), top_k=10, min_score=0.0, **scope
        )
        assert plan.strategy == "filtered"  # at any namespace size, without a metadata filter
        assert [t for t, _ in hits] == [r["thought_id"] for r in truth]
        assert [s for _, s in hits] == pytest.approx(
            [2.0 * r["score"] - 1.0 for r in truth], abs=1e-5
        )


async def test_a_small_metadata_filtered_set_is_ranked_by_exact_cosine(make_store, on_2026):
    store = await _fill(make_store, search_config=EXACT_PATH)
    scope = store.retrievable_scope(filters=MetadataFilter.equals(half=1))
    _, plan = await store._arms.vector(_unit(5), 10, scope)
    assert plan.strategy == "exact"


async def test_filtered_index_keeps_archived_out_unless_asked(make_store, on_2026):
    store = await _fill(make_store, n=60, search_config=INDEX_PATH)
    best = (await store.search_similar(_unit(7), top_k=1))[0][0]
    await store.update_thought(best, lifecycle_status=LifecycleStatus.ARCHIVED)
    assert best not in {t for t, _ in await store.search_similar(_unit(7), top_k=20)}
    again = await store.search_similar(_unit(7), top_k=1, include_archived=True)
    assert again[0][0] == best


async def test_the_lifecycle_is_tested_after_the_index_unless_most_is_archived(make_store, on_2026):
    store = await _fill(make_store, n=60, search_config=INDEX_PATH)
    ranked = [t for t, _ in await store.search_similar(_unit(7), top_k=60)]
    for thought_id in ranked[:10]:
        await store.update_thought(thought_id, lifecycle_status=LifecycleStatus.ARCHIVED)
    few = make_store(namespace=store.namespace, search_config=INDEX_PATH)  # fresh statistics
    hits, plan = await few._arms.vector(_unit(7), 10, few.retrievable_scope())
    assert (plan.strategy, plan.lifecycle_in_index, plan.fetch_k) == ("filtered", False, 60)
    assert [t for t, _ in hits] == ranked[10:20]
    for thought_id in ranked[10:40]:
        await store.update_thought(thought_id, lifecycle_status=LifecycleStatus.ARCHIVED)
    most = make_store(namespace=store.namespace, search_config=INDEX_PATH)
    hits, plan = await most._arms.vector(_unit(7), 10, most.retrievable_scope())
    assert (plan.strategy, plan.lifecycle_in_index, plan.fetch_k) == ("filtered", True, 50)
    assert [t for t, _ in hits] == ranked[40:50]
    every = most.retrievable_scope(include_archived=True)
    hits, plan = await most._arms.vector(_unit(7), 10, every)
    assert (plan.lifecycle_in_index, plan.fetch_k) == (False, 50)
    assert [t for t, _ in hits] == ranked[:10]


async def test_a_metadata_filter_runs_after_the_filtered_index(make_store, on_2026):
    store = await _fill(make_store, search_config=INDEX_PATH)
    only_even = MetadataFilter.equals(half=0)
    scope = store.retrievable_scope(filters=only_even)
    hits, plan = await store._arms.vector(_unit(3), 10, scope)
    assert plan.strategy == "filtered" and plan.fetch_k == 100  # 50 x namespace/filtered = 2
    rows = await store.get_thoughts([t for t, _ in hits])
    assert len(hits) == 10 and all(r.metadata["half"] == 0 for r in rows.values())


async def test_explain_reports_the_filtered_strategy(make_store, on_2026):
    store = await _fill(make_store, n=30, search_config=INDEX_PATH)
    explanation = await store.explain("Point 3")
    assert explanation.vector_strategy == "filtered"


async def test_lts_over_fetches_the_unfiltered_index(make_store, on_lts):
    store = await _fill(make_store, n=60, search_config=INDEX_PATH)
    hits, plan = await store._arms.vector(_unit(5), 10, store.retrievable_scope())
    assert plan.strategy == "index" and plan.fetch_k >= 50
    assert len(hits) == 10


async def test_migration_rebuilds_an_unfiltered_index_with_filters(executor, schema_ready, on_2026):
    rows = await executor.read(cypher("search/namespace_stats"), namespace="-")
    if rows[0]["in_database"] > MIGRATION_MAX_THOUGHTS:
        pytest.skip(f"{rows[0]['in_database']} thoughts: rebuilding their index takes too long")
    dimensions = await schema.vector_dimensions(executor)
    assert dimensions is not None
    await executor.run_auto_commit(cypher("schema/drop_thought_vector"))
    await executor.run_auto_commit(cypher("schema/thought_vector"), dimensions=dimensions)
    assert (await schema.vector_index_properties(executor)) == (dimensions, ["embedding"])
    await schema.ensure_schema(executor, dimensions=dimensions)
    index = await schema.vector_index_properties(executor)
    assert index == (dimensions, ["embedding", *schema.VECTOR_FILTER_PROPERTIES])
