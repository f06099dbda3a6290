"""Post-ranking filters (000 Phase 8): near-duplicate collapse and ``min_confidence``.

The metadata filter runs inside Cypher, not here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from engrava_graph.model.errors import InvalidQueryError

DUPLICATE_THRESHOLD: Final = 0.95
"""Cosine similarity above which two candidates are near-duplicates (000 Phase 8)."""


def collapse_near_duplicates(
    ids_in_rank_order: Sequence[str],
    vectors: Mapping[str, np.ndarray | None],
    threshold: float = DUPLICATE_THRESHOLD,
) -> tuple[list[str], dict[str, str]]:
    """Drop candidates whose embedding is a near-duplicate of a higher-ranked kept one.

    Walks the ranking from the top; a candidate is dropped when its cosine similarity to
    some already-kept candidate is strictly greater than ``threshold``, and is mapped to
    the highest-ranked such candidate. Candidates with no vector (missing, None, or all
    zeros) are always kept and never absorb others. The ``n x n`` cosine matrix is one
    numpy product; n is the candidate pool (at most a few hundred).

    Args:
        ids_in_rank_order: Unique thought ids, best first.
        vectors: Embedding per id, each of shape ``(d,)`` with the same ``d``.
        threshold: Cosine similarity in [-1, 1]; above it two candidates are duplicates.

    Returns:
        ``(kept_ids, dropped)``: the kept ids in rank order, and ``dropped_id -> kept_id``.

    Raises:
        ValueError: If ids repeat or vectors differ in dimension.

    Examples:
        >>> import numpy as np
        >>> vs = {"a": np.array([1.0, 0.0]), "b": np.array([0.99, 0.01]), "c": np.array([0.0, 1.0])}
        >>> collapse_near_duplicates(["a", "b", "c"], vs)
        (['a', 'c'], {'b': 'a'})
    """
    ids = list(ids_in_rank_order)
    if len(set(ids)) != len(ids):
        raise ValueError("ids_in_rank_order must not repeat an id")
    with_vectors = [i for i in ids if _usable(vectors.get(i))]
    if len(with_vectors) < 2:
        return ids, {}
    try:
        matrix = np.stack([np.asarray(vectors[i], dtype=np.float64).ravel() for i in with_vectors])
    except ValueError as error:
        raise ValueError("all vectors must have the same dimension") from error
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    similar = (matrix @ matrix.T) > threshold

    row_of = {thought_id: row for row, thought_id in enumerate(with_vectors)}
    kept_rows = np.zeros(len(with_vectors), dtype=bool)
    kept: list[str] = []
    dropped: dict[str, str] = {}
    for thought_id in ids:
        row = row_of.get(thought_id)
        if row is None:
            kept.append(thought_id)
            continue
        matches = np.flatnonzero(similar[row] & kept_rows)
        if matches.size:
            dropped[thought_id] = with_vectors[int(matches[0])]
        else:
            kept_rows[row] = True
            kept.append(thought_id)
    return kept, dropped


def _usable(vector: np.ndarray | None) -> bool:
    return vector is not None and bool(np.any(np.asarray(vector) != 0))


def apply_min_confidence(
    ids_in_rank_order: Sequence[str], confidences: Mapping[str, float], min_confidence: float
) -> list[str]:
    """Keep the candidates whose confidence is at least ``min_confidence`` (000 Phase 8).

    Args:
        ids_in_rank_order: Thought ids, best first.
        confidences: Phase 9 confidence per id, in [0, 1].
        min_confidence: The request's threshold in [0, 1]; 0 keeps everything.

    Returns:
        The ids that pass, in the given order.

    Raises:
        InvalidQueryError: If ``min_confidence`` is outside [0, 1].
        KeyError: If an id has no confidence.
    """
    if not 0.0 <= min_confidence <= 1.0:
        raise InvalidQueryError(
            f"min_confidence must be in [0, 1], got {min_confidence}", field="min_confidence"
        )
    return [i for i in ids_in_rank_order if confidences[i] >= min_confidence]
