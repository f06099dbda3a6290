"""Weights, constants and confidence of the Decay, Rank and Score phases.

Every signal is a float in [0, 1] so the Phase 7 composite is a convex combination and stays in
[0, 1]. The signals and the composite are computed in Cypher (``cypher/retrieval/_rank``, with
the weights and constants defined here as its parameters); Phase 9's confidence
(:func:`calibrated_confidence`) is computed here from the ranking it returns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.types import SUM_TOLERANCE, Pathway, UnitFloat

SignalName = Literal["similarity", "temporal", "causal", "importance", "access_frequency"]
"""The five ranked signals of the Rank phase, named as in :class:`RankWeights`."""

SIGNAL_NAMES: Final[tuple[SignalName, ...]] = (
    "similarity",
    "temporal",
    "causal",
    "importance",
    "access_frequency",
)


class RankWeights(BaseModel):
    """Weights of the Phase 7 composite score; non-negative, summing to 1.

    The defaults give the formula::

        score = similarity * 0.35 + temporal * 0.20 + causal * 0.20
              + importance * 0.15 + access_frequency * 0.10

    Frozen: derive variants with :func:`tune_weights` or ``model_copy(update=...)``
    (which skips validation, so prefer :func:`tune_weights`).

    Examples:
        >>> RankWeights().similarity
        0.35
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    similarity: UnitFloat = 0.35
    temporal: UnitFloat = 0.20
    causal: UnitFloat = 0.20
    importance: UnitFloat = 0.15
    access_frequency: UnitFloat = 0.10

    @model_validator(mode="after")
    def _sums_to_one(self) -> RankWeights:
        total = sum(self.as_dict().values())
        if not math.isclose(total, 1.0, abs_tol=SUM_TOLERANCE):
            raise ValueError(f"rank weights must sum to 1, got {total}")
        return self

    def as_dict(self) -> dict[SignalName, float]:
        """Return the weights keyed by signal name, in :data:`SIGNAL_NAMES` order."""
        return {name: float(getattr(self, name)) for name in SIGNAL_NAMES}


def _pin(weights: RankWeights, pinned: Mapping[SignalName, float]) -> RankWeights:
    """Set some weights to given values and rescale the others to keep the sum at 1.

    If the pinned values sum to at most 1 and some unpinned weight is positive, pinned
    weights keep their values exactly and the unpinned ones are scaled by
    ``(1 - sum(pinned)) / sum(unpinned)``. Otherwise the whole vector is divided by its sum.
    """
    current = weights.as_dict()
    free = {name: w for name, w in current.items() if name not in pinned}
    pinned_total, free_total = sum(pinned.values()), sum(free.values())
    if pinned_total <= 1.0 and free_total > 0.0:
        scale = (1.0 - pinned_total) / free_total
        merged = {**{n: w * scale for n, w in free.items()}, **pinned}
    else:
        total = pinned_total + free_total
        if total == 0.0:
            raise InvalidQueryError("all rank weights would be zero", field="weights")
        merged = {n: w / total for n, w in {**free, **pinned}.items()}
    return RankWeights(**merged)


DEFAULT_WEIGHTS: Final = RankWeights()
"""The default Rank weights: 0.35 / 0.20 / 0.20 / 0.15 / 0.10."""

PATHWAY_PINS: Final[Mapping[Pathway, Mapping[SignalName, float]]] = MappingProxyType(
    {
        Pathway.EXACT: MappingProxyType({"similarity": 0.55}),
        Pathway.ENERGY: MappingProxyType({"importance": 0.25, "access_frequency": 0.20}),
        Pathway.ATTENTION: MappingProxyType({"temporal": 0.30, "causal": 0.30}),
    }
)
"""The weights each pathway raises (the Rank phase); the rest of :data:`DEFAULT_WEIGHTS` is
scaled proportionally to fill the remainder."""

PATHWAY_WEIGHTS: Final[Mapping[Pathway, RankWeights]] = MappingProxyType(
    {pathway: _pin(DEFAULT_WEIGHTS, pins) for pathway, pins in PATHWAY_PINS.items()}
)
"""Rank weights per pathway (similarity / temporal / causal / importance / access_frequency):

* exact: 0.55 / 0.138462 / 0.138462 / 0.103846 / 0.069231 (the other four x 0.45/0.65)
* energy: 0.256667 / 0.146667 / 0.146667 / 0.25 / 0.20 (the first three x 0.55/0.75)
* attention: 0.233333 / 0.30 / 0.30 / 0.10 / 0.066667 (the other three x 0.40/0.60)
"""


def tune_weights(
    weights: RankWeights,
    *,
    temporal_weight: float | None = None,
    causal_weight: float | None = None,
) -> RankWeights:
    """Apply a request's ``temporal_weight`` / ``causal_weight`` knobs.

    A knob left as None keeps the pathway's value. A given knob replaces that weight
    exactly and the other weights are scaled proportionally so the vector sums to 1; if
    both knobs are given and add up to more than 1, all five weights are divided by their
    sum instead (so the knobs keep their ratio, not their values).

    When Phase 6 is skipped (non-causal intent), pass ``causal_weight=0.0`` unless the
    request set it, so the absent causal signal does not cap every composite at 0.8.

    Args:
        weights: The pathway's weights, e.g. ``PATHWAY_WEIGHTS[Pathway.EXACT]``.
        temporal_weight: Recency/temporal weight in [0, 1], or None.
        causal_weight: Causal weight in [0, 1], or None.

    Returns:
        New weights summing to 1.

    Raises:
        InvalidQueryError: If a knob is outside [0, 1] or every weight would be zero.

    Examples:
        >>> tune_weights(RankWeights(), temporal_weight=0.5).temporal
        0.5
    """
    knobs: tuple[tuple[SignalName, float | None], ...] = (
        ("temporal", temporal_weight),
        ("causal", causal_weight),
    )
    pinned: dict[SignalName, float] = {}
    for name, knob in knobs:
        if knob is None:
            continue
        if not 0.0 <= knob <= 1.0:
            field = f"{name}_weight"
            raise InvalidQueryError(f"{field} must be in [0, 1], got {knob}", field=field)
        pinned[name] = float(knob)
    return _pin(weights, pinned) if pinned else weights


PRIORITY_BOOST: Final[Mapping[str, float]] = MappingProxyType(
    {"P1": 1.0, "P2": 0.6, "P3": 0.3, "P4": 0.0}
)
"""Priority to importance, as the peer ``engrava``'s default priority boost."""

PRIORITY_SHARE: Final = 0.7
"""Share of priority in the importance signal (``PRIORITY_SHARE * PRIORITY_BOOST[priority] + (1 -
PRIORITY_SHARE) * confidence``); the rest is the thought's confidence."""

NEUTRAL_CONFIDENCE: Final = 0.5
"""Confidence assumed for a thought that has none."""

ACCESS_SATURATION: Final = 10
"""Accesses at which the access-frequency signal reaches 1: ``ln(1 + n) / ln(1 + 10)``."""


class CandidateSignals(BaseModel):
    """The per-candidate signals ranked in Phase 7, each in [0, 1].

    Attributes:
        thought_id: The candidate thought.
        similarity: Fused semantic/keyword relevance to the query, 0 = unrelated. Neo4j's
            cosine vector index returns ``(1 + cos) / 2``; rescale it to ``max(0, 2s - 1)``
            first, or unrelated text would look half-relevant.
        temporal: Temporal relevance: inside the query's time range, or recency by
            decay (``1 / (1 + age_days * decay_rate)``) when the query has none.
        causal: Causal relevance from Phase 6 (0 when the phase did not run).
        importance: the priority's boost and the thought's confidence (:data:`PRIORITY_SHARE`).
        access_frequency: ``ln(1 + accesses) / ln(1 + ACCESS_SATURATION)``, at most 1.
        activation: 1 for a directly activated candidate, ``0.5 ** hops`` for one reached by
            spreading activation (Phase 4, after Collins & Loftus 1975).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    thought_id: str = Field(min_length=1)
    similarity: UnitFloat
    temporal: UnitFloat
    causal: UnitFloat
    importance: UnitFloat
    access_frequency: UnitFloat
    activation: UnitFloat = 1.0


class Calibration(BaseModel):
    """A logistic map from a candidate's Phase 9 inputs to the probability that it answers the
    query (Platt scaling, Platt 1999)::

        z = bias + composite_coef * composite + lead_coef * lead + cosine_coef * cosine
            - pool_coef * ln(candidates) - rank_coef * ln(1 + rank)
            + (first_bias - first_pool_coef * ln(candidates))   [first-ranked result only]
        confidence = 1 / (1 + exp(-z))

    where ``lead`` is the composite's margin over the next-ranked candidate (a memory that
    stands out is likelier right than one among equals), ``cosine`` its cosine to the question
    (an absolute match: the composite and the lead are relative to the other candidates, so
    without it the first of three unrelated memories looked right), ``rank`` its 0-based place
    in the ranking and ``candidates`` how many memories were ranked: the prior that a result is
    right falls down the ranking and as more memories compete, and the first result's more steeply
    (one right memory among 3 is first far more often than one among 80). Every coefficient is
    non-negative, so confidence rises with the composite, the lead and the cosine and falls with
    the rank and the pool.

    The defaults were fitted by logistic regression (``benchmarks/fit_calibration.py``) on LoCoMo
    (one memory per turn), the tuning conversations conv-26, conv-30, conv-41 and conv-42 only,
    at three store sizes: each whole conversation, each of its sessions alone, and per question
    small stores of 3 and 10 memories (its evidence turns and random other turns); and, so that
    a question nothing in the store answers gets a low confidence, every fourth question asked
    of another conversation's whole store and of small stores of its turns (every result not
    evidence); label = the result is one of the question's evidence turns; every result of
    ``retrieve(top_k=10)`` with all defaults and ``now`` = the day after the last session
    (29,963 results, 11.6 % evidence). In-sample expected calibration error (10 bins,
    confidences capped down the ranking as Phase 9 does): 0.023 whole, 0.015 sessions, 0.026
    small stores, 0.049 unanswered (where a first result at 0.7 or more fell from 30 % to 4 %).
    See docs/retrieval.md, "Confidence".
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    bias: float = -3.117
    composite_coef: float = Field(default=1.664, ge=0.0)
    lead_coef: float = Field(default=10.306, ge=0.0)
    pool_coef: float = Field(default=0.369, ge=0.0)
    rank_coef: float = Field(default=0.748, ge=0.0)
    first_bias: float = Field(default=1.729, ge=0.0)
    first_pool_coef: float = Field(default=0.24, ge=0.0)
    cosine_coef: float = Field(default=4.223, ge=0.0)


def calibrated_confidence(
    composite: float,
    lead: float,
    rank: int,
    candidates: int,
    calibration: Calibration,
    *,
    cosine: float,
) -> float:
    """Phase 9 confidence: the calibrated probability in [0, 1] that a memory answers the query.

    Args:
        composite: its Phase 7 score in [0, 1].
        lead: its composite minus the next-ranked candidate's (0 for ties and for the last
            candidate).
        rank: its 0-based place in the ranking (negative counts as 0).
        candidates: how many candidates were ranked (at least 1 counts).
        calibration: the fitted map (:class:`Calibration`).
        cosine: its cosine to the question in [0, 1] (its keyword score when there is none:
            no question vector, or a memory without an embedding).

    Returns:
        Confidence in [0, 1], non-decreasing in ``composite``, ``lead`` and ``cosine``,
        non-increasing in ``candidates`` and in ``rank``.
    """
    pool = math.log(max(candidates, 1))
    z = (
        calibration.bias
        + calibration.composite_coef * composite
        + calibration.lead_coef * max(lead, 0.0)
        + calibration.cosine_coef * cosine
        - calibration.pool_coef * pool
        - calibration.rank_coef * math.log1p(max(rank, 0))
    )
    if rank <= 0:
        z += calibration.first_bias - calibration.first_pool_coef * pool
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
