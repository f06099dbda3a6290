"""retrieval/distinct, Phase 8's walk over the head of the ranking: each candidate is compared
with the kept ones above it, and the walk stops once the first results are settled."""

from __future__ import annotations

import math

import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.registry import cypher
from engrava_graph.model import ThoughtType
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.retrieval import phases
from engrava_graph.retrieval.types import Pathway
from tests.factories import thought

DISTINCT = cypher("retrieval/distinct")
DIMENSIONS = 384


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


async def element_ids(store: Neo4jEngravaCore, ids: list[str]) -> list[str]:
    """The element ids the ranking read gives each of ``ids`` (by the activation read, every id
    a keyword hit; a missing one gets a placeholder no node has)."""
    deps = store._cycle.deps
    scope = deps.retrievable(include_archived=True, filters=MetadataFilter(), now=None)
    profile = deps.config.profiles[Pathway.EXACT]
    found, _ = await phases.activate(deps, dict.fromkeys(ids, 1.0), [], None, profile, 0, scope)
    return [found[i].fields.element_id if i in found else "-" for i in ids]


async def walk(
    store: Neo4jEngravaCore,
    ids: list[str],
    need: int,
    cap: int = 1,
    window: int = 5,
    boundaries: list[int] | None = None,
):
    rows = await store.executor.read(
        DISTINCT,
        namespace=store.namespace,
        element_ids=await element_ids(store, ids),
        thought_ids=ids,
        duplicate_threshold=0.95,
        need=need,
        reflection_cap=cap,
        reflection_window=window,
        boundaries=list(range(1, len(ids) + 1)) if boundaries is None else boundaries,
    )
    return rows[0]


async def test_a_near_duplicate_is_dropped_for_the_kept_one_above_it(store: Neo4jEngravaCore):
    # a ~ b (15 degrees: cosine 0.966) and b ~ c, but a and c are 30 degrees apart (0.866):
    # b goes for a, and c stays, as its only twin above it was dropped.
    await stored(store, {"a": 0, "b": 15, "c": 30, "d": 90})
    result = await walk(store, ["a", "b", "c", "d"], need=10, window=1)
    assert result["kept"] == ["a", "c", "d"]
    assert result["dropped"] == [{"thought_id": "b", "twin": "a"}]
    assert result["scanned"] == 4 and not result["settled"]


async def test_the_walk_stops_at_the_first_boundary_where_the_results_are_settled(
    store: Neo4jEngravaCore,
):
    await stored(store, {"a": 0, "b": 40, "c": 80, "d": 81, "e": 82, "f": 120})
    ids = ["a", "b", "c", "d", "e", "f"]
    result = await walk(store, ids, need=2, window=2)
    assert result["kept"] == ["a", "b"] and result["scanned"] == 2 and result["settled"]
    # Stopping points 1, 3, 6: settled after 2, so it walks on to 3.
    result = await walk(store, ids, need=2, window=2, boundaries=[1, 3, 6])
    assert result["kept"] == ["a", "b", "c"] and result["scanned"] == 3
    # d and e (1 degree from c) go; the walk ends with the list.
    result = await walk(store, ids, need=5, window=2, boundaries=[6])
    assert result["kept"] == ["a", "b", "c", "f"] and result["scanned"] == 6
    assert not result["settled"]
    assert [d["twin"] for d in result["dropped"]] == ["c", "c"]


async def test_a_memory_deleted_since_the_ranking_counts_in_the_positions(
    store: Neo4jEngravaCore,
):
    await stored(store, {"a": 0, "b": 40, "c": 80})
    # The stop at 2 falls on the missing memory: the walk goes on to the next one.
    result = await walk(store, ["a", "gone", "b", "c"], need=1, window=1, boundaries=[2, 3, 4])
    assert result["kept"] == ["a", "b"] and result["scanned"] == 3 and result["settled"]


async def test_reflections_over_the_cap_do_not_fill_the_window(store: Neo4jEngravaCore):
    await stored(store, {"r1": 0, "r2": 40}, thought_type=ThoughtType.REFLECTION)
    await stored(store, {"a": 80, "b": 120, "c": 160})
    # need 2, window 3, cap 1: r1, r2, a fill the window with only 2 (r2 moves below it).
    result = await walk(store, ["r1", "r2", "a", "b", "c"], need=2, window=3)
    assert result["kept"] == ["r1", "r2", "a", "b"] and result["settled"]
    assert (await walk(store, ["r1", "r2", "a", "b", "c"], need=2, cap=2, window=3))["kept"] == [
        "r1",
        "r2",
        "a",
    ]


async def test_a_memory_without_an_embedding_is_never_a_near_duplicate(
    store: Neo4jEngravaCore, make_store
):
    await stored(store, {"a": 0})
    unembedded = make_store(namespace=store.namespace, embedding_provider=None)
    await unembedded.create_thought(thought("memory a", thought_id="plain"))
    assert await store.get_embedding("plain") is None
    result = await walk(store, ["a", "plain"], need=5)
    assert result["kept"] == ["a", "plain"] and result["dropped"] == []


@pytest.mark.parametrize("ids", [[], ["missing"]])
async def test_nothing_to_walk(store: Neo4jEngravaCore, ids: list[str]):
    result = await walk(store, ids, need=3)
    assert result["kept"] == [] and result["dropped"] == [] and not result["settled"]
