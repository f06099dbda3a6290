"""Retrieval metrics without an LLM: evidence recall@k, session hit@k and NDCG@k, latency
percentiles. Standard IR definitions (Järvelin & Kekäläinen 2002 for NDCG)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def evidence_recall_at_k(retrieved: Sequence[set[str]], evidence: set[str], k: int) -> float:
    """Fraction of the evidence turns covered by the top ``k`` results.

    Args:
        retrieved: per result, in rank order, the turn ids it stands for.
        evidence: the question's evidence turn ids (non-empty).
        k: cut-off.
    """
    covered = set().union(*retrieved[:k]) if retrieved[:k] else set()
    return len(covered & evidence) / len(evidence)


def session_hit_at_k(retrieved_sessions: Sequence[set[str]], gold: set[str], k: int) -> float:
    """1.0 when any of the top ``k`` results lies in an evidence session, else 0.0."""
    return 1.0 if any(s & gold for s in retrieved_sessions[:k]) else 0.0


def session_ndcg_at_k(retrieved_sessions: Sequence[set[str]], gold: set[str], k: int) -> float:
    """NDCG@k with binary gains: a result earns 1 the first time it reaches an evidence session
    not already reached higher up; ideal = min(|gold|, k) gains at the top ranks."""
    seen: set[str] = set()
    dcg = 0.0
    for rank, sessions in enumerate(retrieved_sessions[:k], start=1):
        new = (sessions & gold) - seen
        if new:
            seen |= new
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(len(gold), k) + 1))
    return dcg / ideal if ideal else 0.0


def percentiles(values_ms: Sequence[float]) -> dict[str, float]:
    """p50 / p95 (and mean) of latencies in milliseconds (NumPy's linear interpolation)."""
    if not values_ms:
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0}
    arr = np.asarray(values_ms, dtype=float)
    return {"p50": float(np.percentile(arr, 50)), "p95": float(np.percentile(arr, 95)),
            "mean": float(arr.mean())}
