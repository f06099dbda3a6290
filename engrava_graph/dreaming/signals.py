"""Dreaming signals: per-thought scores in [0, 1] from the record's own fields (the
confidence signal reads ``confidence``, the confirmation signal ``confirmation_count``, the
frequency signal ``access_count``).

Formulas are the peer's (``engrava.domain.dreaming``): recency ``exp(-rate * age_cycles)``,
confirmation ``min(1, count / saturation)``, confidence the value (0.5 when unset), frequency
``min(1, accesses / saturation)``. A signal is *active* for a run when at least one candidate
carries data for it (peer ``default_signal_active``, decided once over the pool); inactive
signals' weights are redistributed over the active ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engrava_graph.dreaming.config import DreamingConfig


@dataclass(frozen=True)
class Candidate:
    """The fields of one eligible thought that signals read (one row of
    ``dreaming/candidates``), and its ``version`` (changes when the thought is written; the pass
    fingerprint reads it)."""

    thought_id: str
    confidence: float | None
    confirmation_count: int
    access_count: int
    updated_cycle: int
    version: str = ""


def signal_values(c: Candidate, config: DreamingConfig, current_cycle: int) -> dict[str, float]:
    """Every signal's raw value for one candidate, each in [0, 1]."""
    age = max(0, current_cycle - c.updated_cycle)
    return {
        "recency": math.exp(-config.recency_decay_rate * age),
        "confirmation": min(1.0, c.confirmation_count / config.confirmation_saturation),
        "confidence": 0.5 if c.confidence is None else c.confidence,
        "frequency": min(1.0, c.access_count / config.frequency_saturation),
    }


def active_signals(candidates: Sequence[Candidate], *, access_tracking_enabled: bool) -> set[str]:
    """The signals with a data source in this pool (recency always has one: the run's cycle).

    Args:
        candidates: the run's pool.
        access_tracking_enabled: frequency counts only when the store tracks accesses.
    """
    active = {"recency"}
    if any(c.confirmation_count > 0 for c in candidates):
        active.add("confirmation")
    if any(c.confidence is not None for c in candidates):
        active.add("confidence")
    if access_tracking_enabled and any(c.access_count > 0 for c in candidates):
        active.add("frequency")
    return active


def effective_weights(configured: Mapping[str, float], active: set[str]) -> dict[str, float]:
    """Configured weights renormalised over the active signals (0 for inactive ones); all zero
    when no active signal has weight (peer ``_compute_active_weights``)."""
    total = sum(w for name, w in configured.items() if name in active)
    if total <= 0:
        return dict.fromkeys(configured, 0.0)
    return {name: (w / total if name in active else 0.0) for name, w in configured.items()}


def score(
    c: Candidate, weights: Mapping[str, float], config: DreamingConfig, current_cycle: int
) -> float:
    """The weighted signal score of one candidate, in [0, 1]."""
    values = signal_values(c, config, current_cycle)
    return sum(values[name] * w for name, w in weights.items() if w > 0)
