"""The validated parameters of one ``retrieve`` / ``explain`` call (the cycle's tuning knobs)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, ValidationError

from engrava_graph.model.bounds import BoundedModel, Cycle, visible_text
from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.temporal import UtcDateTime
from engrava_graph.retrieval.types import PathwayChoice

QueryText = Annotated[
    str, Field(min_length=1, max_length=2000, strict=True), BeforeValidator(visible_text)
]
"""A question or search text: 1-2000 characters, at least one of them visible (an empty text
and one of spaces or invisible characters are refused alike, with the same message)."""


class RetrieveRequest(BoundedModel):
    """Parameters of the 10-phase cycle.

    Attributes:
        query: the question, at most 2000 characters, at least one of them visible (an empty
            query and one of spaces or invisible characters are refused alike).
        top_k: results returned, 1-100 (Phase 10).
        pathway: ``"auto"`` (the router decides) or exact / energy / attention (Phase 2).
        min_confidence: Phase 8 threshold on confidence, in [0, 1].
        metadata_filter: exact matches on metadata, ``{"path": value | [values]}`` (Phase 8,
            evaluated in Cypher during activation and spreading).
        temporal_weight: Phase 5/7 recency bias in [0, 1]; None = the pathway's weight.
        causal_weight: Phase 6/7 causal weight and traversal depth in [0, 1]; None = default.
        spread_depth: Phase 4 hops, 0-3 (None = the configured 2).
        current_cycle: select cycle recency for Phase 5 (cognitive cycles).
        recency_now: select transaction-time recency for Phase 5 (an instant).
        now: the request's clock: resolves "last Tuesday" and ages memories by last access.
            The core never reads the clock; without ``now`` (and without the two axes above)
            decay is off and relative time phrases stay unresolved.
        include_archived: re-admit archived memories.
    """

    model_config = ConfigDict(frozen=True)

    query: QueryText
    top_k: int = Field(default=10, ge=1, le=100)
    pathway: PathwayChoice = "auto"
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    metadata_filter: dict[str, Any] | None = None
    temporal_weight: float | None = Field(default=None, ge=0.0, le=1.0)
    causal_weight: float | None = Field(default=None, ge=0.0, le=1.0)
    spread_depth: int | None = Field(default=None, ge=0, le=3)
    current_cycle: Cycle | None = None
    recency_now: UtcDateTime = None
    now: UtcDateTime = None
    include_archived: bool = False

    @classmethod
    def build(cls, **fields: Any) -> RetrieveRequest:
        """Validate ``fields`` into a request.

        Raises:
            ValidationFailedError: with pydantic's per-field ``errors``.
            InvalidFilterError: a bad metadata filter path or value.
        """
        try:
            request = cls.model_validate(fields)
        except ValidationError as exc:
            raise ValidationFailedError.from_pydantic(exc) from exc
        request.metadata()  # fail early on a bad filter
        return request

    def metadata(self) -> MetadataFilter:
        """The metadata filter as a :class:`MetadataFilter`."""
        return MetadataFilter.from_mapping(self.metadata_filter)
