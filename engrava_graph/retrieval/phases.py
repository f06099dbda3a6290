"""Phases 3-9 of the 000 cycle over Neo4j, each a small function with typed input and output.

The orchestrator (:mod:`.orchestrator`) times them, counts candidates and assembles the
response; nothing here reads a clock or builds Cypher (statements come from ``cypher/``).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from engrava_graph.graph.mapping import thought_from_properties
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import Priority
from engrava_graph.model.records import ThoughtRecord
from engrava_graph.retrieval.config import PathwayProfile, RetrievalConfig
from engrava_graph.retrieval.results import CausalLink
from engrava_graph.retrieval.scoring import (
    CandidateSignals,
    RankWeights,
    access_frequency_score,
    composite_score,
    confidence,
    decay_factor,
    importance_score,
)
from engrava_graph.retrieval.types import TemporalRange
from engrava_graph.search.fusion import RecencyReference, min_max

if TYPE_CHECKING:
    from engrava_graph.core import Neo4jEngravaCore

_SPREAD = cypher("retrieval/spread_hop")
_CAUSAL = cypher("retrieval/causal_chains")
_CANDIDATES = cypher("retrieval/candidates")
_EMBEDDINGS = cypher("retrieval/embeddings")

SECONDS_PER_DAY = 86_400.0


@dataclass
class Candidate:
    """A memory moving through the cycle (mutable working state of one request).

    Attributes:
        thought_id: the memory.
        reached_by: "activation", "spread" or "cause"; hops: links from the activated set.
        activation: 1 when activated, ``parent * hop_factor * link weight`` when spread to.
        cosine: cosine to the query in [0, 1] (None without a vector); keyword: normalised BM25.
        causal: Phase 6 relevance; links: the causal chain through it.
    """

    thought_id: str
    reached_by: str = "activation"
    hops: int = 0
    activation: float = 1.0
    cosine: float | None = None
    keyword: float = 0.0
    causal: float = 0.0
    temporal: float = 0.0
    links: list[CausalLink] = field(default_factory=list)
    record: ThoughtRecord | None = None
    signals: CandidateSignals | None = None
    composite: float = 0.0
    confidence: float = 0.0
    dropped_in: str | None = None
    reason: str | None = None

    def similarity(self, config: RetrievalConfig, has_vector: bool) -> float:
        """Fused relevance in [0, 1]: ``vector_share * cosine + (1 - vector_share) * keyword``
        (keyword alone without a query vector)."""
        if not has_vector:
            return self.keyword
        return (config.vector_share * (self.cosine or 0.0)
                + (1.0 - config.vector_share) * self.keyword)


# ------------------------------------------------------------------------- Phase 3: activate
async def activate(store: Neo4jEngravaCore, queries: Sequence[str],
                   vectors: Sequence[list[float] | None], profile: PathwayProfile,
                   scope: dict[str, Any]) -> tuple[dict[str, Candidate], str | None]:
    """Phase 3: the keyword and vector arms for each (sub-)query, merged by max per memory.

    Returns:
        ``({thought_id: Candidate}, vector strategy "exact" | "index" | None)``.
    """
    async def one(query: str, vector: list[float] | None) -> tuple[Any, Any]:
        keyword = store._arms.fulltext(query, profile.fulltext_k, scope)
        if vector is None:
            return await keyword, ([], None)
        # Under a metadata filter the matching thoughts are the candidates: no similarity floor.
        floor = 0.0 if scope.get("meta_filters") else profile.min_similarity
        return await asyncio.gather(keyword, store._arms.vector(
            vector, profile.vector_k, scope, threshold=floor))

    runs = await asyncio.gather(*(one(q, v) for q, v in zip(queries, vectors, strict=True)))
    found: dict[str, Candidate] = {}
    strategy = None
    for keyword_hits, (vector_hits, plan) in runs:
        strategy = plan.strategy if plan is not None else strategy
        for tid, score in min_max(dict(keyword_hits)).items():
            c = found.setdefault(tid, Candidate(tid))
            c.keyword = max(c.keyword, score)
        for tid, cos in vector_hits:
            c = found.setdefault(tid, Candidate(tid))
            c.cosine = max(c.cosine or 0.0, cos)
    return found, strategy


def top_seeds(candidates: Mapping[str, Candidate], n: int, config: RetrievalConfig,
              has_vector: bool) -> list[Candidate]:
    """The ``n`` strongest candidates by activation x similarity (ties by id)."""
    ranked = sorted(candidates.values(), key=lambda c: (
        -c.activation * c.similarity(config, has_vector), c.thought_id))
    return ranked[:n]


# --------------------------------------------------------------------------- Phase 4: spread
async def spread(store: Neo4jEngravaCore, candidates: dict[str, Candidate],
                 seeds: Sequence[Candidate], vector: list[float] | None, depth: int,
                 config: RetrievalConfig, scope: dict[str, Any]) -> int:
    """Phase 4: spreading activation, ``depth`` hops: each link passes on
    ``parent activation x hop_factor x link weight``, and what a memory receives adds up
    (capped at 1), as in Collins & Loftus (1975). New memories join ``candidates``
    (reached_by "spread"); each further hop spreads from the strongest ``len(seeds)`` arrivals.

    Returns:
        How many memories spreading added.
    """
    frontier = list(seeds)
    added = 0
    for hop in range(1, depth + 1):
        if not frontier:
            break
        rows = await store.executor.read(
            _SPREAD, frontier=[c.thought_id for c in frontier], vector=vector,
            per_node=config.per_node, max_entity_degree=config.max_entity_degree,
            window_seconds=config.temporal_window_seconds, entity_weight=config.entity_weight,
            temporal_weight=config.temporal_link_weight, **scope)
        parents = {c.thought_id: c for c in frontier}
        received: dict[str, float] = {}
        similarity: dict[str, float | None] = {}
        for row in rows:
            strength = parents[row["from_id"]].activation * config.hop_factor * float(row["weight"])
            received[row["thought_id"]] = received.get(row["thought_id"], 0.0) + strength
            similarity[row["thought_id"]] = row["similarity"]
        arrivals: dict[str, Candidate] = {}
        for tid, boost in sorted(received.items()):
            existing = candidates.get(tid)
            if existing is not None:
                existing.activation = min(1.0, existing.activation + boost)
                continue
            arrivals[tid] = Candidate(tid, reached_by="spread", hops=hop,
                                      activation=min(1.0, boost), cosine=similarity[tid])
        candidates.update(arrivals)
        added += len(arrivals)
        frontier = top_seeds(arrivals, len(seeds), config, vector is not None)
    return added


def initial_activation(candidates: Mapping[str, Candidate], config: RetrievalConfig,
                       has_vector: bool) -> None:
    """Phase 3's activation level of each directly activated memory: its similarity relative to
    the best match (the best starts at 1.0), so spreading can lift weaker matches that many
    strong ones point to (activation sums, Collins & Loftus 1975)."""
    best = max((c.similarity(config, has_vector) for c in candidates.values()), default=0.0)
    for c in candidates.values():
        c.activation = c.similarity(config, has_vector) / best if best > 0 else 1.0


# ---------------------------------------------------------------------------- Phase 6: cause
async def cause(store: Neo4jEngravaCore, candidates: dict[str, Candidate],
                seeds: Sequence[Candidate], depth: int,
                config: RetrievalConfig) -> list[CausalLink]:
    """Phase 6: directed BFS from the seeds to causes (CAUSED_BY forwards, LEADS_TO backwards)
    and effects. A memory ``h`` links from a seed scores ``seed activation * prod(link
    confidence) * causal_hop_factor ** (h - 1)`` (so chains from the best-matching memory
    count most, nearer links more than farther ones); the seed scores its best chain. Memories
    reached only here join the candidates (reached_by "cause", activation = that score).

    Returns:
        Every traversed link once (at its smallest distance from a seed), nearest first.
    """
    rows = await store.executor.read(_CAUSAL, namespace=store.namespace,
                                     seed_ids=[s.thought_id for s in seeds], max_depth=depth,
                                     max_paths=config.causal_max_paths)
    traversed: dict[str, CausalLink] = {}
    for row in rows:
        seed = candidates[row["seed_id"]]
        score = seed.activation
        for hops, (link, node_id) in enumerate(zip(row["links"], row["path"][1:],
                                                   strict=True), start=1):
            score *= float(link["confidence"]) * (config.causal_hop_factor if hops > 1 else 1.0)
            causal_link = CausalLink(hops=hops, direction=row["direction"], **link)
            best = traversed.get(causal_link.edge_id)
            if best is None or hops < best.hops:
                traversed[causal_link.edge_id] = causal_link
            node = candidates.get(node_id)
            if node is None:
                node = candidates[node_id] = Candidate(node_id, reached_by="cause", hops=hops,
                                                       activation=score)
            node.causal = max(node.causal, score)
            for holder in (node, seed):
                if all(existing.edge_id != causal_link.edge_id for existing in holder.links):
                    holder.links.append(causal_link)
            seed.causal = max(seed.causal, score)
    return sorted(traversed.values(), key=lambda link: (link.hops, link.direction, link.edge_id))


# ----------------------------------------------------------- records for Phases 5, 7, 8, 9
async def load_records(store: Neo4jEngravaCore, candidates: dict[str, Candidate],
                       vector: list[float] | None, scope: dict[str, Any]) -> None:
    """Attach a record and the cosine to the query to every candidate that has none yet (one
    round trip); a candidate that is not retrievable under ``scope`` (or vanished) is dropped."""
    missing = [tid for tid, c in candidates.items() if c.record is None]
    if not missing:
        return
    rows = await store.executor.read(_CANDIDATES, thought_ids=missing, vector=vector, **scope)
    seen = set()
    for row in rows:
        record = thought_from_properties(row["thought"])
        c = candidates[record.thought_id]
        c.record = record
        if row["similarity"] is not None:
            c.cosine = max(c.cosine or 0.0, float(row["similarity"]))
        seen.add(record.thought_id)
    for gone in set(missing) - seen:
        del candidates[gone]


# ---------------------------------------------------------------------------- Phase 5: decay
def memory_time(record: ThoughtRecord) -> datetime | None:
    """When a memory happened: valid_from, else created_at."""
    return record.valid_from or record.created_at


def in_range(when: datetime | None, temporal: TemporalRange) -> bool:
    """Whether ``when`` falls in the query's time range (open bounds tolerated)."""
    if when is None:
        return False
    return ((temporal.start is None or when >= temporal.start)
            and (temporal.end is None or when < temporal.end))


def decay(candidates: Mapping[str, Candidate], *, axis: str | None, now: datetime | None,
          recency: RecencyReference | None, decay_rate: float,
          temporal: TemporalRange | None) -> None:
    """Phase 5: set each candidate's temporal relevance in [0, 1].

    - ``"access"`` axis: ``1 / (1 + age_days * decay_rate)`` with age from the last access,
      else from creation (an access resets the clock); P1 or pinned memories do not decay
      ("marked high-importance").
    - ``"cycle"`` / ``"transaction"`` axis: the 003 recency of :mod:`.fusion`.
    - With a time range in the query (Phase 1), relevance is the mean of the decay value and
      whether the memory's time (valid_from, else created_at) falls in the range.
    """
    for c in candidates.values():
        record = c.record
        if record is None:
            continue
        if axis == "access" and now is not None:
            if record.pinned or record.priority is Priority.P1:
                value = 1.0
            else:
                since = record.last_accessed_at or record.created_at
                age_days = 0.0 if since is None else (now - since).total_seconds() / SECONDS_PER_DAY
                value = decay_factor(age_days, decay_rate)
        elif axis in ("cycle", "transaction") and recency is not None:
            value = recency.score(record.updated_cycle, record.updated_at, record.created_at)
        else:
            value = 0.0
        if temporal is not None and (temporal.start or temporal.end):
            hit = 1.0 if in_range(memory_time(record), temporal) else 0.0
            value = hit if axis is None else 0.5 * value + 0.5 * hit
        c.temporal = value


# ---------------------------------------------------------------------------- Phase 7: rank
def rank(candidates: Mapping[str, Candidate], weights: RankWeights, *,
         config: RetrievalConfig, has_vector: bool) -> list[Candidate]:
    """Phase 7: the composite score of each candidate (its signals kept for explain);
    returned best composite first (ties by id)."""
    for c in candidates.values():
        record = c.record
        assert record is not None
        c.signals = CandidateSignals(
            thought_id=c.thought_id,
            similarity=min(1.0, c.similarity(config, has_vector)),
            temporal=c.temporal, causal=min(1.0, c.causal),
            importance=importance_score(record.priority.value, record.confidence),
            access_frequency=access_frequency_score(record.access_count),
            activation=min(1.0, c.activation))
        c.composite = composite_score(c.signals, weights)
    return sorted(candidates.values(), key=lambda c: (-c.composite, c.thought_id))


# --------------------------------------------------------------------------- Phase 9: score
def score(ranked: Sequence[Candidate], weights: RankWeights) -> list[Candidate]:
    """Phase 9: each candidate's confidence (:func:`.scoring.confidence`); returned by
    confidence descending (ties by id), the order of the response."""
    for c in ranked:
        assert c.signals is not None
        c.confidence = confidence(c.signals, weights)
    return sorted(ranked, key=lambda c: (-c.confidence, c.thought_id))


# ---------------------------------------------------------------------------- Phase 8: filter
async def load_vectors(store: Neo4jEngravaCore, ids: Sequence[str]) -> dict[str, np.ndarray | None]:
    """Embeddings of ``ids`` for the near-duplicate check (one round trip)."""
    rows = await store.executor.read(_EMBEDDINGS, namespace=store.namespace, thought_ids=list(ids))
    return {r["thought_id"]: None if r["embedding"] is None
            else np.asarray(r["embedding"], dtype=np.float32) for r in rows}


def finite(value: float) -> float:
    """``value`` rounded to 6 digits (stable output), NaN-safe."""
    return 0.0 if math.isnan(value) else round(value, 6)
