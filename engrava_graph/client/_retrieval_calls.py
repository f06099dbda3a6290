"""The client's retrieval-cycle calls: ``retrieve`` and ``explain``."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict, Unpack

from engrava_graph.client._base import ClientBase, sent
from engrava_graph.client._ops import Op, operation
from engrava_graph.client._transport import Call
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.results import Explanation, RetrievalResponse
from engrava_graph.wire import ExplainRequest


class RetrieveParams(TypedDict, total=False):
    """The tuning parameters of ``retrieve`` and ``explain`` (see docs/retrieval.md); the
    same fields, ranges and defaults as :class:`RetrieveRequest`. Only the ones given are sent.

    Attributes:
        top_k: results returned, 1-100 (Phase 10; default 10).
        pathway: ``"auto"`` (default), ``"exact"``, ``"energy"`` or ``"attention"`` (Phase 2).
        min_confidence: Phase 8 threshold on confidence in [0, 1] (default 0).
        metadata_filter: exact metadata matches, ``{"path": value | [values]}``.
        temporal_weight: Phase 5/7 recency bias in [0, 1] (None = the pathway's).
        causal_weight: Phase 6/7 causal weight and depth in [0, 1] (None = default).
        spread_depth: Phase 4 hops, 0-3.
        current_cycle: decay by cognitive cycles (Phase 5).
        recency_now: decay by transaction time from this instant (Phase 5).
        now: the request's clock (default: the service's time of arrival).
        include_archived: re-admit archived memories.
    """

    top_k: int
    pathway: str
    min_confidence: float
    metadata_filter: dict[str, Any] | None
    temporal_weight: float | None
    causal_weight: float | None
    spread_depth: int | None
    current_cycle: int | None
    recency_now: datetime | str | None
    now: datetime | str | None
    include_archived: bool


class RetrievalCalls(ClientBase):
    """``retrieve`` and ``explain`` of :class:`ClientApi`."""

    @operation
    def retrieve(self, query: str, **params: Unpack[RetrieveParams]) -> Op[RetrievalResponse]:
        """Recall memories with the 10-phase cognitive retrieval cycle (``POST /v1/retrieve``).

        Args:
            query: the question, 1-2000 characters.
            **params: the tuning parameters, :class:`RetrieveParams` (``top_k``, ``pathway``,
                ``min_confidence``, ``temporal_weight``, ``causal_weight``, ...).

        Returns:
            The response; iterating over it gives the results (``RetrievedMemory``: ``text``,
            ``pattern_id``, ``confidence``, ``pathway``, ``metadata``, ``created_at``,
            ``last_accessed_at``, ``causal_links``) by confidence, highest first. It also has
            ``pathway_scores``, ``intent``, ``phase_timings`` (ms) and the candidate counts.

        Raises:
            ValidationFailedError: a parameter out of range (checked before sending).
            InvalidFilterError: a malformed ``metadata_filter``.
        """
        body = RetrieveRequest.build(query=query, **params)
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/retrieve",
                    RetrievalResponse.model_validate,
                    json=sent(body),
                    replayable=True,
                )
            )
        )

    @operation
    def explain(
        self, query: str, level: str = "summary", **params: Unpack[RetrieveParams]
    ) -> Op[Explanation]:
        """Run the retrieval cycle and show its internals (``POST /v1/explain``).

        Args:
            query: the question.
            level: ``"summary"`` (intent, pathway scores and choice, candidate counts, phase
                timings) or ``"debug"`` (also every candidate's signals and the phase that
                dropped it, in ``candidates``).
            **params: the tuning parameters of :meth:`retrieve`.

        Returns:
            The explanation: ``intent``, ``pathway_scores``, ``pathway_selected``,
            ``candidates_activated``, ``candidates_after_spread``, ``candidates_final``,
            ``phase_timings`` (ms for each of the ten phases), ``results``.

        Raises:
            ValidationFailedError: a bad level or parameter (checked before sending).
        """
        body = ExplainRequest.build(query=query, level=level, **params)
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/explain",
                    Explanation.model_validate,
                    json=sent(body),
                    replayable=True,
                )
            )
        )
