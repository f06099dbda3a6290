"""Dreaming and memory-hygiene settings as frozen data (the peer ``engrava``'s
``DreamingConfig`` / ``DreamingGates`` / ``HygienePolicyConfig``).

Every field carries its unit: **cycles** are the caller's cognitive ticks, **seconds** are wall
clock, similarities are **cosine in [0, 1]**, sizes are **member counts**. Change a setting with
``config.model_copy(update={...})``; a config is never mutated in place. Names and defaults are
the peer's unless a field's docstring says why they differ.
"""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from engrava_graph.model.bounds import BoundedModel, Count, Cycle, PositiveCount
from engrava_graph.model.enums import Priority, ThoughtType

#: Peer defaults (``engrava.config._DEFAULT_DREAMING_SIGNALS``) restricted to the four signals
#: our records carry data for; the pass renormalises over the signals active in each run.
DEFAULT_DREAMING_SIGNALS: dict[str, float] = {
    "recency": 0.25,
    "confirmation": 0.20,
    "confidence": 0.15,
    "frequency": 0.20,
}

_FROZEN = ConfigDict(frozen=True)
ClusterSize = Annotated[Count, Field(ge=2)]
"""Members of a cluster: at least 2."""


class DreamingGates(BoundedModel):
    """Which thoughts may be consolidated, and how clusters are bounded.

    Attributes:
        thought_types: types that enter the pass (peer ``cluster_allowed_types``); OBSERVATION
            only by default so reflections are never re-clustered into meta-reflections.
        min_age_cycles: cycles; a thought is eligible once
            ``current_cycle - created_cycle >= min_age_cycles`` (default 1: never the
            cycle it was written in).
        allow_zero_confirmation: when True (default) the confirmation gate is off, so single-write
            batch ingest (``confirmation_count`` stays 0) can be consolidated.
        min_confirmations: dedup confirmations required when ``allow_zero_confirmation`` is False.
        min_score: the weighted signal score (0-1) a thought needs; 0 (default) admits all.
        min_cluster_size: members; smaller clusters make no reflection (peer default 3).
        max_cluster_size: members; a larger connected component is split into communities
            (label propagation) and a community still larger than this makes no reflection
            (peer default 200; the peer drops the whole component). None = no bound.
    """

    model_config = _FROZEN

    thought_types: tuple[ThoughtType, ...] = (ThoughtType.OBSERVATION,)
    min_age_cycles: Cycle = 1
    allow_zero_confirmation: bool = True
    min_confirmations: Count = 2
    min_score: float = Field(default=0.0, ge=0.0, le=1.0)
    min_cluster_size: ClusterSize = 3
    max_cluster_size: ClusterSize | None = 200

    @model_validator(mode="after")
    def _check_sizes(self) -> Self:
        if not self.thought_types:
            raise ValueError("thought_types must name at least one ThoughtType")
        if self.max_cluster_size is not None and self.max_cluster_size < self.min_cluster_size:
            raise ValueError(
                f"max_cluster_size ({self.max_cluster_size}) must be >= min_cluster_size "
                f"({self.min_cluster_size})"
            )
        return self


class DreamingConfig(BoundedModel):
    """One consolidation pass: schedule, gates, signals, clustering and reflection shape.

    Clustering links two eligible thoughts when one is among the other's ``neighbours_k``
    nearest neighbours with cosine >= ``similarity_threshold``; connected components of that
    graph (split by label propagation when above ``gates.max_cluster_size``) are the clusters.

    Attributes:
        schedule_every_n_cycles: cycles; a pass runs only at a positive multiple of this (peer
            ``is_due``). Default 1 = every cycle >= 1 (the peer's 100 applies only to its
            ``run_if_due``; its explicit ``consolidate`` ignores the schedule, ours honours it).
        gates: eligibility and cluster-size bounds.
        signals: signal name -> relative weight (``recency``, ``confirmation``, ``confidence``,
            ``frequency``); renormalised over the signals active in the run.
        recency_decay_rate: per cycle; recency signal = ``exp(-rate * (cycle - updated_cycle))``.
        confirmation_saturation: confirmations mapping to a confirmation signal of 1 (peer 5).
        frequency_saturation: accesses mapping to a frequency signal of 1 (peer 10).
        similarity_threshold: cosine in [0, 1] two thoughts need to be linked (peer
            ``cluster_similarity_threshold``, 0.7).
        neighbours_k: nearest neighbours examined per thought (count).
        exact_max_candidates: up to this many eligible thoughts, ``auto`` finds neighbours by
            exact cosine in Cypher ("exact").
        stream_max_candidates: up to this many, ``auto`` reads the pool's vectors and finds
            the same exact neighbours in NumPy ("stream"; cost grows with the square of the
            pool); above it, through an inverted-file index in NumPy ("ivf": approximate, as
            the HNSW index is, with a cost that grows about as pool^1.5).
        neighbour_strategy: ``"auto"`` (the rules above), or force ``"exact"``, ``"stream"``,
            ``"ivf"`` or ``"index"`` (Neo4j's HNSW vector index, one query per thought,
            over-fetched by the database/namespace size ratio as search does; slow on a small
            server). The vector strategies hold pool x 384 float32 in the client.
        ivf_cells: k-means cells of "ivf" (count); None = twice the square root of the pool.
        ivf_probes: cells, nearest by centroid, each thought is compared with in "ivf" (count);
            more finds more of the exact neighbours, at a proportional cost.
        page_size: source thoughts per neighbour query ("exact", "index").
        concurrency: neighbour queries in flight at once (Neo4j runs them in parallel).
        write_batch_clusters: clusters written per transaction (each transaction holds whole
            clusters: a reflection never exists without its edges).
        reflection_default_priority: priority of a new reflection (peer default P2).
        top_keyphrases_count: key phrases in a reflection (peer default 3).
        top_member_excerpts_count: member excerpts in a reflection's content (peer default 5).
        member_excerpt_max_chars: characters per excerpt (peer default 150).
        seed: seed of the label-propagation visiting order (determinism).
    """

    model_config = _FROZEN

    schedule_every_n_cycles: PositiveCount = 1
    gates: DreamingGates = Field(default_factory=DreamingGates)
    signals: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_DREAMING_SIGNALS))
    recency_decay_rate: float = Field(default=0.01, ge=0.0)
    confirmation_saturation: PositiveCount = 5
    frequency_saturation: PositiveCount = 10
    similarity_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    neighbours_k: int = Field(default=10, ge=1, le=1000)
    exact_max_candidates: Count = 300
    stream_max_candidates: Count = 20_000
    neighbour_strategy: Literal["auto", "exact", "index", "stream", "ivf"] = "auto"
    ivf_cells: int | None = Field(default=None, ge=1, le=1_000_000)
    ivf_probes: int = Field(default=24, ge=1, le=100_000)
    page_size: int = Field(default=200, ge=1, le=10_000)
    concurrency: int = Field(default=2, ge=1, le=16)
    write_batch_clusters: int = Field(default=50, ge=1, le=10_000)
    reflection_default_priority: Priority = Priority.P2
    top_keyphrases_count: int = Field(default=3, ge=0, le=20)
    top_member_excerpts_count: int = Field(default=5, ge=1, le=50)
    member_excerpt_max_chars: int = Field(default=150, ge=20, le=2000)
    seed: int = 42

    @model_validator(mode="after")
    def _check_signals(self) -> Self:
        unknown = sorted(set(self.signals) - set(DEFAULT_DREAMING_SIGNALS))
        if unknown:
            raise ValueError(
                f"unknown dreaming signals {unknown}; known: {sorted(DEFAULT_DREAMING_SIGNALS)}"
            )
        if any(w < 0 for w in self.signals.values()):
            raise ValueError("signal weights must be >= 0")
        return self

    def is_due(self, current_cycle: int) -> bool:
        """Whether a pass runs at ``current_cycle``: a positive multiple of the schedule
        (cycle 0 is initialisation, as in the peer)."""
        return current_cycle > 0 and current_cycle % self.schedule_every_n_cycles == 0


class HygienePolicy(BoundedModel):
    """The opt-in forgetting loop: which thoughts ``run_hygiene`` archives (reversibly).

    A thought is archived when it is ACTIVE, not protected (``pinned`` or a priority in
    ``protected_priorities``), old enough on both clocks (``min_age_cycles`` since its
    ``updated_cycle``; ``min_inactivity_age_seconds`` since its last access, update or
    creation), and either **superseded** (its ``valid_until`` has passed: world time ended it)
    or **cold**: at least one cold rule is on and every rule that is on holds
    (``access_count <= max_access_count``; ``confidence < min_confidence``, a missing confidence
    read as 0.5). The peer scores a keep-score instead; these explicit rules are what the
    tracker asks for, and each can be switched off with None. Oldest first (``updated_cycle``,
    then id), at most ``max_evictions_per_run`` per run.

    Attributes:
        enabled: master switch (default False: a disabled policy archives nothing).
        min_age_cycles: cycles since ``updated_cycle`` before a thought may be archived.
        min_inactivity_age_seconds: seconds since ``last_accessed_at`` (else ``updated_at``,
            else ``created_at``) before a thought may be archived (peer default 7 days).
        max_access_count: accesses; "low access" means at most this many. None = rule off.
        min_confidence: in [0, 1]; "low confidence" means strictly below. None = rule off.
        archive_superseded: archive thoughts whose ``valid_until`` is at or before now.
        protected_priorities: never archived (peer default P1).
        max_evictions_per_run: count; bounds one run.
        check_every_n_cycles: cycles; cadence of the pass ``consolidate`` runs at its end
            (an explicit ``run_hygiene`` ignores it).
        dry_run: select and report, change nothing.
    """

    model_config = _FROZEN

    enabled: bool = False
    min_age_cycles: Cycle = 10
    min_inactivity_age_seconds: Count = 604_800
    max_access_count: Count | None = 0
    min_confidence: float | None = Field(default=0.3, ge=0.0, le=1.0)
    archive_superseded: bool = True
    protected_priorities: tuple[Priority, ...] = (Priority.P1,)
    max_evictions_per_run: int = Field(default=100, ge=1, le=100_000)
    check_every_n_cycles: PositiveCount = 1
    dry_run: bool = False
