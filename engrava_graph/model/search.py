"""Results of the 003 search paths (``search_fts``, ``search_similar``, ``search_hybrid``)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class HybridSearchResult:
    """Fused ranking of ``search_hybrid`` / ``recall``, as in the peer package ``engrava``.

    Attributes:
        results: ``(thought_id, score)`` pairs, score in [0, 1], sorted descending, ties by id.
        backends_used: the signals that were available for this query, a subset of
            ``{"fulltext", "vector", "recency", "priority"}``.
        recency_axis: ``"cycle"``, ``"transaction"`` or ``None`` (recency off).
        reflections_evicted: REFLECTIONs left out of ``results`` by the reflection cap.
    """

    results: list[tuple[str, float]] = field(default_factory=list)
    backends_used: frozenset[str] = field(default_factory=frozenset)
    recency_axis: str | None = None
    reflections_evicted: int = 0
