"""The retrieval cycle, phase by phase: Encode -> Route -> Activate -> Spread -> Decay -> Cause ->
Rank -> Filter -> Score -> Return.

Only this module times phases, counts candidates and assembles responses; the phases
themselves are in :mod:`.phases` and the pure rules in :mod:`.encode`, :mod:`.route` and
:mod:`.scoring`. The cycle reads a store only through its :class:`~.deps.CycleDeps`. One run
costs two round trips after the question arrives, one of them while the question is embedded:
the question's embedding starts on a worker thread, then the question is encoded and routed, the
keyword arm runs (one statement per sub-query on the attention pathway, no vector needed) and
the composed statement's parameters are built; once the vectors are there, that statement runs
the vector arm, spreading, decay and ranking, and walks the ranking's head for near-duplicates.
A causal query has that statement return every candidate, reads the causal chains and ranks the
pool again (two more). Phase timings are wall-clock stretches of this run, so they add up to its
latency: "encode" is the encoding and the wait for the vectors, "route" the routing and the
composed statement's parameters, "activate" the rest of the keyword arm's wait and the composed
statement (the Cypher of Phases 3, 4, 5, 7 and 8, so "spread", "decay" and "rank" take no time
of their own), "cause" the causal read and the ranking again, "filter" the reflection cap,
"score" Phase 9.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engrava_graph.model.bounds import blank
from engrava_graph.model.cycles import resolve_cycle
from engrava_graph.retrieval import phases
from engrava_graph.retrieval.candidates import Candidate, warn_hand_edited
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.deps import CycleDeps
from engrava_graph.retrieval.encode import encode_query
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.results import (
    PHASES,
    CandidateTrace,
    CausalLink,
    Explanation,
    RetrievalResponse,
    RetrievedMemory,
)
from engrava_graph.retrieval.route import route, select_pathway
from engrava_graph.retrieval.scoring import PATHWAY_WEIGHTS, RankWeights, tune_weights
from engrava_graph.retrieval.types import Intent, Pathway, PathwayScores, QueryEncoding
from engrava_graph.search.fusion import RecencyReference, resolve_recency


@dataclass
class CycleRun:
    """Everything one run produced; ``response()`` and ``explanation()`` render it."""

    request: RetrieveRequest
    encoding: QueryEncoding | None = None
    pathway_scores: PathwayScores | None = None
    pathway: Pathway | None = None
    timings: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    skipped: dict[str, str] = field(default_factory=dict)
    activated: int = 0
    after_spread: int = 0
    candidates: dict[str, Candidate] = field(default_factory=dict)
    final: list[Candidate] = field(default_factory=list)
    links: list[CausalLink] = field(default_factory=list)
    weights: RankWeights | None = None
    decay_axis: str | None = None
    vector_strategy: str | None = None
    config: RetrievalConfig = field(default_factory=RetrievalConfig)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the body's wall-clock time to phase ``name`` (milliseconds, 3 decimals; a phase may
        be timed in more than one stretch)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            elapsed = (time.perf_counter() - start) * 1000.0
            self.timings[name] = round(self.timings[name] + elapsed, 3)

    def _memory(self, c: Candidate) -> RetrievedMemory:
        fields = c.fields
        assert fields is not None and self.pathway is not None
        return RetrievedMemory(
            thought_id=c.thought_id,
            text=fields.essence or "",
            confidence=phases.finite(c.confidence),
            pathway=self.pathway,
            thought_type=fields.thought_type,
            metadata=fields.metadata or {},
            created_at=fields.created_at,
            last_accessed_at=fields.last_accessed_at,
            valid_from=fields.valid_from,
            causal_links=sorted(c.links, key=lambda link: (link.hops, link.edge_id)),
            reached_by=c.reached_by,
            via=c.via,
        )  # type: ignore[arg-type]

    def response(self) -> RetrievalResponse:
        """Phase 10's response."""
        assert self.encoding is not None and self.pathway is not None
        assert self.pathway_scores is not None
        return RetrievalResponse(
            results=[self._memory(c) for c in self.final],
            pathway=self.pathway,
            pathway_scores=self.pathway_scores,
            intent=self.encoding.intent,
            phase_timings=dict(self.timings),
            candidates_activated=self.activated,
            candidates_after_spread=self.after_spread,
            candidates_final=len(self.final),
            causal_links=self.links,
            skipped_phases=dict(self.skipped),
        )

    def explanation(self, level: str) -> Explanation:
        """The explain output of this run; ``level="debug"`` adds every candidate's trace."""
        assert self.encoding is not None and self.pathway is not None
        assert self.pathway_scores is not None and self.weights is not None
        traces = None
        if level == "debug":
            traces = [
                self._trace(c)
                for c in sorted(
                    self.candidates.values(), key=lambda c: (-c.confidence, c.thought_id)
                )
            ]
        return Explanation(
            level=level,
            query=self.encoding.text,
            intent=self.encoding.intent,  # type: ignore[arg-type]
            intent_scores=self.encoding.intent_scores,
            entities=self.encoding.entities,
            temporal=self.encoding.temporal,
            pathway_scores=self.pathway_scores,
            pathway_selected=self.pathway,
            candidates_activated=self.activated,
            candidates_after_spread=self.after_spread,
            candidates_final=len(self.final),
            phase_timings=dict(self.timings),
            skipped_phases=dict(self.skipped),
            decay_axis=self.decay_axis,
            vector_strategy=self.vector_strategy,
            weights=self.weights.as_dict(),
            results=[self._memory(c) for c in self.final],
            candidates=traces,
        )

    @staticmethod
    def _trace(c: Candidate) -> CandidateTrace:
        s = c.signals
        return CandidateTrace(
            thought_id=c.thought_id,
            text=(c.fields.essence or "") if c.fields else "",
            reached_by=c.reached_by,
            via=c.via,
            hops=c.hops,
            direct_similarity=phases.finite(c.direct),
            spread=phases.finite(c.spread),
            session=phases.finite(c.session),
            similarity=s.similarity if s else 0.0,
            temporal=s.temporal if s else 0.0,
            causal=s.causal if s else 0.0,
            importance=s.importance if s else 0.0,
            access_frequency=s.access_frequency if s else 0.0,
            activation=s.activation if s else c.activation,
            composite=phases.finite(c.composite),
            confidence=phases.finite(c.confidence),
            dropped_in=c.dropped_in,
            reason=c.reason,
        )


class RetrievalCycle:
    """Runs the 10-phase cycle for one namespace.

    Args:
        deps: what the cycle reads (connection, arms, embedder, access callback, configs).
    """

    def __init__(self, deps: CycleDeps) -> None:
        self.deps = deps

    async def run(self, request: RetrieveRequest, *, trace: bool = False) -> CycleRun:
        """Run every phase for ``request``; with ``trace``, keep every candidate's signals and
        text (explain at level "debug").

        Raises:
            RecencyModeConflictError: both ``current_cycle`` and ``recency_now``.
            InvalidQueryError: a blank or too long query.
            InvalidFilterError: a bad metadata filter.
            CycleProviderError: the store's cycle provider returned an invalid cycle.
            EmbeddingError: the provider failed.
        """
        deps, config = self.deps, self.deps.config
        run = CycleRun(request, config=config)
        recency = self._recency(request)
        scope = deps.retrievable(
            include_archived=request.include_archived, filters=request.metadata(), now=request.now
        )
        pending: list[asyncio.Future[Any]] = []
        try:
            with run.phase("encode"):
                run.encoding, embedding = await self._encode(request)
                pending.append(embedding)
            with run.phase("route"):
                run.pathway_scores = route(run.encoding)
                run.pathway = select_pathway(run.pathway_scores, request.pathway)
                profile = config.profiles[run.pathway]
                queries = (
                    run.encoding.sub_queries
                    if profile.decompose and request.pathway in ("auto", Pathway.ATTENTION)
                    else [run.encoding.text]
                )
                # The keyword arm needs no vector: it runs while the question is embedded.
                keyword = asyncio.ensure_future(phases.keyword(deps, queries, profile, scope))
                pending.append(keyword)
                causal = run.encoding.intent is Intent.CAUSAL and profile.seeds > 0
                if not causal:
                    run.skipped["cause"] = f"intent is {run.encoding.intent.value}"
                run.decay_axis = self._axis(request, recency)
                if run.decay_axis is None:
                    run.skipped["decay"] = "no clock: pass now, current_cycle or recency_now"
                run.weights = self._weights(run, request)
                depth = (
                    config.spread_depth if request.spread_depth is None else request.spread_depth
                )
                inputs = phases.RankingInputs(
                    weights=run.weights,
                    axis=run.decay_axis,
                    now=request.now,
                    recency=recency,
                    decay_rate=deps.time_config.access_decay_rate,
                    temporal=run.encoding.temporal,
                    spreading=bool(depth),
                    need=request.top_k + 1,
                    trace=trace or causal,
                )
                # Everything of the composed statement but the vectors and the keyword hits.
                activation = await phases.prepare_activation(deps, profile, depth, scope, inputs)
                run.vector_strategy = activation.strategy
            with run.phase("encode"):
                vectors = await self._vectors(embedding, run.encoding.text, queries)
            vector = vectors[run.encoding.text]
            with run.phase("activate"):
                hits = await keyword
                ranking = await phases.activate(
                    deps, activation, hits, [vectors[q] for q in queries], vector
                )
        finally:
            for task in pending:
                task.cancel()
        run.activated, run.after_spread = ranking.activated, ranking.size
        if not depth or not ranking.activated:
            run.skipped["spread"] = "spread_depth is 0" if not depth else "nothing activated"
        if causal:
            with run.phase("cause"):
                seeds = phases.top_seeds(ranking.pool, profile.seeds)
                if seeds:
                    run.links = await phases.cause(
                        deps,
                        ranking.pool,
                        seeds,
                        config.causal_depth_for(request.causal_weight),
                        vector,
                        scope,
                    )
                    ranking = await phases.rank(
                        deps, ranking.pool, inputs, has_vector=vector is not None
                    )
                else:
                    run.skipped["cause"] = "nothing activated"
        run.candidates = ranking.pool
        warn_hand_edited(run.candidates.values())
        with run.phase("filter"):
            distinct = [
                *phases.cap_reflections(
                    ranking.kept, config.reflection_cap, config.reflection_window
                ),
                *ranking.rest,
            ]
        with run.phase("score"):
            phases.score(distinct, config)
            kept = phases.min_confidence(distinct, request.min_confidence)
        with run.phase("return"):
            run.final = kept[: request.top_k]
            for c in kept[request.top_k :]:
                c.dropped_in, c.reason = "return", f"below top_k={request.top_k}"
            deps.track([c.thought_id for c in run.final])
        return run

    async def _encode(self, request: RetrieveRequest) -> tuple[QueryEncoding, asyncio.Future[Any]]:
        """Phase 1: the encoding, and the question's embedding, started first on its worker
        thread so that it runs while the question is encoded (a date phrase costs dateparser
        tens of milliseconds), routed and searched by keyword. A task starts only when the loop
        next runs, so one yield lets it hand the text to its thread before the encoding takes
        the interpreter. A single-text call is what the provider's query cache remembers."""
        text = request.query.strip()
        embedding = None if blank(text) else asyncio.ensure_future(self.deps.embed([text]))
        try:
            await asyncio.sleep(0)
            encoding = encode_query(request.query, now=request.now)
        except BaseException:
            if embedding is not None:
                embedding.cancel()
            raise
        assert embedding is not None  # encode_query refuses a blank query
        return encoding, embedding

    async def _vectors(
        self, embedding: asyncio.Future[Any], text: str, queries: list[str]
    ) -> dict[str, list[float] | None]:
        """The vectors of the question and of the sub-queries to activate with (those in one
        more provider call, after the question's)."""
        vectors: dict[str, list[float] | None] = {text: (await embedding)[0]}
        rest = [q for q in queries if q not in vectors]
        if rest:
            vectors.update(zip(rest, await self.deps.embed(rest), strict=True))
        return vectors

    def _recency(self, request: RetrieveRequest) -> RecencyReference | None:
        explicit = request.current_cycle
        provider = (
            resolve_cycle(None, self.deps.cycle_provider)
            if explicit is None and request.recency_now is None
            else None
        )
        return resolve_recency(
            current_cycle=explicit,
            recency_now=request.recency_now,
            provider_cycle=provider,
            config=self.deps.time_config,
        )

    @staticmethod
    def _axis(request: RetrieveRequest, recency: RecencyReference | None) -> str | None:
        if request.current_cycle is not None or request.recency_now is not None:
            return recency.axis.value if recency else None
        if request.now is not None:
            return "access"
        return recency.axis.value if recency else None

    @staticmethod
    def _weights(run: CycleRun, request: RetrieveRequest) -> RankWeights:
        """Pathway weights (Phase 7), tuned by the request; a phase that did not run gives its
        weight to the others unless the request set it; without a named time range the
        temporal signal (recency) weighs ``config.recency_weight``."""
        assert run.pathway is not None and run.encoding is not None
        temporal_weight, causal_weight = request.temporal_weight, request.causal_weight
        has_range = run.encoding.temporal is not None and bool(
            run.encoding.temporal.start or run.encoding.temporal.end
        )
        if temporal_weight is None and not has_range:
            temporal_weight = 0.0 if run.decay_axis is None else run.config.recency_weight
        if causal_weight is None and "cause" in run.skipped:
            causal_weight = 0.0
        return tune_weights(
            PATHWAY_WEIGHTS[run.pathway],
            temporal_weight=temporal_weight,
            causal_weight=causal_weight,
        )
