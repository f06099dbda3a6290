"""Dreaming gates and config: cycle requirement, schedule, Cypher gate parameters, score gate."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from engrava_graph.dreaming.config import DreamingConfig, DreamingGates, HygienePolicy
from engrava_graph.dreaming.gates import eligibility_params, passing_score_gate, require_cycle
from engrava_graph.dreaming.signals import Candidate
from engrava_graph.model import CycleProviderError, CycleRequiredError, StaticCycleProvider
from engrava_graph.model.enums import ThoughtType


def test_a_pass_needs_a_cycle_and_an_explicit_zero_wins():
    with pytest.raises(CycleRequiredError) as info:
        require_cycle(None, None, "consolidate()")
    assert isinstance(info.value, ValueError) and "consolidate()" in str(info.value)
    assert require_cycle(0, StaticCycleProvider(9), "x") == 0
    assert require_cycle(None, StaticCycleProvider(9), "x") == 9
    with pytest.raises(CycleProviderError):
        require_cycle(-1, None, "x")


def test_schedule_runs_at_positive_multiples_only():
    config = DreamingConfig(schedule_every_n_cycles=3)
    assert [c for c in range(10) if config.is_due(c)] == [3, 6, 9]
    assert not DreamingConfig().is_due(0) and DreamingConfig().is_due(1)


def test_eligibility_params_carry_the_gates_in_their_units():
    gates = DreamingGates(
        thought_types=(ThoughtType.OBSERVATION, ThoughtType.NOTE),
        min_age_cycles=3,
        allow_zero_confirmation=False,
        min_confirmations=1,
    )
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert eligibility_params(gates, 10, now) == {
        "thought_types": ["OBSERVATION", "NOTE"],
        "current_cycle": 10,
        "min_age_cycles": 3,
        "allow_zero_confirmation": False,
        "min_confirmations": 1,
        "now": now,
    }


def test_score_gate_keeps_order_and_threshold_is_inclusive():
    cands = [Candidate(i, None, 0, 0, 0) for i in ("a", "b", "c")]
    kept = passing_score_gate(cands, {"a": 0.5, "b": 0.2, "c": 0.9}, DreamingGates(min_score=0.5))
    assert [c.thought_id for c in kept] == ["a", "c"]


@pytest.mark.parametrize(
    "bad",
    [
        {"gates": {"min_cluster_size": 5, "max_cluster_size": 4}},
        {"gates": {"thought_types": []}},
        {"signals": {"novelty": 1.0}},
        {"signals": {"recency": -1.0}},
        {"similarity_threshold": 1.5},
        {"schedule_every_n_cycles": 0},
    ],
)
def test_bad_configs_are_refused(bad):
    with pytest.raises(ValidationError):
        DreamingConfig.model_validate(bad)


def test_configs_are_frozen_and_changed_by_copy():
    config = DreamingConfig()
    with pytest.raises(ValidationError):
        config.similarity_threshold = 0.5  # type: ignore[misc]
    assert config.model_copy(update={"neighbours_k": 3}).neighbours_k == 3
    assert HygienePolicy().enabled is False
