"""Writing reflections: one transaction per batch of clusters, each reflection created in the
same statement as all its edges (``cypher/dreaming/write_clusters.cypher``). A batch is first
prepared (:func:`prepare_batch`: reads and drafts, no transaction), then written
(:func:`write_prepared`), so a pass can prepare the next batch while one is being written.

Idempotence: a reflection's id is derived from its cluster key (sorted member ids), so a cluster
that already has its reflection is skipped, before any work and again inside the transaction
after the namespace's dreaming lock is taken (concurrent passes never write a cluster twice).
Edge ids are derived from (type, from, to) as well. A cluster whose members are all already
consolidated by ACTIVE reflections is skipped too ("covered"): the approximate vector index can
return slightly different neighbours from one pass to the next (its graph changes as thoughts
are added), and regrouping memories that are already consolidated would only add overlapping
reflections.

Supersession: when a cluster grew around an older ACTIVE dreaming reflection (every ACTIVE member
of the old one is a member of the new cluster), the new reflection supersedes it in the same
transaction: the old one becomes ARCHIVED and ``retired`` (out of ranked retrieval, even with
``include_archived``), linked by ``(new)-[:DERIVED_FROM {source: DREAMING}]->(old)``; the
retirement sweep keeps it retired while the new one is ACTIVE.
Pinned reflections and protected priorities are never superseded. Once archived, an old
reflection is not matched again, so re-runs change nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from engrava_graph.dreaming import summary
from engrava_graph.dreaming.clusters import dreaming_id
from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.graph.executor import GraphExecutor, run_in
from engrava_graph.graph.mapping import record_properties, thought_properties
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import EdgeType, KnowledgeSource, LifecycleStatus, ThoughtType
from engrava_graph.model.records import EdgeRecord, ThoughtRecord

_EXISTING = cypher("thoughts/existing_ids")
_COVERED = cypher("dreaming/covered")
_MEMBERS = cypher("dreaming/members")
_LOCK = cypher("dreaming/lock_namespace")
_WRITE = cypher("dreaming/write_clusters")
_SUPERSEDED = cypher("dreaming/superseded")


@dataclass(frozen=True)
class PendingCluster:
    """A cluster of the pass: its key, reflection id, sorted member ids and the similarity
    pairs inside it (``(a, b, cosine)``)."""

    key: str
    reflection_id: str
    member_ids: list[str]
    pairs: list[tuple[str, str, float]]


@dataclass(frozen=True)
class WriteContext:
    """What every batch of one pass shares (``stored_vector``: a pool thought's stored embedding
    when the pass holds the vectors already; else the writer reads them with the members)."""

    executor: GraphExecutor
    namespace: str
    ns_token: str
    run_id: str
    current_cycle: int
    config: DreamingConfig
    now: datetime
    extract_entities: Callable[[str], list[str]]
    protected_priorities: tuple[str, ...] = ()
    stored_vector: Callable[[str], np.ndarray] | None = None


@dataclass(frozen=True)
class BatchOutcome:
    """Counts of one batch: reflections created / found already written, clusters whose members
    were all consolidated already, edges created, older reflections superseded."""

    created: int
    existing: int
    covered: int
    consolidated_edges: int
    associated_edges: int
    superseded: int = 0


def edge_id(edge_type: EdgeType, from_id: str, to_id: str) -> str:
    """The deterministic id of a dreaming edge (UUID5 of type, endpoints)."""
    return dreaming_id("edge", edge_type.value, from_id, to_id)


def _edge_template(ctx: WriteContext, edge_type: EdgeType) -> dict[str, Any]:
    record = EdgeRecord(
        from_thought_id="from",
        to_thought_id="to",
        edge_type=edge_type,
        created_cycle=ctx.current_cycle,
        source=KnowledgeSource.DREAMING,
        created_at=ctx.now,
    )
    props = record_properties(record)
    for key in ("edge_id", "from_thought_id", "to_thought_id"):
        props.pop(key)
    return props


def _reflection_row(
    ctx: WriteContext, cluster: PendingCluster, members: Sequence[summary.Member]
) -> dict[str, Any] | None:
    """The ``dreaming/write_clusters`` row of the cluster's reflection, or None when its
    members give it nothing to say (:func:`summary.draft`: no member's essence shows
    anything)."""
    draft = summary.draft(members, ctx.config)
    if draft is None:
        return None
    record = ThoughtRecord(
        thought_id=cluster.reflection_id,
        thought_type=ThoughtType.REFLECTION,
        essence=draft.essence,
        content=draft.content,
        priority=ctx.config.reflection_default_priority,
        lifecycle_status=LifecycleStatus.ACTIVE,
        created_cycle=ctx.current_cycle,
        updated_cycle=ctx.current_cycle,
        source=f"dreaming:{cluster.key}",
        source_type=KnowledgeSource.DREAMING,
        confidence=draft.confidence,
        consolidated_from=cluster.member_ids,
        created_at=ctx.now,
        updated_at=ctx.now,
        valid_from=draft.valid_from,
        valid_until=draft.valid_until,
        metadata={
            "dreaming": {
                "cluster_key": cluster.key,
                "run_id": ctx.run_id,
                "member_count": len(members),
                "key_phrases": "; ".join(draft.key_phrases),
                "representative_id": draft.representative_id,
                "excerpt_ids": ",".join(draft.excerpt_ids),
                "score": round(float(np.mean([m.score for m in members])), 6),
            }
        },
    )
    props = {k: v for k, v in thought_properties(record).items() if v is not None}
    props["revision"] = 0
    return {
        "props": props,
        "embedding": draft.centroid,
        "entities": ctx.extract_entities(f"{record.essence}\n{record.content}"),
        "members": [
            {"id": m, "edge_id": edge_id(EdgeType.CONSOLIDATED_FROM, cluster.reflection_id, m)}
            for m in cluster.member_ids
        ],
        "pairs": [
            {"a": a, "b": b, "weight": round(w, 6), "edge_id": edge_id(EdgeType.ASSOCIATED, a, b)}
            for a, b, w in cluster.pairs
        ],
    }


async def _members(
    ctx: WriteContext, clusters: Sequence[PendingCluster], scores: Mapping[str, float]
) -> dict[str, summary.Member]:
    ids = [m for c in clusters for m in c.member_ids]
    lookup = ctx.stored_vector
    rows = (
        await ctx.executor.read(
            _MEMBERS, namespace=ctx.namespace, thought_ids=ids, with_embedding=lookup is None
        )
    )[0]["members"]
    return {
        r["thought_id"]: summary.Member(
            thought_id=r["thought_id"],
            essence=r["essence"],
            content=r["content"],
            embedding=(
                np.asarray(r["embedding"], dtype=np.float64)
                if lookup is None
                else lookup(r["thought_id"])
            ),
            created_cycle=int(r["created_cycle"]),
            confidence=r["confidence"],
            valid_from=r["valid_from"].to_native() if r["valid_from"] is not None else None,
            valid_until=r["valid_until"].to_native() if r["valid_until"] is not None else None,
            score=scores.get(r["thought_id"], 0.0),
        )
        for r in rows
    }


async def _existing(
    executor: GraphExecutor, namespace: str, ids: list[str], tx: Any = None
) -> set[str]:
    if tx is None:
        rows = await executor.read(_EXISTING, namespace=namespace, thought_ids=ids)
    else:
        rows = await run_in(tx, _EXISTING, namespace=namespace, thought_ids=ids)
    return {r["thought_id"] for r in rows}


async def _attach_superseded(ctx: WriteContext, tx: Any, rows: Sequence[dict[str, Any]]) -> None:
    """Set each row's ``supersedes`` (``[{id, edge_id}]``): the older reflections its cluster
    grew around (read inside ``tx``, under the lock)."""
    found = await run_in(
        tx,
        _SUPERSEDED,
        namespace=ctx.namespace,
        protected_priorities=list(ctx.protected_priorities),
        clusters=[
            {
                "reflection_id": row["props"]["thought_id"],
                "member_ids": [m["id"] for m in row["members"]],
            }
            for row in rows
        ],
    )
    by_new: dict[str, list[dict[str, str]]] = {}
    for r in found:
        by_new.setdefault(r["reflection_id"], []).append(
            {
                "id": r["superseded_id"],
                "edge_id": edge_id(EdgeType.DERIVED_FROM, r["reflection_id"], r["superseded_id"]),
            }
        )
    for row in rows:
        row["supersedes"] = by_new.get(row["props"]["thought_id"], [])


@dataclass(frozen=True)
class PreparedBatch:
    """A batch read and drafted, ready for its transaction (:func:`prepare_batch`).

    Attributes:
        rows: the ``dreaming/write_clusters`` row of each reflection to write, by reflection id.
        existing: clusters whose reflection was already written.
        covered: clusters whose members were all consolidated already.
    """

    rows: dict[str, dict[str, Any]]
    existing: int
    covered: int


async def prepare_batch(
    ctx: WriteContext, batch: Sequence[PendingCluster], scores: Mapping[str, float]
) -> PreparedBatch:
    """Read what ``batch`` needs and draft its reflections, outside any transaction.

    Skipped: a cluster whose reflection exists, a covered one (see the module docstring), one
    with fewer than two members left (deleted since clustering) and one in which no member's
    essence shows anything (only whitespace and invisible characters, stored before writes
    refused such text or set by hand): no reflection is blank. The clusters of one pass
    are disjoint, so a batch prepared while the previous one is being written reads the same
    as it would after that write; :func:`write_prepared` re-checks existence under the lock.
    """
    existing = await _existing(ctx.executor, ctx.namespace, [c.reflection_id for c in batch])
    fresh_clusters = [c for c in batch if c.reflection_id not in existing]
    covered_rows = (
        await ctx.executor.read(
            _COVERED,
            namespace=ctx.namespace,
            thought_ids=[m for c in fresh_clusters for m in c.member_ids],
        )
        if fresh_clusters
        else []
    )
    covered = {r["thought_id"] for r in covered_rows}
    todo = [c for c in fresh_clusters if not covered.issuperset(c.member_ids)]
    members = await _members(ctx, todo, scores) if todo else {}
    rows = {}
    for c in todo:
        present = [members[m] for m in c.member_ids if m in members]
        row = _reflection_row(ctx, c, present) if len(present) >= 2 else None
        if row is not None:
            rows[c.reflection_id] = row
    return PreparedBatch(rows, len(existing), len(fresh_clusters) - len(todo))


async def write_prepared(ctx: WriteContext, prepared: PreparedBatch) -> BatchOutcome:
    """Write the reflections of a prepared batch that do not exist yet, in one transaction
    (under the namespace's dreaming lock; older reflections they supersede retired with them).

    Returns:
        What was created and what already existed.
    """
    rows = prepared.rows
    templates = {
        "consolidated_props": _edge_template(ctx, EdgeType.CONSOLIDATED_FROM),
        "associated_props": _edge_template(ctx, EdgeType.ASSOCIATED),
        "derived_props": _edge_template(ctx, EdgeType.DERIVED_FROM),
    }

    async def work(tx: Any) -> tuple[int, dict[str, Any]]:
        await run_in(tx, _LOCK, namespace=ctx.namespace)
        raced = await _existing(ctx.executor, ctx.namespace, list(rows), tx)
        fresh = [row for rid, row in rows.items() if rid not in raced]
        if not fresh:
            return len(raced), {}
        await _attach_superseded(ctx, tx, fresh)
        out = await run_in(
            tx,
            _WRITE,
            namespace=ctx.namespace,
            ns_token=ctx.ns_token,
            run_id=ctx.run_id,
            now=ctx.now,
            clusters=fresh,
            **templates,
        )
        return len(raced), out[0]

    raced, counts = await ctx.executor.transaction(work) if rows else (0, {})
    return BatchOutcome(
        created=int(counts.get("reflections") or 0),
        existing=prepared.existing + raced,
        covered=prepared.covered,
        consolidated_edges=int(counts.get("consolidated") or 0),
        associated_edges=int(counts.get("associated") or 0),
        superseded=int(counts.get("superseded") or 0),
    )
