"""What ``retrieve`` and ``explain`` return (the Return phase's response assembly, and the
cycle's explanation). The same models serve the library, the REST API and the Python client."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from engrava_graph.retrieval.types import Intent, Pathway, PathwayScores, TemporalRange

PHASES = (
    "encode",
    "route",
    "activate",
    "spread",
    "decay",
    "cause",
    "rank",
    "filter",
    "score",
    "return",
)
"""The ten phases, in order; every response times each one (milliseconds)."""

_FROZEN = ConfigDict(frozen=True)


class CausalLink(BaseModel):
    """One traversed causal relationship (Phase 6).

    Attributes:
        edge_id, edge_type: the relationship (CAUSED_BY points effect -> cause; LEADS_TO
            cause -> effect).
        from_thought_id, to_thought_id: its endpoints as stored.
        confidence: link confidence in [0, 1].
        hops: distance of this link from the activated memory the chain starts at (1 = adjacent).
        direction: ``"cause"`` (the chain walks to causes) or ``"effect"``.
    """

    model_config = _FROZEN

    edge_id: str
    edge_type: str
    from_thought_id: str
    to_thought_id: str
    confidence: float
    hops: int
    direction: Literal["cause", "effect"]


class RetrievedMemory(BaseModel):
    """One result.

    Attributes:
        thought_id: the memory's id (``pattern_id`` is another name for the same value).
        text: the essence (the prompt-facing one-liner).
        confidence: Phase 9 confidence in [0, 1] (not raw similarity).
        pathway: the pathway that retrieved it.
        thought_type, metadata, created_at, last_accessed_at, valid_from: from the memory.
        causal_links: the causal chain through this memory, when Phase 6 ran (else empty).
        reached_by: ``"activation"``, ``"spread"`` or ``"cause"``.
        via: the spreading sources that reached it, strongest first, as ``"<SOURCE> from
            <id>"``: an edge type, ``CONVERSATION`` (a neighbouring message), ``ENTITY`` /
            ``TAG`` (a shared node), ``TEMPORAL``, or ``SESSION from <conversation_id>``.
    """

    model_config = _FROZEN

    thought_id: str
    text: str
    confidence: float = Field(ge=0.0, le=1.0)
    pathway: Pathway
    thought_type: str
    metadata: dict[str, Any]
    created_at: datetime | None
    last_accessed_at: datetime | None
    valid_from: datetime | None = None
    causal_links: list[CausalLink] = Field(default_factory=list)
    reached_by: Literal["activation", "spread", "cause"] = "activation"
    via: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pattern_id(self) -> str:
        """Another name for ``thought_id`` (the same value)."""
        return self.thought_id


class CandidateTrace(BaseModel):
    """Debug view of one candidate: its signals and where it left the cycle (explain debug).

    Attributes:
        thought_id, text: the candidate.
        reached_by: how it entered (activation, spread, cause); ``hops`` for spread/cause.
        via: the spreading sources that reached it (as in :class:`RetrievedMemory`).
        direct_similarity: its own fused cosine/keyword similarity; spread, session: the
            activation spreading and its conversation passed to it.
        similarity, temporal, causal, importance, access_frequency, activation: the signals
            (``similarity`` is the relevance signal: direct similarity plus spreading).
        composite: the Phase 7 score; confidence: the Phase 9 value.
        dropped_in: None if returned, else the phase that removed it ("filter" for
            min_confidence or a near-duplicate, "return" when cut by top_k).
        reason: why it was dropped.
    """

    model_config = _FROZEN

    thought_id: str
    text: str
    reached_by: str
    via: list[str] = Field(default_factory=list)
    hops: int
    direct_similarity: float = 0.0
    spread: float = 0.0
    session: float = 0.0
    similarity: float
    temporal: float
    causal: float
    importance: float
    access_frequency: float
    activation: float
    composite: float
    confidence: float
    dropped_in: str | None = None
    reason: str | None = None


class RetrievalResponse(BaseModel):
    """The response of ``retrieve``: results plus what a person needs to trust them.

    Attributes:
        results: top_k memories, by confidence descending (ties by thought_id).
        pathway: the pathway used; pathway_scores: the router's scores.
        intent: Phase 1 intent.
        phase_timings: milliseconds per phase, all ten keys (0.0 for a skipped phase).
        candidates_activated, candidates_after_spread, candidates_final: Phase 3, 4 and 10 counts.
        causal_links: every causal link traversed (empty unless the query was causal).
        skipped_phases: phases that did not run and why (e.g. ``{"cause": "intent is factual"}``).
    """

    model_config = _FROZEN

    results: list[RetrievedMemory]
    pathway: Pathway
    pathway_scores: PathwayScores
    intent: Intent
    phase_timings: dict[str, float]
    candidates_activated: int
    candidates_after_spread: int
    candidates_final: int
    causal_links: list[CausalLink] = Field(default_factory=list)
    skipped_phases: dict[str, str] = Field(default_factory=dict)

    def __iter__(self):  # type: ignore[override]
        """Iterate over the results (``for r in client.retrieve(...)``)."""
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, index: int) -> RetrievedMemory:
        return self.results[index]


class Explanation(BaseModel):
    """The output of ``explain(query, level)``: the internals of the same run as ``retrieve``.

    Attributes:
        level: ``"summary"`` or ``"debug"``.
        intent, intent_scores, entities, temporal: Phase 1.
        pathway_scores, pathway_selected: Phase 2.
        candidates_activated, candidates_after_spread, candidates_final: counts.
        phase_timings: milliseconds per phase.
        decay_axis: ``"access"``, ``"cycle"``, ``"transaction"`` or None (off).
        vector_strategy: ``"exact"``, ``"filtered"`` (2026.x) or ``"index"`` (5.26): how the
            vector arm searched (:class:`~engrava_graph.search.arms.VectorPlan`).
        results: what retrieve returned.
        candidates: debug only: every candidate's signals and the phase that dropped it.
    """

    model_config = _FROZEN

    level: Literal["summary", "debug"]
    query: str
    intent: Intent
    intent_scores: dict[Intent, float]
    entities: list[str]
    temporal: TemporalRange | None
    pathway_scores: PathwayScores
    pathway_selected: Pathway
    candidates_activated: int
    candidates_after_spread: int
    candidates_final: int
    phase_timings: dict[str, float]
    skipped_phases: dict[str, str]
    decay_axis: str | None
    vector_strategy: str | None
    weights: dict[str, float]
    results: list[RetrievedMemory]
    candidates: list[CandidateTrace] | None = None
