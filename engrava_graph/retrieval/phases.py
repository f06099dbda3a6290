"""Phases 3-9 of the retrieval cycle over Neo4j, in phase order.

Round trips: Phase 3's keyword arm is one statement, run while the question is embedded (it
needs no vector). Then one composed statement (``cypher/retrieval/activate_<strategy>.cypher``)
runs the vector arm, Phase 4's spreading, every candidate's signals and composite (Phases 4, 5
and 7: ``retrieval/_rank``) and Phase 8's near-duplicate walk down the ranking, and returns the
kept head with its texts (``retrieval/_walk``): cosines are computed in Cypher, so no vector is
shipped, and only the results' texts are read. A causal query asks that statement for every
candidate, reads the causal chains from the seeds (Phase 6) and ranks the pool again with their
causal relevance (``retrieval/rank``). Phase 9 (confidence) and the reflection cap run here.
The orchestrator (:mod:`.orchestrator`) times them, counts candidates and assembles the
response; nothing here reads a clock or builds Cypher. The candidates themselves are
:mod:`.candidates`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.params import vector_param
from engrava_graph.graph.registry import CypherDialect, CypherStatement, cypher_by_dialect
from engrava_graph.retrieval.candidates import Candidate, MemoryFields
from engrava_graph.retrieval.config import PathwayProfile, RetrievalConfig
from engrava_graph.retrieval.deps import CycleDeps
from engrava_graph.retrieval.results import CausalLink
from engrava_graph.retrieval.scoring import (
    ACCESS_SATURATION,
    NEUTRAL_CONFIDENCE,
    PRIORITY_BOOST,
    PRIORITY_SHARE,
    RankWeights,
    calibrated_confidence,
)
from engrava_graph.retrieval.types import TemporalRange
from engrava_graph.search.fusion import RecencyReference, min_max

_ACTIVATE = {
    "exact": cypher_by_dialect("retrieval/activate_exact"),
    "filtered": cypher_by_dialect("retrieval/activate_filtered"),
    "index": cypher_by_dialect("retrieval/activate_index"),
}
_RANK = cypher_by_dialect("retrieval/rank")
_CAUSAL = cypher_by_dialect("retrieval/causal_chains")


async def _statement(
    deps: CycleDeps, rendered: dict[CypherDialect, CypherStatement]
) -> CypherStatement:
    """The one of ``rendered`` for the dialect of ``deps``' server (asked once per connection)."""
    return rendered[(await server_line(deps.executor)).dialect]


# ------------------------------------------------------------------ Phases 3-4: activate
async def keyword(
    deps: CycleDeps, queries: Sequence[str], profile: PathwayProfile, scope: dict[str, Any]
) -> dict[str, float]:
    """Phase 3, the keyword arm: each (sub-)query's BM25 hits, min-max normalised per query and
    merged by max (``{thought_id: score in [0, 1]}``). Needs no vector, so the cycle runs it
    while the question is embedded."""
    runs = await asyncio.gather(
        *(deps.arms.fulltext(q, profile.fulltext_k, scope) for q in queries)
    )
    found: dict[str, float] = {}
    for hits in runs:
        for thought_id, score in min_max(dict(hits)).items():
            found[thought_id] = max(found.get(thought_id, 0.0), score)
    return found


@dataclass(frozen=True)
class RankingInputs:
    """What Phases 4 (over the pool), 5, 7 and 8 need besides the candidates, as the parameters
    of ``retrieval/_rank`` and ``retrieval/_walk``.

    Attributes:
        weights: Phase 7's weights.
        axis: the decay axis ("access", "cycle", "transaction") or None (no decay).
        now: the request's clock (the access axis).
        recency: the cycle or transaction-time reference (those axes).
        decay_rate: decay per day on the access axis.
        temporal: the question's named time range, if any.
        spreading: Phase 4 ran (``spread_depth`` > 0): conversation links and session signal.
        need: how many leading results must be exact (``top_k + 1``: Phase 9 reads one past the
            last result).
        trace: return every candidate (explain at level "debug", and a causal query's pool).
    """

    weights: RankWeights
    axis: str | None
    now: datetime | None
    recency: RecencyReference | None
    decay_rate: float
    temporal: TemporalRange | None
    spreading: bool
    need: int
    trace: bool

    def params(self, config: RetrievalConfig) -> dict[str, Any]:
        """The statement parameters (epoch seconds for instants; the formulas' constants from
        :mod:`.scoring` and ``config``), all but ``has_vector`` (whether the question has a
        vector, else similarity is the keyword score), which the caller adds once it knows."""
        recency = self.recency
        has_range = self.temporal is not None and bool(self.temporal.start or self.temporal.end)
        start = self.temporal.start if has_range and self.temporal else None
        end = self.temporal.end if has_range and self.temporal else None
        axis = self.axis if self.axis == "access" or recency is not None else None
        return {
            "vector_share": config.vector_share,
            "spreading": self.spreading,
            "window": config.conversation_window,
            "neighbour_weight": config.neighbour_weight,
            "neighbour_decay": config.neighbour_decay,
            "session_top": config.session_top,
            "axis": axis,
            "now_s": _epoch_s(self.now),
            "decay_rate": self.decay_rate,
            "recency_cycle": (recency.cycle or 0) if recency else 0,
            "recency_now_s": _epoch_s(recency.now) if recency else None,
            "recency_rate": math.log(2) / recency.half_life if recency else 0.0,
            "range_start_s": _epoch_s(start),
            "range_end_s": _epoch_s(end),
            "spread_gain": config.spread_gain,
            "session_gain": config.session_gain,
            "priority_boost": dict(PRIORITY_BOOST),
            "priority_share": PRIORITY_SHARE,
            "neutral_confidence": NEUTRAL_CONFIDENCE,
            "access_saturation": ACCESS_SATURATION,
            "weights": self.weights.as_dict(),
            "outside_range_factor": config.outside_range_factor,
            "duplicate_threshold": config.duplicate_threshold,
            "need": self.need,
            "walk_first": max(self.need, config.reflection_window),
            "reflection_cap": config.reflection_cap,
            "reflection_window": config.reflection_window,
            "trace": self.trace,
        }


def _epoch_s(when: datetime | None) -> float | None:
    return None if when is None else when.timestamp()


@dataclass
class Ranking:
    """What a ranking statement (``retrieval/_walk``) returned, as candidates.

    Attributes:
        kept: the walked candidates kept by Phase 8 (near-duplicates dropped), in rank order,
            with their display fields.
        rest: the unwalked candidates after them, in rank order (only their composite, cosine
            and keyword, unless ``trace``): with ``kept``, the input of Phase 9.
        pool: every candidate by id: the kept and the rest, and with ``trace`` every other one
            too (their signals; the dropped ones with the reason).
        activated: how many candidates the arms activated; size: how many were ranked.
    """

    kept: list[Candidate]
    rest: list[Candidate]
    pool: dict[str, Candidate]
    activated: int
    size: int


def _ranking(record: Mapping[str, Any]) -> Ranking:
    """Read a ``retrieval/_walk`` record (the composed statement's or ``retrieval/rank``'s)."""
    pool = {c.thought_id: c for c in map(_ranked, record["trace"])}
    kept = [pool.get(entry[0][0]) or _ranked(entry) for entry in record["kept"]]
    rest = [
        pool.get(thought_id)
        or Candidate(thought_id, composite=composite, cosine=cosine, keyword=keyword)
        for thought_id, composite, cosine, keyword in record["rest"]
    ]
    pool.update((c.thought_id, c) for c in (*kept, *rest))
    for dropped in record["dropped"]:
        c = pool.get(dropped["thought_id"])
        if c is not None:
            c.dropped_in, c.reason = "filter", f"near-duplicate of {dropped['twin']}"
    return Ranking(kept, rest, pool, int(record["activated"]), int(record["ranked"]))


def _ranked(entry: Sequence[Any]) -> Candidate:
    """A candidate from a ``retrieval/_walk`` entry: its signal row, ranking and display fields."""
    signals, fields, display = entry
    return Candidate.from_signal_row(signals, MemoryFields.from_row(fields).with_display(display))


@dataclass(frozen=True)
class Activation:
    """The composed statement of Phases 3, 4, 5, 7 and 8 (``retrieval/activate_<strategy>``)
    with the parameters that need neither the vectors nor the keyword hits: built while the
    question is embedded, so that only those remain to add once they are there
    (:func:`activate`).

    Attributes:
        statement: the statement for the server's dialect and the vector strategy.
        strategy: the vector arm's strategy, ``"exact"``, ``"filtered"`` or ``"index"``.
        params: its parameters but ``vectors``, ``vector``, ``has_vector`` and ``keyword``.
    """

    statement: CypherStatement
    strategy: str
    params: dict[str, Any]


async def prepare_activation(
    deps: CycleDeps,
    profile: PathwayProfile,
    depth: int,
    scope: dict[str, Any],
    ranking: RankingInputs,
) -> Activation:
    """The :class:`Activation` of one run: the vector plan for ``scope`` (a metadata filter
    makes the matching thoughts the candidates: no similarity floor), spreading from the
    ``profile.seeds`` most similar (none when ``depth`` is 0), and ``ranking``'s parameters.

    Returns:
        The statement and its parameters, to run with :func:`activate`.

    Raises:
        Neo4jUnavailableError: the namespace's statistics, a metadata filter's count or the
            server's line had to be read and Neo4j could not be reached.
    """
    config = deps.config
    floor = 0.0 if scope.get("meta_filters") else profile.min_similarity
    plan, arm_params = await deps.arms.vector_plan(profile.vector_k, scope, threshold=floor)
    return Activation(
        statement=await _statement(deps, _ACTIVATE[plan.strategy]),
        strategy=plan.strategy,
        params=dict(  # a keyword argument call: a name given twice raises, it never overrides
            seeds=profile.seeds if depth else 0,
            edge_depth=max(depth, 1),
            per_node=config.per_node,
            entity_weight=config.entity_weight,
            max_fanout=config.max_entity_fanout,
            window_seconds=config.temporal_window_seconds,
            temporal_weight=config.temporal_link_weight,
            **ranking.params(config),
            **arm_params,
            **scope,
        ),
    )


async def activate(
    deps: CycleDeps,
    activation: Activation,
    keyword_hits: Mapping[str, float],
    vectors: Sequence[list[float] | None],
    vector: list[float] | None,
) -> Ranking:
    """Phases 3, 4, 5, 7 and 8, one statement (``activation``): the vector arm for each query
    vector joined with ``keyword_hits``; each memory's direct similarity (its cosine the best of
    the arm's and the one to the question ``vector``, so a keyword hit has its true cosine);
    spreading from the most similar over typed edges, conversation neighbours, shared
    entities/tags and temporal proximity; every candidate's signals and composite
    (``retrieval/_rank``); and the near-duplicate walk with the kept ones' texts
    (``retrieval/_walk``).

    Args:
        activation: from :func:`prepare_activation`.
        keyword_hits: the keyword arm's ``{thought_id: score in [0, 1]}``.
        vectors: each query vector (the question's, or each sub-query's; None ones left out).
        vector: the question's vector (None without a provider: similarity is then the
            keyword score).

    Returns:
        The :class:`Ranking`.

    Raises:
        Neo4jUnavailableError: Neo4j could not be reached.
    """
    records = await deps.executor.read(
        activation.statement,
        **activation.params,
        has_vector=vector is not None,
        vectors=[vector_param(v) for v in vectors if v is not None],
        vector=vector_param(vector),
        keyword=[{"thought_id": tid, "score": score} for tid, score in keyword_hits.items()],
    )
    return _ranking(records[0])


async def rank(
    deps: CycleDeps,
    candidates: Mapping[str, Candidate],
    ranking: RankingInputs,
    *,
    has_vector: bool,
) -> Ranking:
    """Phases 4 (over the pool), 5, 7 and 8 again for ``candidates`` (``retrieval/rank``): after
    Phase 6 changed the pool (causal relevance, memories the causal walk reached). Each keeps
    the causal chains Phase 6 gave it; a candidate deleted since it was read is left out.
    ``has_vector``: the question has a vector (else similarity is the keyword score)."""
    pool = [
        {
            "element_id": c.fields.element_id,
            "thought_id": c.thought_id,
            "keyword": c.keyword,
            "cosine": c.cosine,
            "activated": c.reached_by == "activation",
            "reached_by": c.reached_by,
            "hops": c.hops,
            "arrivals": [[a.from_id, a.via, a.activation] for a in c.arrivals],
            "causal": c.causal,
        }
        for c in candidates.values()
        if c.fields is not None
    ]
    records = await deps.executor.read(
        await _statement(deps, _RANK),
        namespace=deps.namespace,
        pool=pool,
        has_vector=has_vector,
        **ranking.params(deps.config),
    )
    ranked = _ranking(records[0])
    for thought_id, c in ranked.pool.items():
        if thought_id in candidates:
            c.links = candidates[thought_id].links  # Phase 6's chains through it
    return ranked


def top_seeds(candidates: Mapping[str, Candidate], n: int) -> list[Candidate]:
    """The ``n`` most activated candidates (ties by id): where spreading and the causal walk
    start (the same order ``retrieval/_activate_and_spread`` chose its seeds in)."""
    activated = (c for c in candidates.values() if c.reached_by == "activation")
    return sorted(activated, key=lambda c: (-c.activation, c.thought_id))[:n]


# ---------------------------------------------------------------------------- Phase 6: cause
async def cause(
    deps: CycleDeps,
    candidates: dict[str, Candidate],
    seeds: Sequence[Candidate],
    depth: int,
    vector: list[float] | None,
    scope: dict[str, Any],
) -> list[CausalLink]:
    """Phase 6: directed BFS from the seeds to causes (CAUSED_BY forwards, LEADS_TO backwards)
    and effects. A memory ``h`` links from a seed scores ``seed activation * prod(link
    confidence) * causal_hop_factor ** (h - 1)`` (so chains from the best-matching memory
    count most, nearer links more than farther ones); the seed scores its best chain. Memories
    reached only here join the candidates (reached_by "cause", their ranking and display fields
    from the same statement) when retrievable under ``scope``.

    Returns:
        Every traversed link once (at its smallest distance from a seed), nearest first.
    """
    config = deps.config
    rows = await deps.executor.read(
        await _statement(deps, _CAUSAL),
        seed_ids=[s.thought_id for s in seeds],
        max_depth=depth,
        max_paths=config.causal_max_paths,
        vector=vector_param(vector),
        **scope,
    )
    traversed: dict[str, CausalLink] = {}
    (row,) = rows
    node_rows = dict(zip(row["ids"], row["nodes"], strict=True))
    for path in row["paths"]:
        seed = candidates.get(path["seed_id"])
        if seed is None:
            continue
        score = seed.activation
        for hops, (link, node_id) in enumerate(
            zip(path["links"], path["path"][1:], strict=True), start=1
        ):
            node_row = node_rows[node_id]
            score *= float(link["confidence"]) * (config.causal_hop_factor if hops > 1 else 1.0)
            causal_link = CausalLink(hops=hops, direction=path["direction"], **link)
            best = traversed.get(causal_link.edge_id)
            if best is None or hops < best.hops:
                traversed[causal_link.edge_id] = causal_link
            node = _causal_node(candidates, node_row, hops)
            holders = [seed] if node is None else [node, seed]
            if node is not None:
                node.causal = max(node.causal, score)
            for holder in holders:
                if all(existing.edge_id != causal_link.edge_id for existing in holder.links):
                    holder.links.append(causal_link)
            seed.causal = max(seed.causal, score)
    return sorted(traversed.values(), key=lambda link: (link.hops, link.direction, link.edge_id))


def _causal_node(
    candidates: dict[str, Candidate], row: Mapping[str, Any], hops: int
) -> Candidate | None:
    """The candidate for a node on a causal path (added when new and retrievable, with its
    display fields: the path read them)."""
    thought_id = row["fields"][0]
    node = candidates.get(thought_id)
    if node is None and row["retrievable"]:
        node = candidates[thought_id] = Candidate(
            thought_id,
            reached_by="cause",
            hops=hops,
            cosine=None if row["similarity"] is None else float(row["similarity"]),
            fields=MemoryFields.from_row(row["fields"]).with_display(row["display"]),
        )
    return node


# ---------------------------------------------------------------------------- Phase 8: filter
def min_confidence(candidates: Sequence[Candidate], threshold: float) -> list[Candidate]:
    """Phase 8, ``min_confidence``: keep candidates whose (Phase 9) confidence reaches it."""
    survivors = []
    for c in candidates:
        if c.confidence < threshold:
            c.dropped_in = "filter"
            c.reason = f"confidence {c.confidence:.3f} < min_confidence {threshold}"
        else:
            survivors.append(c)
    return survivors


def cap_reflections(ranked: Sequence[Candidate], cap: int, window: int) -> list[Candidate]:
    """Phase 8, reflections inform, not crowd: at most ``cap`` REFLECTIONs among the first
    ``window`` results (as the peer's ``reflection_topk_cap``); a reflection over the cap moves
    down to just after the window, keeping its order among the moved ones."""
    head: list[Candidate] = []
    moved: list[Candidate] = []
    rest: list[Candidate] = []
    reflections = 0
    for c in ranked:
        if len(head) >= window:
            rest.append(c)
            continue
        if c.fields is not None and c.fields.thought_type == "REFLECTION":
            if reflections >= cap:
                moved.append(c)
                continue
            reflections += 1
        head.append(c)
    return head + moved + rest


# --------------------------------------------------------------------------- Phase 9: score
def score(ranked: Sequence[Candidate], config: RetrievalConfig) -> None:
    """Phase 9: each candidate's confidence, the calibrated probability that it answers the
    query (:func:`.scoring.calibrated_confidence` of its composite, its lead over the
    next-ranked candidate, its cosine to the question (else its keyword score), its rank and
    how many candidates compete), never above the confidence of a higher-ranked one, so the
    response is ordered by rank and by confidence alike. ``ranked`` must be in Phase 7 order."""
    ceiling = 1.0
    for i, c in enumerate(ranked):
        following = ranked[i + 1].composite if i + 1 < len(ranked) else c.composite
        confidence = calibrated_confidence(
            c.composite,
            c.composite - following,
            i,
            len(ranked),
            config.calibration,
            cosine=c.cosine if c.cosine is not None else c.keyword,
        )
        ceiling = min(ceiling, confidence)
        c.confidence = ceiling


def finite(value: float) -> float:
    """``value`` rounded to 6 digits (stable output), NaN-safe."""
    return 0.0 if math.isnan(value) else round(value, 6)
