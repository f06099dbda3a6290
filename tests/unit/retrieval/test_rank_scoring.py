"""Rank weights, signal bounds and confidence (retrieval phases 7 and 9; the signals themselves are
computed in Cypher: tests/integration/test_ranking_in_cypher.py)."""

import itertools
import math

import numpy as np
import pytest
from pydantic import ValidationError

from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.scoring import (
    DEFAULT_WEIGHTS,
    PATHWAY_WEIGHTS,
    SIGNAL_NAMES,
    Calibration,
    CandidateSignals,
    RankWeights,
    calibrated_confidence,
    tune_weights,
)
from engrava_graph.retrieval.types import Pathway


def test_default_weights_are_the_spec_formula() -> None:
    assert DEFAULT_WEIGHTS.as_dict() == {
        "similarity": 0.35,
        "temporal": 0.20,
        "causal": 0.20,
        "importance": 0.15,
        "access_frequency": 0.10,
    }


@pytest.mark.parametrize("pathway", list(Pathway))
def test_every_pathway_has_weights_summing_to_one(pathway: Pathway) -> None:
    assert math.isclose(sum(PATHWAY_WEIGHTS[pathway].as_dict().values()), 1.0)


def test_pathway_emphasis_matches_the_spec() -> None:
    exact, energy, attention = (PATHWAY_WEIGHTS[p] for p in Pathway)
    assert exact.similarity == 0.55
    # the rest of the default weights scaled down proportionally
    assert math.isclose(exact.temporal / exact.importance, 0.20 / 0.15)
    assert math.isclose(exact.causal / exact.access_frequency, 0.20 / 0.10)
    assert energy.importance > DEFAULT_WEIGHTS.importance
    assert energy.access_frequency > DEFAULT_WEIGHTS.access_frequency
    assert attention.causal > DEFAULT_WEIGHTS.causal
    assert attention.temporal > DEFAULT_WEIGHTS.temporal
    assert round(exact.temporal, 6) == 0.138462
    assert round(energy.similarity, 6) == 0.256667
    assert round(attention.similarity, 6) == 0.233333


def test_weights_must_sum_to_one_and_are_frozen() -> None:
    with pytest.raises(ValidationError):
        RankWeights(similarity=0.9)
    with pytest.raises(ValidationError):
        DEFAULT_WEIGHTS.similarity = 0.5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("pathway", "temporal", "causal"),
    list(itertools.product(Pathway, [None, 0.0, 0.3, 1.0], [None, 0.0, 0.5, 1.0])),
)
def test_tuned_weights_sum_to_one(
    pathway: Pathway, temporal: float | None, causal: float | None
) -> None:
    tuned = tune_weights(PATHWAY_WEIGHTS[pathway], temporal_weight=temporal, causal_weight=causal)
    assert math.isclose(sum(tuned.as_dict().values()), 1.0)
    if temporal is not None and causal is not None and temporal + causal > 1.0:
        assert math.isclose(tuned.temporal * causal, tuned.causal * temporal)
    else:
        if temporal is not None:
            assert math.isclose(tuned.temporal, temporal)
        if causal is not None:
            assert math.isclose(tuned.causal, causal)


def test_tuning_scales_the_others_proportionally() -> None:
    tuned = tune_weights(DEFAULT_WEIGHTS, causal_weight=0.0)
    assert tuned.causal == 0.0
    assert math.isclose(tuned.similarity, 0.35 / 0.8)
    assert math.isclose(tuned.access_frequency, 0.10 / 0.8)


def test_no_knobs_return_the_same_weights() -> None:
    assert tune_weights(DEFAULT_WEIGHTS) is DEFAULT_WEIGHTS


@pytest.mark.parametrize("knob", [-0.1, 1.5, float("nan")])
def test_knobs_outside_the_unit_interval_are_rejected(knob: float) -> None:
    with pytest.raises(InvalidQueryError) as caught:
        tune_weights(DEFAULT_WEIGHTS, temporal_weight=knob)
    assert caught.value.field == "temporal_weight"


def test_tuning_that_zeroes_everything_is_rejected() -> None:
    only_time = RankWeights(
        similarity=0.0, temporal=1.0, causal=0.0, importance=0.0, access_frequency=0.0
    )
    with pytest.raises(InvalidQueryError):
        tune_weights(only_time, temporal_weight=0.0)


def signals(**overrides: float) -> CandidateSignals:
    values = {name: 0.5 for name in SIGNAL_NAMES} | {"activation": 1.0} | overrides
    return CandidateSignals(thought_id="t1", **values)


def test_candidate_signals_are_bounded() -> None:
    with pytest.raises(ValidationError):
        signals(similarity=1.2)
    with pytest.raises(ValidationError):
        signals(activation=-0.5)


@pytest.mark.parametrize("lead", [0.0, 0.05, 0.2])
def test_calibrated_confidence_is_monotone_in_the_composite(lead: float) -> None:
    values = [
        calibrated_confidence(float(x), lead, 0, 30, Calibration(), cosine=0.5)
        for x in np.linspace(0, 1, 21)
    ]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(b >= a for a, b in itertools.pairwise(values))


def test_calibrated_confidence_grows_with_the_lead_over_the_next() -> None:
    values = [
        calibrated_confidence(0.5, float(x), 1, 30, Calibration(), cosine=0.5)
        for x in np.linspace(0, 0.5, 11)
    ]
    assert all(b >= a for a, b in itertools.pairwise(values))
    assert calibrated_confidence(
        0.5, -0.1, 1, 30, Calibration(), cosine=0.5
    ) == calibrated_confidence(0.5, 0.0, 1, 30, Calibration(), cosine=0.5)


def test_calibrated_confidence_grows_with_the_cosine_to_the_question() -> None:
    values = [
        calibrated_confidence(0.5, 0.05, 0, 3, Calibration(), cosine=float(x))
        for x in np.linspace(0, 1, 11)
    ]
    assert all(b > a for a, b in itertools.pairwise(values))


@pytest.mark.parametrize("rank", [0, 1, 5])
def test_calibrated_confidence_falls_as_more_candidates_compete(rank: int) -> None:
    values = [
        calibrated_confidence(0.5, 0.05, rank, n, Calibration(), cosine=0.5)
        for n in (0, 1, 3, 10, 100)
    ]
    assert values[0] == values[1]
    assert all(b < a for a, b in itertools.pairwise(values[1:]))


def test_calibrated_confidence_falls_down_the_ranking() -> None:
    values = [
        calibrated_confidence(0.5, 0.05, r, 30, Calibration(), cosine=0.5) for r in (-1, 0, 1, 2, 9)
    ]
    assert values[0] == values[1]
    assert all(b < a for a, b in itertools.pairwise(values[1:]))


def test_a_clear_first_match_among_few_memories_is_confident() -> None:
    """The README's store: three memories, the first ranked a little ahead of the second."""
    assert calibrated_confidence(0.387, 0.018, 0, 3, Calibration(), cosine=0.5) >= 0.7
    assert calibrated_confidence(0.387, 0.018, 0, 80, Calibration(), cosine=0.5) < 0.5


def test_the_first_of_few_unrelated_memories_is_not_confident() -> None:
    """A question nothing stored answers ("weather on Mars" beside the README's memories): the
    first result still leads, but its cosine to the question is near 0."""
    assert calibrated_confidence(0.387, 0.018, 0, 3, Calibration(), cosine=0.05) < 0.5


def test_calibration_is_a_logistic_map() -> None:
    calibration = Calibration(
        bias=-2.0,
        composite_coef=4.0,
        lead_coef=0.0,
        pool_coef=1.0,
        rank_coef=0.0,
        first_bias=0.0,
        first_pool_coef=0.0,
        cosine_coef=2.0,
    )
    assert math.isclose(calibrated_confidence(0.5, 0.3, 2, 1, calibration, cosine=0.0), 0.5)
    assert math.isclose(calibrated_confidence(0.5, 0.3, 2, 3, calibration, cosine=0.0), 1 / (1 + 3))
    assert math.isclose(
        calibrated_confidence(0.5, 0.3, 2, 1, calibration, cosine=0.5), 1 / (1 + 1 / math.e)
    )
    first = calibration.model_copy(update={"first_bias": 1.0, "first_pool_coef": 1.0})
    assert math.isclose(
        calibrated_confidence(0.5, 0.3, 0, 3, first, cosine=0.0), 1 / (1 + 9 / math.e)
    )
    assert calibrated_confidence(0.0, 0.0, 1, 1, Calibration(bias=-1e6), cosine=1.0) == 0.0


def test_calibration_rejects_negative_coefficients() -> None:
    with pytest.raises(ValidationError):
        Calibration(composite_coef=-1.0)
    for name in ("pool_coef", "rank_coef", "first_bias", "first_pool_coef", "cosine_coef"):
        with pytest.raises(ValidationError):
            Calibration(**{name: -1.0})
