"""Dreaming signals: the peer's formulas and its active-signal weight redistribution."""

from __future__ import annotations

import math

import pytest

from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.dreaming.signals import (
    Candidate,
    active_signals,
    effective_weights,
    score,
    signal_values,
)

CONFIG = DreamingConfig()


def test_signal_values_follow_the_peer_formulas():
    c = Candidate("t", confidence=None, confirmation_count=3, access_count=25, updated_cycle=90)
    values = signal_values(c, CONFIG, current_cycle=100)
    assert values["recency"] == pytest.approx(math.exp(-0.01 * 10))
    assert values["confirmation"] == pytest.approx(0.6)
    assert values["confidence"] == 0.5  # unset reads as 0.5
    assert values["frequency"] == 1.0  # saturates at 10 accesses
    assert signal_values(c, CONFIG, current_cycle=50)["recency"] == 1.0  # no negative age


def test_only_signals_with_data_are_active():
    flat = [Candidate("a", None, 0, 0, 0), Candidate("b", None, 0, 0, 0)]
    assert active_signals(flat, access_tracking_enabled=True) == {"recency"}
    rich = [Candidate("a", 0.9, 1, 2, 0), Candidate("b", None, 0, 0, 0)]
    assert active_signals(rich, access_tracking_enabled=False) == {
        "recency",
        "confirmation",
        "confidence",
    }
    assert "frequency" in active_signals(rich, access_tracking_enabled=True)


def test_weights_renormalise_over_active_signals():
    weights = effective_weights(CONFIG.signals, {"recency", "confidence"})
    assert weights["recency"] == pytest.approx(0.25 / 0.40)
    assert weights["confidence"] == pytest.approx(0.15 / 0.40)
    assert weights["frequency"] == weights["confirmation"] == 0.0
    assert effective_weights({"recency": 0.0}, {"recency"}) == {"recency": 0.0}


def test_score_is_the_weighted_sum_in_unit_range():
    c = Candidate("t", confidence=0.8, confirmation_count=0, access_count=0, updated_cycle=10)
    weights = effective_weights(CONFIG.signals, {"recency", "confidence"})
    expected = weights["recency"] * 1.0 + weights["confidence"] * 0.8
    assert score(c, weights, CONFIG, current_cycle=10) == pytest.approx(expected)
    assert 0.0 <= expected <= 1.0
