"""Hybrid fusion of the search signals (``search_hybrid`` / ``recall``), pure functions.

Signals, as in the peer package ``engrava``:

- keyword: Lucene BM25 scores, min-max normalised over the candidate set (all equal -> 1.0);
- vector: cosine similarity clipped to [0, 1];
- recency, on exactly one axis: cycles ``exp(-ln2 * age_cycles / half_life_cycles)`` with
  ``age = current_cycle - updated_cycle``, or transaction time
  ``exp(-ln2 * age_seconds / half_life_seconds)`` from ``updated_at`` (else ``created_at``);
  a missing timestamp scores 0 (maximally old);
- priority: P1 1.0, P2 0.6, P3 0.3, P4 0.0.

``score = sum(w_i * s_i)`` over the *active* signals, with the weights of inactive signals
redistributed proportionally to the active ones (so scores stay in [0, 1]).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import ConfigDict, Field

from engrava_graph.model.bounds import BoundedModel, Count, PositiveCount
from engrava_graph.model.errors import InvalidRecencyArgumentError, RecencyModeConflictError
from engrava_graph.model.temporal import parse_now, to_utc

PRIORITY_BOOST: Mapping[str, float] = {"P1": 1.0, "P2": 0.6, "P3": 0.3, "P4": 0.0}


class SearchConfig(BoundedModel):
    """Defaults of hybrid search (the peer's ``SearchConfig`` values).

    Attributes:
        fts_weight, vector_weight, priority_weight: fusion weights (>= 0); the recency weight
            and half-lives are in :class:`TimeConfig`, which ``retrieve`` reads too.
        exact_vector_max_thoughts: on Neo4j 5.26, or under a metadata filter, a namespace (or
            filtered set) with at most this many thoughts is searched by exact cosine, a larger
            one by the HNSW vector index, over-fetched (2026.x without a metadata filter always
            searches the index filtered to the namespace).
        vector_overfetch: minimum ANN over-fetch factor (raised by the database/namespace ratio).
        reflection_topk_cap: at most ``int(top_k * cap)`` REFLECTIONs in a result list (the
            peer's ``reflection_topk_cap``: 1 of a top 5); the rest make room for other thoughts.
    """

    model_config = ConfigDict(frozen=True)

    fts_weight: float = Field(default=0.3, ge=0.0)
    vector_weight: float = Field(default=0.55, ge=0.0)
    priority_weight: float = Field(default=0.05, ge=0.0)
    exact_vector_max_thoughts: Count = 2_000
    vector_overfetch: PositiveCount = 4
    reflection_topk_cap: float = Field(default=0.3, ge=0.0, le=1.0)


class TimeConfig(BoundedModel):
    """Time and recency settings that every ranked path reads (``search_hybrid``/``recall``,
    ``retrieve``/``explain``, dreaming's reflection search); the REST service sets its default
    from ``ENGRAVA_TIME`` (JSON).

    Attributes:
        recency_weight: the recency signal's fusion weight in ``search_hybrid`` (>= 0; the
            peer's 0.1).
        half_life_cycles: cycles for cycle-axis recency to halve (every path).
        half_life_seconds: seconds for transaction-time recency to halve (7 days; every path).
        access_decay_rate: per day, ``retrieve``'s access-axis decay
            ``1 / (1 + age_days * rate)`` when only ``now`` is given (0 disables it).
    """

    model_config = ConfigDict(frozen=True)

    recency_weight: float = Field(default=0.1, ge=0.0)
    half_life_cycles: PositiveCount = 50
    half_life_seconds: PositiveCount = 604_800
    access_decay_rate: float = Field(default=0.05, ge=0.0)


class RecencyAxis(StrEnum):
    """Which clock recency reads."""

    CYCLE = "cycle"
    TRANSACTION = "transaction"


@dataclass(frozen=True)
class RecencyReference:
    """The resolved recency reference of one query.

    Attributes:
        axis: CYCLE or TRANSACTION.
        cycle: current cognitive cycle (CYCLE axis).
        now: the caller's instant, aware UTC (TRANSACTION axis).
        half_life: cycles (CYCLE) or seconds (TRANSACTION).
    """

    axis: RecencyAxis
    cycle: int | None = None
    now: datetime | None = None
    half_life: float = 1.0

    def score(self, updated_cycle: int | None, updated_at: object, created_at: object) -> float:
        """Recency in [0, 1] of one thought (see module docstring)."""
        rate = math.log(2) / self.half_life
        if self.axis is RecencyAxis.CYCLE:
            age = max((self.cycle or 0) - int(updated_cycle or 0), 0)
            return math.exp(-rate * age)
        stamp = updated_at if updated_at is not None else created_at
        if stamp is None or self.now is None:
            return 0.0
        age_seconds = max((self.now - to_utc(stamp)).total_seconds(), 0.0)  # type: ignore[arg-type]
        return math.exp(-rate * age_seconds)


def resolve_recency(
    *,
    current_cycle: int | None,
    recency_now: datetime | str | None,
    provider_cycle: int | None,
    config: TimeConfig,
    recency_half_life: int | None = None,
    recency_now_half_life: int | None = None,
) -> RecencyReference | None:
    """Pick the recency axis of a query (cycle or transaction time).

    Explicit ``current_cycle`` and ``recency_now`` together conflict; an explicit ``recency_now``
    wins over a provider's cycle; with no reference recency is off (None).

    Args:
        current_cycle: the explicit cycle argument (already validated), or None.
        recency_now: the explicit transaction-time instant, or None.
        provider_cycle: the cycle provider's value when no explicit cycle was given, or None.
        config: defaults for the half-lives.
        recency_half_life: override, cycles (> 0).
        recency_now_half_life: override, seconds (> 0).

    Raises:
        RecencyModeConflictError: both explicit references.
        InvalidRecencyArgumentError: malformed ``recency_now`` or a non-positive half-life.
    """
    if current_cycle is not None and recency_now is not None:
        raise RecencyModeConflictError()
    for name, value in (
        ("recency_half_life", recency_half_life),
        ("recency_now_half_life", recency_now_half_life),
    ):
        if value is not None and (isinstance(value, bool) or not value > 0):  # NaN too
            raise InvalidRecencyArgumentError(name, value, "a positive number")
    if recency_now is not None:
        return RecencyReference(
            axis=RecencyAxis.TRANSACTION,
            now=parse_now("recency_now", recency_now),
            half_life=float(recency_now_half_life or config.half_life_seconds),
        )
    cycle = current_cycle if current_cycle is not None else provider_cycle
    if cycle is None:
        return None
    return RecencyReference(
        axis=RecencyAxis.CYCLE,
        cycle=cycle,
        half_life=float(recency_half_life or config.half_life_cycles),
    )


def redistribute(weights: Mapping[str, float], active: Iterable[str]) -> dict[str, float]:
    """Scale the active signals' weights to sum to 1; inactive signals get 0.

    Examples:
        >>> redistribute({"a": 0.5, "b": 0.25, "c": 0.25}, ["a", "b"])
        {'a': 0.6666666666666666, 'b': 0.3333333333333333, 'c': 0.0}
    """
    active_set = set(active)
    total = sum(w for k, w in weights.items() if k in active_set)
    if total <= 0:
        return {k: 0.0 for k in weights}
    return {k: (w / total if k in active_set else 0.0) for k, w in weights.items()}


#: Keyword scores closer than this are equal for :func:`min_max`: BM25 differences that small
#: come only from terms in most of the namespace's thoughts (idf floored at 1e-6), i.e. noise
#: that stretching to [0, 1] would turn into a full-weight signal.
MIN_MAX_TOLERANCE = 1e-4


def min_max(scores: Mapping[str, float]) -> dict[str, float]:
    """Min-max normalise to [0, 1]; when all scores are equal (within
    :data:`MIN_MAX_TOLERANCE`) every one becomes 1.0."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low <= MIN_MAX_TOLERANCE:
        return {k: 1.0 for k in scores}
    return {k: (v - low) / (high - low) for k, v in scores.items()}


def fuse(
    signals: Mapping[str, Mapping[str, float]], weights: Mapping[str, float], top_k: int
) -> list[tuple[str, float]]:
    """Weighted sum of per-signal scores, ranked.

    Args:
        signals: ``{signal: {thought_id: score in [0, 1]}}``; a thought missing from a signal
            scores 0 on it.
        weights: ``{signal: weight}`` already redistributed.
        top_k: how many to return.

    Returns:
        ``(thought_id, score)`` sorted by score descending, ties by thought_id ascending.
    """
    ids: set[str] = set()
    for per_id in signals.values():
        ids.update(per_id)
    scored = [
        (tid, sum(weights.get(s, 0.0) * signals[s].get(tid, 0.0) for s in signals)) for tid in ids
    ]
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return [(tid, round(score, 12)) for tid, score in scored[:top_k]]


def cap_reflections(
    ranked: Sequence[tuple[str, float]], reflection_ids: Iterable[str], top_k: int, cap: float
) -> tuple[list[tuple[str, float]], int]:
    """The first ``top_k`` of ``ranked`` with at most ``int(top_k * cap)`` reflections: a
    reflection past its slots is skipped and the next thought moves up (as the peer's
    ``reflection_topk_cap``).

    Returns:
        ``(results, how many reflections were skipped)``.

    Examples:
        >>> cap_reflections([("r1", .9), ("r2", .8), ("a", .7), ("b", .6)], {"r1", "r2"}, 3, 0.4)
        ([('r1', 0.9), ('a', 0.7), ('b', 0.6)], 1)
    """
    reflections = set(reflection_ids)
    slots = int(top_k * cap + 1e-9)
    kept: list[tuple[str, float]] = []
    evicted = 0
    for thought_id, value in ranked:
        if len(kept) == top_k:
            break
        if thought_id in reflections:
            if slots == 0:
                evicted += 1
                continue
            slots -= 1
        kept.append((thought_id, value))
    return kept, evicted


def index_score_to_cosine(score: float) -> float:
    """Neo4j's cosine score ``(1 + cos) / 2`` back to ``cos`` clipped to [0, 1]."""
    return min(max(2.0 * score - 1.0, 0.0), 1.0)


def cosine_to_index_score(threshold: float) -> float:
    """A cosine threshold in [0, 1] as Neo4j's ``(1 + cos) / 2`` score."""
    return (1.0 + threshold) / 2.0


def priority_scores(rows: Sequence[Mapping[str, object]]) -> dict[str, float]:
    """``{thought_id: boost}`` from rows with ``thought_id`` and ``priority``."""
    return {str(r["thought_id"]): PRIORITY_BOOST.get(str(r["priority"]), 0.0) for r in rows}
