"""Memory hygiene on a real Neo4j: guards, the archive rules, dry run, restore, retirement."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engrava_graph.dreaming.config import DreamingConfig, HygienePolicy
from engrava_graph.model import (
    CycleRequiredError,
    HygienePolicyMissingError,
    LifecycleStatus,
    Priority,
    StaticCycleProvider,
    ThoughtType,
)
from tests.factories import thought

#: Past the default 7-day inactivity window of every thought written by the test.
LATER = datetime.now(UTC) + timedelta(days=8)
POLICY = HygienePolicy(enabled=True, min_age_cycles=5)


@pytest.fixture
async def aged(make_store):
    """A store with a policy and thoughts last touched at cycle 1."""
    store = make_store(hygiene_policy=POLICY)
    await store.ensure_namespace()
    specs = {
        "cold": dict(confidence=0.1),
        "sure": dict(confidence=0.9),
        "unsure_but_read": dict(confidence=0.1, access_count=3),
        "pinned": dict(confidence=0.1, pinned=True),
        "urgent": dict(confidence=0.1, priority=Priority.P1),
        "superseded": dict(
            confidence=0.9,
            valid_from=datetime(2020, 1, 1, tzinfo=UTC),
            valid_until=datetime(2021, 1, 1, tzinfo=UTC),
        ),
        "recent": dict(confidence=0.1, created_cycle=8, updated_cycle=8),
    }
    records = [
        thought(
            f"{name} thought about the garden", **{"created_cycle": 1, "updated_cycle": 1, **fields}
        )
        for name, fields in specs.items()
    ]
    stored = await store.bulk_store(records)
    return store, dict(zip(specs, (t.thought_id for t in stored), strict=True))


async def test_run_hygiene_guards(make_store):
    with pytest.raises(HygienePolicyMissingError) as info:
        await make_store().run_hygiene(10)
    assert isinstance(info.value, RuntimeError)
    disabled = await make_store(hygiene_policy=HygienePolicy()).run_hygiene()  # no cycle needed
    assert disabled.archived_count == 0 and disabled.archived_ids == []
    with pytest.raises(CycleRequiredError):
        await make_store(hygiene_policy=POLICY).run_hygiene()


async def test_rules_archive_old_cold_and_superseded_thoughts(aged):
    store, ids = aged
    assert (await store.run_hygiene(10)).archived_count == 0  # all touched within 7 days
    result = await store.run_hygiene(10, now=LATER)
    assert set(result.archived_ids) == {ids["cold"], ids["superseded"]}
    assert result.reasons == {"cold": 1, "superseded": 1}
    cold = await store.get_thought(ids["cold"])
    assert cold.lifecycle_status is LifecycleStatus.ARCHIVED and cold.archived_at_cycle == 10
    assert cold.archived_at is not None
    hits = await store.recall("cold thought about the garden")
    assert ids["cold"] not in [i for i, _ in hits.results]
    for kept in ("sure", "unsure_but_read", "pinned", "urgent", "recent"):
        assert (await store.get_thought(ids[kept])).lifecycle_status is LifecycleStatus.ACTIVE
    assert (await store.run_hygiene(10, now=LATER)).archived_count == 0  # nothing left


async def test_archive_is_reversible_with_restore_thought(aged):
    store, ids = aged
    await store.run_hygiene(10, now=LATER)
    restored = await store.restore_thought(ids["cold"])
    assert restored.lifecycle_status is LifecycleStatus.ACTIVE
    assert restored.archived_at is None and restored.archived_at_cycle is None
    hits = await store.recall("cold thought about the garden")
    assert ids["cold"] in [i for i, _ in hits.results]


async def test_dry_run_changes_nothing_and_the_cap_bounds_a_run(make_store, aged):
    store, ids = aged
    preview = make_store(
        namespace=store.namespace, hygiene_policy=POLICY.model_copy(update={"dry_run": True})
    )
    result = await preview.run_hygiene(10, now=LATER)
    assert result.dry_run and result.archived_count == 0
    assert dict(result.would_evict) == {ids["cold"]: "cold", ids["superseded"]: "superseded"}
    assert (await store.get_thought(ids["cold"])).lifecycle_status is LifecycleStatus.ACTIVE
    capped = make_store(
        namespace=store.namespace,
        cycle_provider=StaticCycleProvider(10),
        hygiene_policy=POLICY.model_copy(update={"max_evictions_per_run": 1}),
    )
    assert (await capped.run_hygiene(now=LATER)).archived_count == 1


async def test_rules_can_be_switched_off(make_store, aged):
    store, ids = aged
    only_superseded = make_store(
        namespace=store.namespace,
        hygiene_policy=POLICY.model_copy(update={"max_access_count": None, "min_confidence": None}),
    )
    result = await only_superseded.run_hygiene(10, now=LATER)
    assert result.archived_ids == [ids["superseded"]]


BUDGET = (
    "The quarterly budget review is on Friday",
    "The quarterly budget review moved to Friday",
    "Friday's quarterly budget review needs numbers",
)
EAGER = HygienePolicy(
    enabled=True, min_age_cycles=0, min_inactivity_age_seconds=0, min_confidence=None
)  # cold = never accessed


async def test_archiving_a_whole_cluster_retires_its_reflection(make_store):
    store = make_store()
    await store.ensure_namespace()
    members = {
        t.thought_id
        for t in await store.bulk_store(
            [thought(text, created_cycle=1, updated_cycle=1) for text in BUDGET]
        )
    }
    await store.consolidate(2, config=DreamingConfig(similarity_threshold=0.6))
    [reflection] = await store.list_thoughts(thought_type=ThoughtType.REFLECTION.value)
    await store.record_access(reflection.thought_id)  # read, so not cold itself
    forgetful = make_store(namespace=store.namespace, hygiene_policy=EAGER)
    result = await forgetful.run_hygiene(3)
    assert set(result.archived_ids) == members and result.orphans_retired == 1
    hits = [
        i for i, _ in (await store.recall("quarterly budget review", include_archived=True)).results
    ]
    assert members <= set(hits) and reflection.thought_id not in hits


async def test_consolidate_runs_a_due_hygiene_pass_at_its_end(make_store):
    store = make_store(hygiene_policy=EAGER.model_copy(update={"check_every_n_cycles": 2}))
    await store.ensure_namespace()
    await store.bulk_store([thought(text, created_cycle=1, updated_cycle=1) for text in BUDGET])
    config = DreamingConfig(similarity_threshold=0.6)
    assert (await store.consolidate(3, config=config)).hygiene is None
    due = await store.consolidate(4, config=config)
    assert due.hygiene is not None and due.hygiene.archived_count == 4  # 3 members + reflection
