"""The store's search area: ``search_fts``, ``search_similar``, ``search_hybrid`` and ``recall``
(the arms and the fusion are in :mod:`engrava_graph.search`)."""

from __future__ import annotations

import asyncio
import numbers
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engrava_graph.graph.registry import cypher
from engrava_graph.model.bounds import blank
from engrava_graph.model.cycles import resolve_cycle
from engrava_graph.model.enums import ThoughtType
from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.search import HybridSearchResult
from engrava_graph.model.temporal import from_epoch_millis
from engrava_graph.retrieval.encode import query_string
from engrava_graph.search.fusion import (
    cap_reflections,
    fuse,
    min_max,
    priority_scores,
    redistribute,
    resolve_recency,
)
from engrava_graph.search.lucene import query_terms
from engrava_graph.store._base import StoreBase

Q = {name: cypher(name) for name in ("search/fusion_signals",)}
MAX_TOP_K = 1000
"""Most results a search path returns."""


def checked_top_k(top_k: object, *, lowest: int = 1) -> int:
    """``top_k`` as an int when it is an integer in ``lowest`` .. :data:`MAX_TOP_K` (the
    search paths' rule).

    Raises:
        ValidationFailedError: anything else (a bool, a float, a number out of range).
    """
    if isinstance(top_k, numbers.Integral) and not isinstance(top_k, bool):
        if lowest <= int(top_k) <= MAX_TOP_K:
            return int(top_k)
    raise ValidationFailedError(f"top_k must be {lowest}..{MAX_TOP_K}, got {top_k!r}")


class SearchMixin(StoreBase):
    """Keyword, vector and hybrid search of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    def retrievable_scope(
        self,
        *,
        include_archived: bool = False,
        filters: MetadataFilter | Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """The ``search/_retrievable`` parameters for this namespace; expiry is judged at
        ``now`` (the caller's instant), else at the store clock.

        Raises:
            InvalidFilterError: ``filters`` is not a filter (:meth:`MetadataFilter.of`).
        """
        return {
            "namespace": self.namespace,
            "include_archived": include_archived,
            "now": now or self._clock(),
            "meta_filters": MetadataFilter.of(filters).to_params(),
        }

    async def search_fts(
        self, query: str, top_k: int = 10, *, include_archived: bool = False
    ) -> list[tuple[str, float]]:
        """Keyword search over essence and content: BM25 with the namespace's own statistics
        (the full-text index finds the candidates; see :mod:`engrava_graph.search.bm25`).

        Returns:
            ``(thought_id, score > 0)`` best first; the query is plain text (never Lucene
            syntax); [] when it has no informative term (blank, only stop words or
            punctuation).

        Raises:
            InvalidQueryError: ``query`` is not a string.
            ValidationFailedError: ``top_k`` outside 1..1000 (as :meth:`search_hybrid`).
        """
        text = query_string(query, "query")
        return await self._arms.fulltext(
            text, checked_top_k(top_k), self.retrievable_scope(include_archived=include_archived)
        )

    async def search_similar(
        self,
        query_vector: Sequence[float],
        top_k: int = 10,
        threshold: float = 0.0,
        *,
        include_archived: bool = False,
    ) -> list[tuple[str, float]]:
        """Vector search by cosine similarity.

        Returns:
            ``(thought_id, cosine in [0, 1])`` best first, at least ``threshold``.

        Raises:
            ValidationFailedError: wrong vector length, a zero or non-finite norm, ``top_k``
                outside 0..1000 (0 gives [], as the peer's), or a threshold outside [0, 1].
        """
        top_k = checked_top_k(top_k, lowest=0)
        if not 0.0 <= threshold <= 1.0:
            raise ValidationFailedError(f"threshold must be in [0, 1], got {threshold}")
        hits, _ = await self._arms.vector(
            self._check_dims(query_vector),
            top_k,
            self.retrievable_scope(include_archived=include_archived),
            threshold=threshold,
        )
        return hits

    async def search_hybrid(
        self,
        query_text: str,
        query_vector: Sequence[float] | None = None,
        *,
        top_k: int = 10,
        fts_weight: float | None = None,
        vector_weight: float | None = None,
        recency_weight: float | None = None,
        priority_weight: float | None = None,
        recency_half_life: int | None = None,
        current_cycle: int | None = None,
        recency_now: datetime | str | None = None,
        recency_now_half_life: int | None = None,
        fts_top_k: int = 50,
        vector_top_k: int = 50,
        filters: MetadataFilter | Mapping[str, Any] | None = None,
        include_archived: bool = False,
    ) -> HybridSearchResult:
        """Hybrid search: keyword + vector + recency + priority, fused (the peer's semantics).

        Each arm fetches ``max(arm_top_k, top_k)`` candidates; signals are normalised to [0, 1]
        (see :mod:`engrava_graph.search.fusion`) and weighted, with the weights of inactive
        signals redistributed. Recency uses exactly one axis: ``current_cycle`` (or the cycle
        provider) or ``recency_now``; with neither it is off. Blank query text (only whitespace
        and invisible characters, :func:`~engrava_graph.model.bounds.blank`) with no
        ``query_vector`` has nothing to match: the result is empty, as :meth:`search_fts` gives
        [] for a query without a term (not an error, so an empty search box is no failure; with
        a ``query_vector`` the vector ranks alone). ``filters`` is a :class:`MetadataFilter`
        or, as ``retrieve``'s ``metadata_filter``, a mapping ``{"path": value | [values]}``.
        Each final result counts an implicit access.

        Raises:
            RecencyModeConflictError: both ``current_cycle`` and ``recency_now``.
            InvalidRecencyArgumentError: a malformed ``recency_now`` or half-life.
            CycleProviderError: the provider returned an invalid cycle.
            InvalidQueryError: ``query_text`` is not a string.
            InvalidFilterError: a bad filter path or value (the rule of ``retrieve``).
            ValidationFailedError: ``top_k`` outside 1..1000 or a negative weight.
            EmbeddingError: the provider failed on the query text.
        """
        query_string(query_text, "query_text")
        top_k = checked_top_k(top_k)
        config = self.search_config
        weights = {
            "fulltext": config.fts_weight if fts_weight is None else fts_weight,
            "vector": config.vector_weight if vector_weight is None else vector_weight,
            "recency": (
                self.time_config.recency_weight if recency_weight is None else recency_weight
            ),
            "priority": (config.priority_weight if priority_weight is None else priority_weight),
        }
        if any(w < 0 for w in weights.values()):
            raise ValidationFailedError("search weights must be >= 0")
        explicit = None if current_cycle is None else resolve_cycle(current_cycle, None)
        provider_cycle = (
            resolve_cycle(None, self.cycle_provider)
            if explicit is None and recency_now is None
            else None
        )
        recency = resolve_recency(
            current_cycle=explicit,
            recency_now=recency_now,
            provider_cycle=provider_cycle,
            config=self.time_config,
            recency_half_life=recency_half_life,
            recency_now_half_life=recency_now_half_life,
        )
        scope = self.retrievable_scope(include_archived=include_archived, filters=filters)
        if query_vector is None and blank(query_text):
            return HybridSearchResult(recency_axis=recency.axis.value if recency else None)
        # The keyword arm needs no vector: it runs while the query is embedded.
        fts_call = asyncio.ensure_future(
            self._arms.fulltext(query_text, max(fts_top_k, top_k), scope)
        )
        try:
            vector = await self._query_vector(query_text, query_vector)
        except BaseException:
            fts_call.cancel()
            raise
        if vector is None:
            fts_hits, vec_hits = await fts_call, list[Any]()
        else:
            fts_hits, (vec_hits, _) = await asyncio.gather(
                fts_call, self._arms.vector(vector, max(vector_top_k, top_k), scope)
            )
        signals: dict[str, dict[str, float]] = {
            "fulltext": min_max(dict(fts_hits)),
            "vector": dict(vec_hits),
        }
        # No informative term (stop words only): no keyword signal, its weight goes elsewhere.
        active = (["fulltext"] if query_terms(query_text) else []) + (
            ["vector"] if vector is not None else []
        )
        candidate_ids = sorted(set(signals["fulltext"]) | set(signals["vector"]))
        rows = (
            await self.executor.read(
                Q["search/fusion_signals"], namespace=self.namespace, thought_ids=candidate_ids
            )
            if candidate_ids
            else []
        )
        if rows:
            if recency is not None and weights["recency"] > 0:
                signals["recency"] = {
                    r["thought_id"]: recency.score(
                        r["updated_cycle"],
                        from_epoch_millis(r["updated_ms"]),
                        from_epoch_millis(r["created_ms"]),
                    )
                    for r in rows
                }
                active.append("recency")
            if weights["priority"] > 0:
                signals["priority"] = priority_scores(rows)
                active.append("priority")
        ranked, evicted = cap_reflections(
            fuse(signals, redistribute(weights, active), len(candidate_ids)),
            [r["thought_id"] for r in rows if r["thought_type"] == ThoughtType.REFLECTION.value],
            top_k,
            config.reflection_topk_cap,
        )
        self._track([tid for tid, _ in ranked])
        return HybridSearchResult(
            results=ranked,
            backends_used=frozenset(active),
            recency_axis=recency.axis.value if recency else None,
            reflections_evicted=evicted,
        )

    async def recall(
        self,
        query: str,
        *,
        top_k: int = 10,
        current_cycle: int | None = None,
        recency_now: datetime | str | None = None,
        recency_now_half_life: int | None = None,
        filters: MetadataFilter | Mapping[str, Any] | None = None,
        include_archived: bool = False,
    ) -> HybridSearchResult:
        """One-call retrieval: :meth:`search_hybrid` with the query text and defaults."""
        return await self.search_hybrid(
            query,
            top_k=top_k,
            current_cycle=current_cycle,
            recency_now=recency_now,
            recency_now_half_life=recency_now_half_life,
            filters=filters,
            include_archived=include_archived,
        )
