"""Phases 3-9 of the retrieval cycle over Neo4j, in phase order, each a small function with typed
input and output.

Round trips: Phase 3's keyword arm is one statement (run while the question is embedded: it
needs no vector); the vector arm, Phase 4's spreading and the candidates' ranking fields are one
composed statement (``cypher/retrieval/activate_<strategy>.cypher``: cosines computed in Cypher,
so no vector is shipped, and no text read); Phase 6 is one more statement, for causal queries
only; Phase 8 walks the head of the ranking for near-duplicates in Cypher and reads the results'
texts (``cypher/retrieval/distinct.cypher``, one small statement). The orchestrator
(:mod:`.orchestrator`) times them, counts candidates and assembles the response; nothing here
reads a clock or builds Cypher. The candidates themselves are :mod:`.candidates`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.params import vector_param
from engrava_graph.graph.registry import (
    CypherDialect,
    CypherStatement,
    cypher,
    cypher_by_dialect,
)
from engrava_graph.model.enums import Priority
from engrava_graph.retrieval.candidates import Arrival, Candidate, MemoryFields
from engrava_graph.retrieval.config import PathwayProfile, RetrievalConfig
from engrava_graph.retrieval.deps import CycleDeps
from engrava_graph.retrieval.results import CausalLink
from engrava_graph.retrieval.scoring import (
    CandidateSignals,
    RankWeights,
    access_frequency_score,
    calibrated_confidence,
    composite_score,
    decay_factor,
    importance_score,
)
from engrava_graph.retrieval.types import TemporalRange
from engrava_graph.search.fusion import RecencyReference, min_max

_ACTIVATE = {
    "exact": cypher_by_dialect("retrieval/activate_exact"),
    "filtered": cypher_by_dialect("retrieval/activate_filtered"),
    "index": cypher_by_dialect("retrieval/activate_index"),
}
_CAUSAL = cypher_by_dialect("retrieval/causal_chains")
_DISTINCT = cypher_by_dialect("retrieval/distinct")
_DESCRIBE = cypher("retrieval/describe")

SECONDS_PER_DAY = 86_400.0


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


async def activate(
    deps: CycleDeps,
    keyword_hits: Mapping[str, float],
    vectors: Sequence[list[float] | None],
    vector: list[float] | None,
    profile: PathwayProfile,
    depth: int,
    scope: dict[str, Any],
) -> tuple[dict[str, Candidate], str]:
    """Phases 3 and 4 and the candidate records, one statement (``retrieval/activate_<strategy>``):
    the vector arm for each query vector joined with ``keyword_hits``; each memory's direct
    similarity (its cosine the best of the arm's and the one to the question ``vector``, so a
    keyword hit has its true cosine); spreading from the ``profile.seeds`` most similar (none when
    ``depth`` is 0) over typed edges, conversation neighbours, shared entities/tags and temporal
    proximity; and every candidate's ranking fields and cosine, computed in Cypher (no vector
    or text is shipped). Memories reached only by spreading have ``reached_by`` "spread"; each
    arrival records the seed's direct similarity times the link weight (:func:`spread` turns
    them into the ``spread`` signal); activation is the direct similarity relative to the best.

    Returns:
        ``({thought_id: Candidate}, vector strategy "exact" | "filtered" | "index")``.
    """
    config = deps.config
    has_vector = vector is not None
    # Under a metadata filter the matching thoughts are the candidates: no similarity floor.
    floor = 0.0 if scope.get("meta_filters") else profile.min_similarity
    plan, arm_params = await deps.arms.vector_plan(profile.vector_k, scope, threshold=floor)
    records = await deps.executor.read(
        await _statement(deps, _ACTIVATE[plan.strategy]),
        vectors=[vector_param(v) for v in vectors if v is not None],
        vector=vector_param(vector),
        keyword=[{"thought_id": tid, "score": score} for tid, score in keyword_hits.items()],
        vector_share=config.vector_share,
        seeds=profile.seeds if depth else 0,
        edge_depth=max(depth, 1),
        window=config.conversation_window,
        per_node=config.per_node,
        neighbour_weight=config.neighbour_weight,
        neighbour_decay=config.neighbour_decay,
        entity_weight=config.entity_weight,
        max_fanout=config.max_entity_fanout,
        window_seconds=config.temporal_window_seconds,
        temporal_weight=config.temporal_link_weight,
        **arm_params,
        **scope,
    )
    rows = records[0]["candidates"] if records else []
    candidates: dict[str, Candidate] = {}
    for fields_row, cosine, keyword_score, activated, _ in rows:
        fields = MemoryFields.from_row(fields_row)
        c = (
            Candidate(fields.thought_id)
            if activated
            else Candidate(fields.thought_id, reached_by="spread", hops=1)
        )
        c.fields = fields
        c.cosine = None if cosine is None else float(cosine)
        c.keyword = float(keyword_score or 0.0)
        candidates[c.thought_id] = c
    similarity = {tid: c.similarity(config, has_vector) for tid, c in candidates.items()}
    best = max(
        (similarity[tid] for tid, c in candidates.items() if c.reached_by == "activation"),
        default=0.0,
    )
    for fields_row, _, _, _, arrivals in rows:
        c = candidates[fields_row[0]]
        if c.reached_by == "activation":
            c.activation = similarity[c.thought_id] / best if best > 0 else 1.0
        for from_id, via, weight in arrivals:
            strength = similarity.get(from_id, 0.0) * float(weight)
            c.arrivals.append(Arrival(from_id, via, strength))
    return candidates, plan.strategy


def top_seeds(candidates: Mapping[str, Candidate], n: int) -> list[Candidate]:
    """The ``n`` most activated candidates (ties by id): where spreading and the causal walk
    start (the same order ``retrieval/_activate_and_spread`` chose its seeds in)."""
    activated = (c for c in candidates.values() if c.reached_by == "activation")
    return sorted(activated, key=lambda c: (-c.activation, c.thought_id))[:n]


def spread(candidates: Mapping[str, Candidate], config: RetrievalConfig, has_vector: bool) -> None:
    """Phase 4 over the gathered pool: each candidate's ``spread`` and ``session`` signals.

    - ``spread``: the best ``similarity(j) x link weight`` over its links: the arrivals from
      the seeds, and every other candidate ``j`` of the same conversation within
      ``conversation_window`` positions (weight ``neighbour_weight x neighbour_decay^(d-1)``
      at distance d; such a link is added to its arrivals as ``CONVERSATION from j``). The
      reply next to a matched question is the likeliest answer to it, whether or not the
      question was a seed.
    - ``session`` (messages only): the sum of the ``session_top`` highest direct similarities
      among its conversation's candidates, divided by ``session_top`` (a session several of
      whose messages match is likelier the one asked about); a memory only spreading reached
      gets it as an arrival ``SESSION from <conversation_id>``.
    """
    similarity = {tid: c.similarity(config, has_vector) for tid, c in candidates.items()}
    at: dict[tuple[str, int], str] = {}
    by_session: dict[str, list[float]] = {}
    for c in _messages(candidates.values()):
        assert c.fields is not None and c.fields.conversation_id is not None
        assert c.fields.position is not None
        at[(c.fields.conversation_id, c.fields.position)] = c.thought_id
        by_session.setdefault(c.fields.conversation_id, []).append(similarity[c.thought_id])
    session = {
        cid: sum(sorted(values, reverse=True)[: config.session_top]) / config.session_top
        for cid, values in by_session.items()
    }
    for c in candidates.values():
        fields = c.fields
        if (
            fields is not None
            and fields.conversation_id is not None
            and fields.position is not None
        ):
            c.arrivals.extend(_neighbour_links(c, fields, at, similarity, config))
            c.session = session[fields.conversation_id]
            if c.session > 0 and c.reached_by == "spread":
                c.arrivals.append(Arrival(fields.conversation_id, "SESSION", c.session))
        c.spread = min(
            1.0, max((a.activation for a in c.arrivals if a.via != "SESSION"), default=0.0)
        )


def _neighbour_links(
    c: Candidate,
    fields: MemoryFields,
    at: Mapping[tuple[str, int], str],
    similarity: Mapping[str, float],
    config: RetrievalConfig,
) -> list[Arrival]:
    """``CONVERSATION`` links into message ``c`` from the candidates within
    ``conversation_window`` positions of its conversation that did not already arrive as
    seeds."""
    assert fields.conversation_id is not None and fields.position is not None
    linked = {a.from_id for a in c.arrivals if a.via == "CONVERSATION"}
    links = []
    for distance in range(1, config.conversation_window + 1):
        weight = config.neighbour_weight * config.neighbour_decay ** (distance - 1)
        for position in (fields.position - distance, fields.position + distance):
            other = at.get((fields.conversation_id, position))
            if other is not None and other not in linked:
                links.append(Arrival(other, "CONVERSATION", similarity[other] * weight))
    return links


def _messages(candidates: Iterable[Candidate]) -> Iterable[Candidate]:
    return (
        c
        for c in candidates
        if c.fields is not None
        and c.fields.conversation_id is not None
        and c.fields.position is not None
    )


# ---------------------------------------------------------------------------- Phase 5: decay
def _epoch_s(when: datetime | None) -> float | None:
    return None if when is None else when.timestamp()


def in_range(when_s: float | None, start_s: float | None, end_s: float | None) -> bool:
    """Whether the instant ``when_s`` falls in the range from ``start_s`` (inclusive) to
    ``end_s`` (exclusive), all epoch seconds (an open bound: None)."""
    if when_s is None:
        return False
    return (start_s is None or when_s >= start_s) and (end_s is None or when_s < end_s)


def decay(
    candidates: Mapping[str, Candidate],
    *,
    axis: str | None,
    now: datetime | None,
    recency: RecencyReference | None,
    decay_rate: float,
    temporal: TemporalRange | None,
) -> None:
    """Phase 5: set each candidate's temporal relevance in [0, 1] and whether it lies in the
    query's time range.

    - ``"access"`` axis: ``1 / (1 + age_days * decay_rate)``, the age counted from the last
      access (an access resets the clock), else from when the memory happened (valid_from),
      else from its creation; P1 or pinned memories do not decay ("marked high-importance").
    - ``"cycle"`` / ``"transaction"`` axis: the search recency of :mod:`.fusion`.
    - With a time range in the query (Phase 1), relevance is 1 inside the range and the decay
      value times 0.5 outside (the range decides; Phase 7 also penalises what lies outside).
    """
    has_range = temporal is not None and bool(temporal.start or temporal.end)
    start_s, end_s = (
        (_epoch_s(temporal.start), _epoch_s(temporal.end)) if temporal else (None, None)
    )
    now_s = _epoch_s(now)
    for c in candidates.values():
        fields = c.fields
        assert fields is not None
        if axis == "access" and now_s is not None:
            if fields.pinned or fields.priority == Priority.P1.value:
                value = 1.0
            else:
                age_s = fields.age_seconds(now_s)
                value = decay_factor(0.0 if age_s is None else age_s / SECONDS_PER_DAY, decay_rate)
        elif axis in ("cycle", "transaction") and recency is not None:
            value = recency.score(fields.updated_cycle, fields.updated_at, fields.created_at)
        else:
            value = 0.0
        if has_range:
            c.in_range = in_range(fields.happened_s(), start_s, end_s)
            value = 1.0 if c.in_range else 0.5 * value
        c.temporal = value


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
    for row in rows:
        seed = candidates.get(row["seed_id"])
        if seed is None:
            continue
        score = seed.activation
        nodes = row["nodes"][1:]
        for hops, (link, node_row) in enumerate(zip(row["links"], nodes, strict=True), start=1):
            score *= float(link["confidence"]) * (config.causal_hop_factor if hops > 1 else 1.0)
            causal_link = CausalLink(hops=hops, direction=row["direction"], **link)
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


# ---------------------------------------------------------------------------- Phase 7: rank
def rank(
    candidates: Mapping[str, Candidate],
    weights: RankWeights,
    *,
    config: RetrievalConfig,
    has_vector: bool,
) -> list[Candidate]:
    """Phase 7: the composite score of each candidate (its signals kept for explain); a memory
    outside the query's named time range has its composite multiplied by
    ``config.outside_range_factor`` (a range narrows, it does not only nudge). Returned best
    composite first (ties by id)."""
    for c in candidates.values():
        fields = c.fields
        assert fields is not None
        c.signals = CandidateSignals(
            thought_id=c.thought_id,
            similarity=c.relevance(config, has_vector),
            temporal=c.temporal,
            causal=min(1.0, c.causal),
            importance=importance_score(fields.priority, fields.confidence),
            access_frequency=access_frequency_score(fields.access_count),
            activation=min(1.0, max(c.activation, c.spread)),
        )
        c.composite = composite_score(c.signals, weights)
        if c.in_range is False:
            c.composite *= config.outside_range_factor
    return sorted(candidates.values(), key=lambda c: (-c.composite, c.thought_id))


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


async def distinct(deps: CycleDeps, ranked: Sequence[Candidate], need: int) -> list[Candidate]:
    """Phase 8, near-duplicates and reflections: the ranking without its near-duplicates,
    reflections capped (:func:`cap_reflections`), exact in its first ``need`` entries.

    ``retrieval/distinct`` walks the head of the ranking in Cypher: a candidate whose cosine to
    a kept, higher-ranked one exceeds ``duplicate_threshold`` is dropped, and the walk stops at
    the first of ``b, 2b, 4b, …`` walked candidates (``b = max(2 * need, need +
    reflection_window)``; and the whole ranking) where the kept ones settle the first ``need``
    results under the reflection cap. One read, given the whole ranking's element ids: the walk
    reads a candidate's embedding only when it reaches it, so the ids past where it stops cost a
    lookup each (a read of the ``2b`` best, then more while the walk ended unsettled, made a
    second read for one ranking in five on the synthetic corpus). The same read gives the kept
    ones their display fields (the ranking read no text). A candidate is only
    dropped for a higher-ranked one, so the kept ones are a prefix of the whole ranking's kept;
    the candidates after the walk follow in rank order, unchecked (Phase 10 cuts them: pass
    ``need = top_k + 1``, Phase 9 reads one past the last result). The fixed stopping points
    keep the ranking's length, which Phase 9's confidence reads, independent of where the
    duplicates sit. No vector is shipped.

    Args:
        deps: the cycle's dependencies (executor, namespace, config).
        ranked: Phase 7's ranking, best first.
        need: how many leading results must be exact.

    Returns:
        The ranking without the walked part's near-duplicates (and without a memory deleted
        since it was read), reflections capped; the kept ones with their display fields.
    """
    config = deps.config
    first = max(2 * need, need + config.reflection_window)
    boundaries: list[int] = []  # first, 2 first, 4 first, ... below the ranking's length
    stop = first
    while stop < len(ranked):
        boundaries.append(stop)
        stop *= 2
    boundaries.append(len(ranked))
    walk = (
        await deps.executor.read(
            await _statement(deps, _DISTINCT),
            namespace=deps.namespace,
            element_ids=[c.fields.element_id for c in ranked],  # type: ignore[union-attr]
            thought_ids=[c.thought_id for c in ranked],
            duplicate_threshold=config.duplicate_threshold,
            need=need,
            reflection_cap=config.reflection_cap,
            reflection_window=config.reflection_window,
            boundaries=boundaries,
        )
    )[0]
    twins = {d["thought_id"]: d["twin"] for d in walk["dropped"]}
    walked = walk["scanned"]
    shown = _show(ranked[:walked], walk["described"])
    kept: list[Candidate] = []
    for c in ranked[:walked]:
        if c.thought_id in shown:
            kept.append(c)
        elif c.thought_id in twins:
            c.dropped_in, c.reason = "filter", f"near-duplicate of {twins[c.thought_id]}"
        else:
            c.dropped_in, c.reason = "filter", "deleted during retrieval"
    capped = cap_reflections(kept, config.reflection_cap, config.reflection_window)
    return capped + list(ranked[walked:])


async def describe(deps: CycleDeps, candidates: Iterable[Candidate]) -> None:
    """Give ``candidates`` that have none their display fields (one read,
    ``retrieval/describe``): explain's traces show every candidate's text, where retrieve reads
    only its results'. A candidate deleted since it was ranked keeps none."""
    bare = [c for c in candidates if c.fields is not None and c.fields.essence is None]
    if not bare:
        return
    rows = await deps.executor.read(
        _DESCRIBE,
        namespace=deps.namespace,
        element_ids=[c.fields.element_id for c in bare],  # type: ignore[union-attr]
        thought_ids=[c.thought_id for c in bare],
    )
    _show(bare, rows[0]["described"] if rows else [])


def _show(candidates: Iterable[Candidate], described: Iterable[Sequence[Any]]) -> set[str]:
    """Give each of ``candidates`` its ``retrieval/_display_fields`` row from ``described``
    (matched by thought id); returns the ids ``described`` holds (a candidate without a row
    was deleted since it was ranked, or was not read)."""
    display = {row[0]: row for row in described}
    for c in candidates:
        if c.thought_id in display:
            assert c.fields is not None
            c.fields = c.fields.with_display(display[c.thought_id])
    return set(display)


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
