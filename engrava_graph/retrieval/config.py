"""Tunables of the 000 cycle as data (frozen; derive variants with ``model_copy(update=…)``).

Units: ``*_k`` and ``per_node`` are candidate counts (time and recency: :class:`~engrava_graph.search.fusion.TimeConfig`);
``temporal_window_seconds`` is seconds; depths are hops (graph links).
"""

from __future__ import annotations

from pydantic import ConfigDict, Field

from engrava_graph.model.bounds import BoundedModel, Count, PositiveCount
from engrava_graph.retrieval.types import Pathway

_FROZEN = ConfigDict(frozen=True)


class PathwayProfile(BoundedModel):
    """How Phase 3 (Activation) searches for one pathway.

    Attributes:
        vector_k: candidates from the vector arm (per sub-query for ATTENTION).
        fulltext_k: candidates from the keyword arm (per sub-query for ATTENTION).
        min_similarity: cosine below which a vector hit is not activated ("precision threshold").
        seeds: how many top activated candidates seed spreading and causal traversal.
        decompose: run each sub-query of the decomposed question (ATTENTION).
    """

    model_config = _FROZEN

    vector_k: int = Field(ge=1, le=1000)
    fulltext_k: int = Field(ge=0, le=1000)
    min_similarity: float = Field(ge=0.0, le=1.0)
    seeds: int = Field(ge=0, le=200)
    decompose: bool = False


def default_profiles() -> dict[Pathway, PathwayProfile]:
    """The Phase 3 profile of each pathway (a fresh dict per config)."""
    return {
        # Exact: narrow and strict (000 Phase 3, "narrow ANN search with high precision threshold").
        Pathway.EXACT: PathwayProfile(vector_k=30, fulltext_k=30, min_similarity=0.2, seeds=8),
        # Energy: broad, no threshold, more seeds for spreading ("surfaces related patterns").
        Pathway.ENERGY: PathwayProfile(vector_k=100, fulltext_k=60, min_similarity=0.0, seeds=15),
        # Attention: one search per sub-query of the decomposed question.
        Pathway.ATTENTION: PathwayProfile(vector_k=40, fulltext_k=30, min_similarity=0.1,
                                          seeds=10, decompose=True),
    }


class RetrievalConfig(BoundedModel):
    """Every constant of the cycle.

    Attributes:
        profiles: Phase 3 settings per pathway.
        vector_share: similarity = vector_share * cosine + (1 - vector_share) * keyword score
            (min-max normalised BM25) (Phase 3/7); 0.65 measured best on LoCoMo (0.75 and
            a calibrated cosine both lost recall).
        spread_depth: default Phase 4 depth in hops (the spec's 2).
        hop_factor: activation multiplier per hop (the spec's 0.5, Collins & Loftus 1975).
        per_node: neighbours kept per frontier node per hop.
        max_entity_degree: an Entity/Tag linked to more thoughts is a hub and not spread over.
        entity_weight: link weight of a shared Entity/Tag.
        temporal_link_weight: link weight of temporal proximity.
        temporal_window_seconds: "same time window" for temporal proximity (valid_from).
        causal_depth: default Phase 6 depth (1..4 links); ``causal_weight`` scales it.
        causal_max_paths: paths kept per seed and direction.
        causal_hop_factor: causal relevance multiplier per extra link on a chain.
        duplicate_threshold: Phase 8 near-duplicate cosine (the spec's 0.95).
        duplicate_pool_factor: Phase 8 checks this many x top_k ranked candidates for duplicates.
    """

    model_config = _FROZEN

    profiles: dict[Pathway, PathwayProfile] = Field(default_factory=default_profiles)
    vector_share: float = Field(default=0.65, ge=0.0, le=1.0)
    spread_depth: int = Field(default=2, ge=0, le=3)
    hop_factor: float = Field(default=0.5, gt=0.0, le=1.0)
    per_node: int = Field(default=6, ge=1, le=100)
    max_entity_degree: PositiveCount = 40
    entity_weight: float = Field(default=0.6, ge=0.0, le=1.0)
    temporal_link_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    temporal_window_seconds: Count = 3600
    causal_depth: int = Field(default=3, ge=1, le=4)
    causal_max_paths: int = Field(default=25, ge=1, le=500)
    causal_hop_factor: float = Field(default=0.85, gt=0.0, le=1.0)
    duplicate_threshold: float = Field(default=0.95, gt=0.0, le=1.0)
    duplicate_pool_factor: int = Field(default=3, ge=1, le=20)

    def causal_depth_for(self, causal_weight: float | None) -> int:
        """Phase 6 depth: the default, or ``1 + round(3 * causal_weight)`` when the request
        tunes it (000 "Tuning the cycle": causal_weight increases/decreases traversal depth)."""
        return self.causal_depth if causal_weight is None else 1 + round(3 * causal_weight)
