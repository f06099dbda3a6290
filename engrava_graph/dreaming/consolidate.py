"""One dreaming pass: consolidation of eligible thoughts into reflections, as a batch job on the
graph (DESIGN.md "Dreaming").

1. Schedule gate (``DreamingConfig.is_due``); open or resume the ``(:DreamRun)``.
2. Eligible thoughts page by page (Cypher gates), scored by the signals; score gate.
3. Fingerprint (:mod:`engrava_graph.dreaming.fingerprint`): when the settings, the pool and
   the namespace's reflections are as the last completed pass left them, steps 4-5 are skipped
   (they would write nothing).
4. Similarity graph (:mod:`engrava_graph.dreaming.neighbours`), clusters in Python.
5. Per batch of clusters, one transaction: new REFLECTIONs with centroid, CONSOLIDATED_FROM and
   ASSOCIATED edges, linked from the DreamRun; older reflections a grown cluster supersedes
   are retired (:mod:`engrava_graph.dreaming.writer`). The next batch is read and drafted
   while the database writes the current one.
6. Retirement sweep; the DreamRun is closed ``completed`` with its counts and fingerprint.

Safety: a reflection and its edges share one statement; a pass killed half-way leaves whole
clusters and a DreamRun ``running``, and the next pass (same cycle and parameters: the same run)
re-finds the clusters, skips the written ones and completes the rest; a pass with other
parameters marks the old run ``interrupted`` and finishes its clusters the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engrava_graph.dreaming import clusters as clustering
from engrava_graph.dreaming import retirement
from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.dreaming.fingerprint import pass_fingerprint
from engrava_graph.dreaming.gates import eligibility_params, passing_score_gate
from engrava_graph.dreaming.hygiene import HygieneResult
from engrava_graph.dreaming.neighbours import Neighbourhood, Progress, similarity_graph
from engrava_graph.dreaming.signals import (
    Candidate,
    active_signals,
    effective_weights,
    score,
)
from engrava_graph.dreaming.writer import (
    PendingCluster,
    PreparedBatch,
    WriteContext,
    prepare_batch,
    write_prepared,
)
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import Priority
from engrava_graph.model.namespace import fulltext_namespace_token

_CANDIDATES = cypher("dreaming/candidates")
_RUN_OPEN = cypher("dreaming/run_open")
_RUN_CLOSE = cypher("dreaming/run_close")
_RUNS = cypher("dreaming/runs")
_LAST_COMPLETED = cypher("dreaming/last_completed")
_CANDIDATE_PAGE = 10_000


@dataclass(frozen=True)
class DreamContext:
    """What a pass needs from its store (built by ``Neo4jEngravaCore.consolidate``).

    Attributes:
        executor: the connection.
        namespace: the store's namespace.
        clock: "now" for stamps and expiry (aware UTC).
        extract_entities: text -> entity names for a reflection's MENTIONS links.
        access_tracking_enabled: whether the frequency signal can be active.
        protected_priorities: reflections at these priorities are never retired.
        dimensions: the length of a usable embedding (the store's vector dimensions); a thought
            whose stored embedding has another (edited by hand) is left out of the pass, as one
            without an embedding.
    """

    executor: GraphExecutor
    namespace: str
    clock: Callable[[], datetime]
    extract_entities: Callable[[str], list[str]]
    access_tracking_enabled: bool
    protected_priorities: tuple[Priority, ...]
    dimensions: int


@dataclass(frozen=True)
class DreamResult:
    """What one ``consolidate`` call did (the peer's ``ConsolidationResult`` names where they
    overlap).

    Attributes:
        run_id: the DreamRun (same namespace, cycle and parameters = same run).
        current_cycle: the cycle the pass ran at.
        due: False when the schedule gate skipped the pass (nothing else ran).
        candidates_evaluated: eligible thoughts that passed the score gate.
        clusters_found: clusters within the size bounds.
        clusters_rejected: communities above ``max_cluster_size``.
        reflections_created: new reflections.
        reflections_existing: clusters whose reflection was already written (re-run, resume).
        clusters_covered: clusters whose members were all consolidated by ACTIVE reflections
            already (no new reflection; see :mod:`engrava_graph.dreaming.writer`).
        edges_created: CONSOLIDATED_FROM plus ASSOCIATED edges created.
        reflections_superseded: older reflections a grown cluster's new reflection superseded
            (see :mod:`engrava_graph.dreaming.writer`).
        orphans_retired: reflections retired by the sweep; reflections_unretired: un-marked.
        strategy: how neighbours were found: ``"exact"``, ``"stream"``, ``"ivf"`` or
            ``"index"`` (``""`` when not searched).
        unchanged_since: the completed run whose fingerprint this pass matched (nothing was
            searched or written; ``clusters_found``, ``clusters_covered`` and
            ``clusters_rejected`` are that run's, ``reflections_existing`` its clusters that have
            a reflection), else None.
        resumed: the run existed and had not completed (a killed or failed pass finished now).
        interrupted_runs: other runs left ``running`` that this pass marked interrupted.
        active_signal_weights: effective signal weights; flat_signals: inactive signals.
        seconds: wall time of the pass.
        phase_seconds: wall time per phase (``candidates``, ``neighbours``, ``clustering``,
            ``writing``, ``retirement``).
        hygiene: the hygiene pass ``consolidate`` ran at its end, if any.
    """

    run_id: str
    current_cycle: int
    due: bool = True
    candidates_evaluated: int = 0
    clusters_found: int = 0
    clusters_rejected: int = 0
    reflections_created: int = 0
    reflections_existing: int = 0
    clusters_covered: int = 0
    reflections_superseded: int = 0
    edges_created: int = 0
    orphans_retired: int = 0
    reflections_unretired: int = 0
    strategy: str = ""
    unchanged_since: str | None = None
    resumed: bool = False
    interrupted_runs: list[str] = field(default_factory=list)
    active_signal_weights: dict[str, float] = field(default_factory=dict)
    flat_signals: list[str] = field(default_factory=list)
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    hygiene: HygieneResult | None = None


def run_identity(namespace: str, current_cycle: int, config: DreamingConfig) -> tuple[str, str]:
    """``(run_id, parameters_json)``: a pass's DreamRun id is a UUID5 of the namespace, the cycle
    and the config, so the same pass resumes the same run."""
    parameters = config.model_dump_json()
    digest = hashlib.sha256(f"{namespace}/{current_cycle}/{parameters}".encode()).hexdigest()
    return clustering.dreaming_id("run", digest), parameters


def _settings(config: DreamingConfig) -> dict[str, Any]:
    gates = config.gates
    return {
        "similarity_threshold": config.similarity_threshold,
        "neighbours_k": config.neighbours_k,
        "min_cluster_size": gates.min_cluster_size,
        "max_cluster_size": gates.max_cluster_size,
        "min_age_cycles": gates.min_age_cycles,
        "thought_types": [t.value for t in gates.thought_types],
    }


async def _candidates(
    executor: GraphExecutor, eligible: dict[str, Any], dimensions: int
) -> list[Candidate]:
    out: list[Candidate] = []
    after: str | None = None
    while True:
        page = await executor.read(
            _CANDIDATES, after_id=after, limit=_CANDIDATE_PAGE, dimensions=dimensions, **eligible
        )
        rows = page[0]["candidates"]
        out.extend(
            Candidate(tid, confidence, int(confirmations), int(accesses), int(updated), version)
            for tid, confidence, confirmations, accesses, updated, version in rows
        )
        if len(rows) < _CANDIDATE_PAGE:
            return out
        after = rows[-1][0]


def _pending(
    namespace: str,
    ids: Sequence[str],
    found: clustering.Clustering,
    edges: clustering.ClusterEdges,
    start: int,
    stop: int,
) -> list[PendingCluster]:
    """Clusters ``start:stop`` as :class:`PendingCluster` (built per batch: flat memory)."""
    pending = []
    for index in range(start, min(stop, len(found.clusters))):
        member_ids = [ids[i] for i in found.clusters[index]]
        key = clustering.cluster_key(member_ids)
        pending.append(
            PendingCluster(
                key=key,
                reflection_id=clustering.reflection_id(namespace, key),
                member_ids=member_ids,
                pairs=[(ids[a], ids[b], w) for a, b, w in edges.of(index)],
            )
        )
    return pending


async def run_pass(
    ctx: DreamContext, current_cycle: int, config: DreamingConfig, progress: Progress | None = None
) -> DreamResult:
    """Run one pass at ``current_cycle`` (see the module docstring).

    Args:
        ctx: the store's side.
        current_cycle: cycles; the age gate and recency signal read it.
        config: the pass's settings.
        progress: called as ``(phase, done, total)`` with phase ``"neighbours"`` (thoughts) and
            ``"clusters"`` (clusters written or found).

    Returns:
        The :class:`DreamResult`; ``due=False`` when the schedule skips this cycle.
    """
    began = time.perf_counter()
    run_id, parameters = run_identity(ctx.namespace, current_cycle, config)
    if not config.is_due(current_cycle):
        return DreamResult(run_id=run_id, current_cycle=current_cycle, due=False)
    now = ctx.clock()
    last = await ctx.executor.read(_LAST_COMPLETED, namespace=ctx.namespace)
    opened = (
        await ctx.executor.write(
            _RUN_OPEN,
            namespace=ctx.namespace,
            run_id=run_id,
            current_cycle=current_cycle,
            parameters=parameters,
            settings=_settings(config),
            now=now,
        )
    )[0]
    counts = {"reflections_created": 0, "edges_created": 0}
    try:
        result, fingerprint = await _consolidate(
            ctx,
            _Pass(run_id, current_cycle, config, parameters, now, last[0] if last else None),
            counts,
            progress,
        )
    except Exception:
        await _close(ctx, run_id, "failed", {"seconds": time.perf_counter() - began}, counts)
        raise
    seconds = time.perf_counter() - began
    await _close(
        ctx,
        run_id,
        "completed",
        {
            "candidates": result.candidates_evaluated,
            "clusters": result.clusters_found,
            "clusters_rejected": result.clusters_rejected,
            "reflections_existing": result.reflections_existing,
            "clusters_covered": result.clusters_covered,
            "reflections_superseded": result.reflections_superseded,
            "orphans_retired": result.orphans_retired,
            "strategy": result.strategy,
            "unchanged_since": result.unchanged_since,
            "fingerprint": fingerprint,
            "seconds": seconds,
        },
        counts,
    )
    return dataclasses.replace(
        result,
        seconds=seconds,
        resumed=opened["previous"] in ("running", "failed"),
        interrupted_runs=list(opened["interrupted"]),
    )


async def _close(
    ctx: DreamContext, run_id: str, status: str, run_counts: dict[str, Any], totals: dict[str, int]
) -> None:
    await ctx.executor.write(
        _RUN_CLOSE,
        namespace=ctx.namespace,
        run_id=run_id,
        status=status,
        counts=run_counts,
        now=ctx.clock(),
        **totals,
    )


@dataclass(frozen=True)
class _Pass:
    """One pass's identity and inputs."""

    run_id: str
    current_cycle: int
    config: DreamingConfig
    parameters: str
    now: datetime
    last_completed: dict[str, Any] | None


async def _consolidate(
    ctx: DreamContext, this: _Pass, counts: dict[str, int], progress: Progress | None
) -> tuple[DreamResult, str]:
    """Steps 2-6 of the module docstring; returns the result and the fingerprint to record."""
    config = this.config
    phases: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal mark
        phases[phase] = time.perf_counter() - mark
        mark = time.perf_counter()

    eligible = {
        "namespace": ctx.namespace,
        **eligibility_params(config.gates, this.current_cycle, this.now),
    }
    candidates = await _candidates(ctx.executor, eligible, ctx.dimensions)
    active = active_signals(candidates, access_tracking_enabled=ctx.access_tracking_enabled)
    weights = effective_weights(config.signals, active)
    scores = {c.thought_id: score(c, weights, config, this.current_cycle) for c in candidates}
    passing = passing_score_gate(candidates, scores, config.gates)
    del candidates
    pool = [c.thought_id for c in passing]
    lap("candidates")
    before = await pass_fingerprint(ctx.executor, ctx.namespace, this.parameters, passing)
    last = this.last_completed
    unchanged = last is not None and last["fingerprint"] == before
    lap("fingerprint")
    result = DreamResult(
        run_id=this.run_id,
        current_cycle=this.current_cycle,
        candidates_evaluated=len(pool),
        active_signal_weights=weights,
        flat_signals=sorted(set(config.signals) - active),
    )
    if unchanged and last is not None:
        clusters, covered = int(last["clusters"] or 0), int(last["clusters_covered"] or 0)
        result = dataclasses.replace(
            result,
            unchanged_since=last["run_id"],
            clusters_found=clusters,
            clusters_covered=covered,
            reflections_existing=clusters - covered,
            clusters_rejected=int(last["clusters_rejected"] or 0),
        )
    else:
        result = await _search_and_write(
            ctx, this, pool, scores, eligible, counts, progress, result, lap
        )
    retired, unretired = await retirement.sweep(
        ctx.executor, ctx.namespace, protected_priorities=ctx.protected_priorities, now=this.now
    )
    after = (
        before
        if unchanged and not (retired or unretired)
        else await pass_fingerprint(ctx.executor, ctx.namespace, this.parameters, passing)
    )
    lap("retirement")
    return dataclasses.replace(
        result, orphans_retired=retired, reflections_unretired=unretired, phase_seconds=phases
    ), after


async def _search_and_write(
    ctx: DreamContext,
    this: _Pass,
    pool: list[str],
    scores: dict[str, float],
    eligible: dict[str, Any],
    counts: dict[str, int],
    progress: Progress | None,
    result: DreamResult,
    lap: Callable[[str], None],
) -> DreamResult:
    """Neighbours, clusters and the writing of new reflections (steps 4-5)."""
    config = this.config
    near: Neighbourhood = await similarity_graph(ctx.executor, pool, config, eligible, progress)
    lap("neighbours")
    found = clustering.cluster(
        near.graph,
        min_size=config.gates.min_cluster_size,
        max_size=config.gates.max_cluster_size,
        seed=config.seed,
    )
    edges = clustering.ClusterEdges(near.graph, found.clusters)
    lap("clustering")
    stored_vector = None
    if near.vectors is not None:
        vectors, position = near.vectors, {tid: i for i, tid in enumerate(pool)}

        def stored_vector(thought_id: str) -> Any:
            return vectors.stored(position[thought_id])

    writer = WriteContext(
        executor=ctx.executor,
        namespace=ctx.namespace,
        ns_token=fulltext_namespace_token(ctx.namespace),
        run_id=this.run_id,
        current_cycle=this.current_cycle,
        config=config,
        now=this.now,
        extract_entities=ctx.extract_entities,
        protected_priorities=tuple(p.value for p in ctx.protected_priorities),
        stored_vector=stored_vector,
    )
    created = existing = covered = superseded = 0
    total = len(found.clusters)
    step = config.write_batch_clusters

    def prepare(start: int) -> asyncio.Task[PreparedBatch]:
        batch = _pending(ctx.namespace, pool, found, edges, start, start + step)
        return asyncio.create_task(prepare_batch(writer, batch, scores))

    start = 0
    upcoming = prepare(start) if total else None
    try:
        while upcoming is not None:
            prepared = await upcoming
            # the next batch is read and drafted while this one is written
            upcoming = prepare(start + step) if start + step < total else None
            outcome = await write_prepared(writer, prepared)
            created += outcome.created
            existing += outcome.existing
            covered += outcome.covered
            superseded += outcome.superseded
            counts["reflections_created"] += outcome.created
            counts["edges_created"] += outcome.consolidated_edges + outcome.associated_edges
            start += step
            if progress is not None:
                progress("clusters", min(start, total), total)
    finally:
        if upcoming is not None:  # a write failed: drop the batch prepared meanwhile
            upcoming.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await upcoming
    lap("writing")
    return dataclasses.replace(
        result,
        clusters_found=total,
        clusters_rejected=found.rejected_oversize,
        reflections_created=created,
        reflections_existing=existing,
        clusters_covered=covered,
        reflections_superseded=superseded,
        edges_created=counts["edges_created"],
        strategy=near.strategy,
    )


async def dream_runs(
    executor: GraphExecutor, namespace: str, limit: int = 20
) -> list[dict[str, Any]]:
    """The namespace's DreamRuns, newest first: every property (``status``, ``current_cycle``,
    ``parameters`` JSON, counts) plus ``produced`` (reflections it links)."""
    rows = await executor.read(_RUNS, namespace=namespace, limit=limit)
    return [{**row["run"], "produced": int(row["produced"])} for row in rows]
