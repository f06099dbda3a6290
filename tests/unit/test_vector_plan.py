"""How far the vector arm asks the index (pure rules of ``search/arms``)."""

from __future__ import annotations

import pytest

from engrava_graph.search.arms import NamespaceStats, VectorPlan, index_fetch_k, lifecycle_plan


def _stats(thoughts: int, unarchived: int) -> NamespaceStats:
    return NamespaceStats(thoughts, 40.0, unarchived, 10 * thoughts)


@pytest.mark.parametrize(
    ("thoughts", "unarchived", "include_archived", "expected"),
    [
        (1_000, 1_000, False, VectorPlan("filtered", 50, lifecycle_in_index=False)),
        (1_000, 999, False, VectorPlan("filtered", 51, lifecycle_in_index=False)),
        (1_000, 500, False, VectorPlan("filtered", 100, lifecycle_in_index=False)),
        (1_000, 499, False, VectorPlan("filtered", 50, lifecycle_in_index=True)),
        (1_000, 10, True, VectorPlan("filtered", 50, lifecycle_in_index=False)),
        (0, 0, False, VectorPlan("filtered", 50, lifecycle_in_index=False)),
    ],
)
def test_the_lifecycle_goes_inside_the_index_only_when_most_is_archived(
    thoughts: int, unarchived: int, include_archived: bool, expected: VectorPlan
) -> None:
    assert lifecycle_plan(50, _stats(thoughts, unarchived), include_archived) == expected


def test_the_over_fetch_is_capped() -> None:
    assert lifecycle_plan(5_000, _stats(1_000_000, 500_000), False).fetch_k == 10_000
    assert index_fetch_k(50, 1, 1_000_000, 4) == 10_000
    assert index_fetch_k(50, 100, 100, 4) == 200
