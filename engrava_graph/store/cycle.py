"""The store's entry points to the retrieval cycle (:mod:`engrava_graph.retrieval`)."""

from __future__ import annotations

from typing import Any

from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.results import Explanation, RetrievalResponse
from engrava_graph.store._base import StoreBase


class RetrievalMixin(StoreBase):
    """``retrieve`` and ``explain`` of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    async def retrieve(self, query: str, **params: Any) -> RetrievalResponse:
        """Recall memories with the 10-phase cognitive retrieval cycle.

        Args:
            query: the question.
            **params: the fields of :class:`~engrava_graph.retrieval.request.RetrieveRequest`:
                ``top_k`` (1-100, default 10), ``pathway`` ("auto" | "exact" | "energy" |
                "attention"), ``min_confidence`` [0, 1], ``metadata_filter`` ({path: value}),
                ``temporal_weight`` / ``causal_weight`` [0, 1], ``spread_depth`` (0-3 hops),
                ``current_cycle`` (cycles) | ``recency_now`` (instant), ``now`` (the request's
                clock, for "last Tuesday" and access decay), ``include_archived``.

        Returns:
            Results by confidence (descending) with pathway, per-phase timings (ms),
            candidate counts and the causal links traversed. An empty namespace, registered or
            not, gives no results (a new agent has no memories yet); the REST API and the CLI
            answer 404 for an unregistered one, and :meth:`namespace_exists` tells them apart.

        Raises:
            ValidationFailedError: bad parameters (with per-field ``errors``), among them a
                query that is empty, only spaces or invisible characters, or over 2000
                characters.
            RecencyModeConflictError: ``current_cycle`` and ``recency_now`` together.
            InvalidFilterError: a bad metadata filter.
        """
        run = await self._cycle.run(RetrieveRequest.build(query=query, **params))
        return run.response()

    async def explain(self, query: str, level: str = "summary", **params: Any) -> Explanation:
        """Run the cycle for ``query`` and return its internals: intent, entities, temporal
        range, pathway scores and choice, candidate counts, phase timings, and at
        ``level="debug"`` every candidate's signals and the phase that dropped it. Takes the same
        ``params`` as :meth:`retrieve`.

        Raises:
            ValidationFailedError: a level other than "summary" or "debug", or bad parameters.
        """
        if level not in ("summary", "debug"):
            raise ValidationFailedError(f"level must be 'summary' or 'debug', got {level!r}")
        run = await self._cycle.run(
            RetrieveRequest.build(query=query, **params), trace=level == "debug"
        )
        return run.explanation(level)
