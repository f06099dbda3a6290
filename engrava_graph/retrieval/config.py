"""Tunables of the retrieval cycle as data (frozen; derive variants with ``model_copy(update=…)``).

Units: ``*_k`` and ``per_node`` are candidate counts (time and recency:
:class:`~engrava_graph.search.fusion.TimeConfig`);
``temporal_window_seconds`` is seconds; depths are hops (graph links).
"""

from __future__ import annotations

from pydantic import ConfigDict, Field

from engrava_graph.model.bounds import BoundedModel, Count, PositiveCount
from engrava_graph.retrieval.scoring import Calibration
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
        # Exact: narrow and strict (Activate: a narrow ANN search with a high similarity threshold).
        Pathway.EXACT: PathwayProfile(vector_k=30, fulltext_k=30, min_similarity=0.2, seeds=8),
        # Energy: broad, no threshold, more seeds for spreading ("surfaces related patterns").
        Pathway.ENERGY: PathwayProfile(vector_k=100, fulltext_k=60, min_similarity=0.0, seeds=15),
        # Attention: one search per sub-query of the decomposed question.
        Pathway.ATTENTION: PathwayProfile(
            vector_k=40, fulltext_k=30, min_similarity=0.1, seeds=10, decompose=True
        ),
    }


class RetrievalConfig(BoundedModel):
    """Every constant of the cycle.

    Attributes:
        profiles: Phase 3 settings per pathway.
        vector_share: similarity = vector_share * cosine + (1 - vector_share) * keyword score
            (min-max normalised BM25) (Phase 3/7); 0.6 measured best on LoCoMo's tuning
            conversations together with the spreading gains (0.65-0.8 and a min-max cosine
            lost recall or session hits).
        spread_depth: default Phase 4 depth: 0 turns spreading off; otherwise spreading runs
            one composed step from the seeds, following typed edges up to this many links.
        per_node: links kept per seed (3: on LoCoMo's tuning conversations 6 gave the same
            recall@10 within 0.004 and session hits, for about 0.5 ms more per retrieve;
            ``benchmarks/sweep_retrieve.py``).
        conversation_window: conversation neighbours: messages within this many positions.
        neighbour_weight, neighbour_decay: link weight of the adjacent message, and its factor
            per further position.
        entity_weight: link weight of an Entity/Tag shared by two memories only; a shared node
            of degree d links with ``entity_weight / log2(1 + d)`` (IDF-like).
        max_entity_fanout: an Entity/Tag with more mentions is not followed (bounds the
            expansion of hubs, whose rarity weight is below 0.11 from here; letting them
            reinforce activated memories changed 9 of 755 LoCoMo tuning rankings and no
            recall, for a fifth of the activation statement's time).
        temporal_link_weight: link weight of temporal proximity (memories outside a
            conversation whose valid_from lie within ``temporal_window_seconds``).
        temporal_window_seconds: "same time window" for temporal proximity.
        spread_gain, session_gain: relevance (Phase 7) is the weighted mean of the direct
            similarity, the spread signal and the session signal with weights
            ``1 : spread_gain : session_gain`` (0.5 and 0.2: measured on LoCoMo's tuning
            conversations, one memory per turn, with a two-fold check conv-26+30 vs conv-41+42;
            0.35-0.7 and 0.1-0.3 are within 0.01 of R@10).
        session_top: the session signal is the mean of this many best direct similarities
            among a conversation's candidates.
        recency_weight: the Phase 7 weight of the temporal signal when the query names no time
            range and the request sets no ``temporal_weight`` (the other weights are rescaled):
            recency is a prior that breaks near-ties, not evidence of relevance (0.05; the
            pathways' 0.14-0.30 cost 0.10 of R@10 on LoCoMo's tuning conversations, whose
            questions ask about any session, not the latest).
        outside_range_factor: composite multiplier of a memory outside the query's named time
            range (Phase 7).
        causal_depth: default Phase 6 depth (1..4 links); ``causal_weight`` scales it.
        causal_max_paths: paths kept per seed and direction.
        causal_hop_factor: causal relevance multiplier per extra link on a chain.
        duplicate_threshold: Phase 8 near-duplicate cosine (default 0.95).
        reflection_cap, reflection_window: at most this many REFLECTIONs among the first
            ``reflection_window`` results (Phase 8; the peer's ``reflection_topk_cap``).
        calibration: Phase 9's map from scores to confidence.
    """

    model_config = _FROZEN

    profiles: dict[Pathway, PathwayProfile] = Field(default_factory=default_profiles)
    vector_share: float = Field(default=0.6, ge=0.0, le=1.0)
    spread_depth: int = Field(default=2, ge=0, le=3)
    per_node: int = Field(default=3, ge=1, le=100)
    conversation_window: int = Field(default=2, ge=0, le=50)
    neighbour_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    neighbour_decay: float = Field(default=0.5, ge=0.0, le=1.0)
    entity_weight: float = Field(default=0.6, ge=0.0, le=1.0)
    max_entity_fanout: PositiveCount = 50
    temporal_link_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    temporal_window_seconds: Count = 3600
    spread_gain: float = Field(default=0.5, ge=0.0, le=1.0)
    session_gain: float = Field(default=0.2, ge=0.0, le=1.0)
    session_top: int = Field(default=3, ge=1, le=100)
    recency_weight: float = Field(default=0.05, ge=0.0, le=1.0)
    outside_range_factor: float = Field(default=0.5, ge=0.0, le=1.0)
    causal_depth: int = Field(default=3, ge=1, le=4)
    causal_max_paths: int = Field(default=25, ge=1, le=500)
    causal_hop_factor: float = Field(default=0.85, gt=0.0, le=1.0)
    duplicate_threshold: float = Field(default=0.95, gt=0.0, le=1.0)
    reflection_cap: int = Field(default=1, ge=0, le=100)
    reflection_window: int = Field(default=5, ge=1, le=100)
    calibration: Calibration = Field(default_factory=Calibration)

    def causal_depth_for(self, causal_weight: float | None) -> int:
        """Phase 6 depth: the default, or ``1 + round(3 * causal_weight)`` when the request
        tunes it (a higher causal_weight traverses deeper, a lower one less deep)."""
        return self.causal_depth if causal_weight is None else 1 + round(3 * causal_weight)
