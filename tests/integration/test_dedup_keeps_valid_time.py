"""Deduplication never loses a validity interval (issue 15, item 5).

``create_thought(deduplicate=True)`` confirms an existing thought only when its valid time
covers the new one's; the same text re-observed in another interval is a thought of its own, so
the fact stays answerable at every instant it was valid.
"""

from __future__ import annotations

from engrava_graph.model import ValidTimeFilter
from tests.factories import thought

FACT = "the office is on the third floor"


async def test_the_same_text_in_a_disjoint_interval_stays_answerable_in_both(store):
    first = await store.create_thought(
        thought(FACT, valid_from="2023-01-01", valid_until="2023-02-01"), deduplicate=True
    )
    second = await store.create_thought(
        thought(FACT, valid_from="2024-05-01", valid_until="2024-06-01"), deduplicate=True
    )

    assert second.thought_id != first.thought_id
    for instant, expected in (("2023-01-15", first), ("2024-05-15", second)):
        found = await store.list_thoughts(valid_time=ValidTimeFilter.at(instant))
        assert [t.thought_id for t in found] == [expected.thought_id], instant
    assert await store.list_thoughts(valid_time=ValidTimeFilter.at("2023-09-01")) == []


async def test_a_re_observation_inside_a_covering_interval_is_confirmed(store):
    wide = await store.create_thought(
        thought(FACT, valid_from="2023-01-01", valid_until="2025-01-01"), deduplicate=True
    )
    inner = await store.create_thought(
        thought(FACT, valid_from="2024-05-01", valid_until="2024-06-01"), deduplicate=True
    )
    timeless = await store.create_thought(thought("water boils at 100 C"), deduplicate=True)
    again = await store.create_thought(
        thought("water boils at 100 C", valid_from="2024-01-01"), deduplicate=True
    )

    assert inner.thought_id == wide.thought_id and inner.confirmation_count == 1
    assert again.thought_id == timeless.thought_id and again.confirmation_count == 1
    assert await store.count_thoughts() == 2


async def test_an_open_interval_is_not_covered_by_a_bounded_one(store):
    bounded = await store.create_thought(
        thought(FACT, valid_from="2023-01-01", valid_until="2023-02-01"), deduplicate=True
    )
    open_ended = await store.create_thought(
        thought(FACT, valid_from="2023-01-10"), deduplicate=True
    )

    assert open_ended.thought_id != bounded.thought_id
    found = await store.list_thoughts(valid_time=ValidTimeFilter.at("2030-01-01"))
    assert [t.thought_id for t in found] == [open_ended.thought_id]
