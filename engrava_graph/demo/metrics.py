"""Retrieval metrics without an LLM: evidence recall@k, session hit@k and NDCG@k, latency
percentiles. Standard IR definitions (Järvelin & Kekäläinen 2002 for NDCG)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

import numpy as np


def evidence_recall_at_k(
    retrieved: Sequence[AbstractSet[str]], evidence: AbstractSet[str], k: int
) -> float:
    """Fraction of the evidence turns covered by the top ``k`` results.

    Args:
        retrieved: per result, in rank order, the turn ids it stands for.
        evidence: the question's evidence turn ids (non-empty).
        k: cut-off.
    """
    covered = set().union(*retrieved[:k]) if retrieved[:k] else set()
    return len(covered & evidence) / len(evidence)


def session_hit_at_k(
    retrieved_sessions: Sequence[AbstractSet[str]], gold: AbstractSet[str], k: int
) -> float:
    """1.0 when any of the top ``k`` results lies in an evidence session, else 0.0."""
    return 1.0 if any(s & gold for s in retrieved_sessions[:k]) else 0.0


def session_ndcg_at_k(
    retrieved_sessions: Sequence[AbstractSet[str]], gold: AbstractSet[str], k: int
) -> float:
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
    return {
        "p50": float(np.percentile(arr, 50)),
        "p95": float(np.percentile(arr, 95)),
        "mean": float(arr.mean()),
    }


def calibration(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> dict[str, object]:
    """Expected calibration error (Guo et al. 2017) over ``bins`` equal-width confidence bins.

    Args:
        confidences: per result, its confidence in [0, 1].
        correct: per result, whether it is right (here: it stands for an evidence turn).
        bins: number of bins over [0, 1] (the last one includes 1.0).

    Returns:
        ``{"ece": sum_b n_b / N * |accuracy_b - mean confidence_b|, "results": N, "bins":
        [{"low", "high", "n", "confidence", "accuracy"}, ...]}`` (empty bins have n = 0 and
        null means).
    """
    conf = np.clip(np.asarray(confidences, dtype=float), 0.0, 1.0)
    hits = np.asarray(correct, dtype=float)
    index = np.minimum((conf * bins).astype(int), bins - 1)
    table, ece = [], 0.0
    for b in range(bins):
        members = index == b
        n = int(members.sum())
        mean_conf = float(conf[members].mean()) if n else None
        accuracy = float(hits[members].mean()) if n else None
        if n:
            ece += n / len(conf) * abs(accuracy - mean_conf)  # type: ignore[operator]
        table.append(
            {
                "low": b / bins,
                "high": (b + 1) / bins,
                "n": n,
                "confidence": mean_conf,
                "accuracy": accuracy,
            }
        )
    return {"ece": round(ece, 6), "results": int(len(conf)), "bins": table}


def routing_accuracy(
    recall_by_pathway: Sequence[dict[str, float]], chosen: Sequence[str]
) -> dict[str, object]:
    """How often the router picks a pathway that gives the best recall.

    Args:
        recall_by_pathway: per question, ``{pathway: recall@10 when that pathway is forced}``.
        chosen: per question, the pathway ``auto`` chose.

    Returns:
        ``{"questions", "differing"`` (questions whose pathways' recalls are not all equal),
        ``"correct"`` (of those, auto chose a best one), ``"accuracy"`` (correct / differing,
        0.0 when none differ), ``"best_counts"`` ({pathway: how often it is a best one where
        they differ}), ``"chosen_counts"`` ({pathway: how often auto chose it})}``.
    """
    differing = correct = 0
    best_counts: dict[str, int] = {}
    chosen_counts: dict[str, int] = {}
    for recalls, pick in zip(recall_by_pathway, chosen, strict=True):
        chosen_counts[pick] = chosen_counts.get(pick, 0) + 1
        top = max(recalls.values())
        if min(recalls.values()) == top:
            continue
        differing += 1
        best = {p for p, r in recalls.items() if r == top}
        for p in best:
            best_counts[p] = best_counts.get(p, 0) + 1
        correct += pick in best
    return {
        "questions": len(chosen),
        "differing": differing,
        "correct": correct,
        "accuracy": round(correct / differing, 6) if differing else 0.0,
        "best_counts": dict(sorted(best_counts.items())),
        "chosen_counts": dict(sorted(chosen_counts.items())),
    }
