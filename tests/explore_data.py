"""A small incident memory for the exploration tests: every thought type, a causal chain, tags,
and observations similar enough for a dreaming pass to consolidate."""

from __future__ import annotations

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.dreaming.config import DreamingConfig, DreamingGates
from engrava_graph.model import (
    EdgeRecord,
    EdgeType,
    KnowledgeSource,
    LifecycleStatus,
    Priority,
    ThoughtRecord,
    ThoughtType,
)

QUERY = "Why did the Friday deploy fail?"
NOW = "2025-06-13T18:00:00Z"
DREAM_CYCLE = 5


def _t(
    thought_id: str, thought_type: ThoughtType, essence: str, content: str, **fields: object
) -> ThoughtRecord:
    return ThoughtRecord(
        thought_id=thought_id,
        thought_type=thought_type,
        essence=essence,
        content=content,
        source="ops",
        **fields,
    )  # type: ignore[arg-type]


THOUGHTS = [
    _t(
        "deploy",
        ThoughtType.OBSERVATION,
        "The Friday deploy of billing failed",
        "The Friday deploy of the billing service failed at 17:40.",
        priority=Priority.P1,
        tags=["billing"],
    ),
    _t(
        "deploy-again",
        ThoughtType.OBSERVATION,
        "The Monday deploy of billing failed",
        "The Monday deploy of the billing service failed as well.",
        tags=["billing"],
    ),
    _t(
        "deploy-third",
        ThoughtType.OBSERVATION,
        "The billing deploy failed once more",
        "Another billing service deploy failed during the release window.",
        tags=["billing"],
    ),
    _t(
        "timeout",
        ThoughtType.OBSERVATION,
        "Health checks timed out during the deploy",
        "Kubernetes health checks on the billing pods timed out for four minutes.",
        tags=["billing"],
    ),
    _t(
        "migration",
        ThoughtType.OBSERVATION,
        "A database migration locked the invoices table",
        "The migration added an index without CONCURRENTLY and locked invoices.",
        priority=Priority.P2,
    ),
    _t(
        "rollback",
        ThoughtType.TASK,
        "Roll back the billing release",
        "Roll back billing to v2.3 and rerun the migration with CONCURRENTLY.",
        priority=Priority.P1,
    ),
    _t(
        "belief",
        ThoughtType.BELIEF,
        "Migrations must run before the deploy window",
        "Schema migrations should run before the deploy window, never during it.",
    ),
    _t(
        "note",
        ThoughtType.NOTE,
        "Ann owns the billing service",
        "Ann is the owner of the billing service.",
        priority=Priority.P4,
    ),
    _t(
        "draft",
        ThoughtType.OUTPUT_DRAFT,
        "Postmortem draft for the Friday deploy",
        "Draft: the billing deploy failed because a migration locked invoices.",
    ),
    _t(
        "old-alert",
        ThoughtType.OBSERVATION,
        "An old alert about deploy latency",
        "Deploy latency alerts fired last quarter.",
        lifecycle_status=LifecycleStatus.ARCHIVED,
    ),
    _t(
        "old-reflection",
        ThoughtType.REFLECTION,
        "Deploy alerts were noisy last quarter",
        "Reflection over last quarter's deploy alerts.",
        source_type=KnowledgeSource.DREAMING,
    ),
]

EDGES = [
    EdgeRecord(
        edge_id="e-cause-1",
        from_thought_id="deploy",
        to_thought_id="timeout",
        edge_type=EdgeType.CAUSED_BY,
        weight=0.9,
        confidence=0.9,
    ),
    EdgeRecord(
        edge_id="e-cause-2",
        from_thought_id="timeout",
        to_thought_id="migration",
        edge_type=EdgeType.CAUSED_BY,
        weight=0.8,
        confidence=0.8,
    ),
    EdgeRecord(
        edge_id="e-effect",
        from_thought_id="deploy",
        to_thought_id="rollback",
        edge_type=EdgeType.LEADS_TO,
        weight=0.7,
        confidence=0.7,
    ),
    EdgeRecord(
        edge_id="e-derived",
        from_thought_id="belief",
        to_thought_id="migration",
        edge_type=EdgeType.DERIVED_FROM,
        weight=0.6,
    ),
    EdgeRecord(
        edge_id="e-depends",
        from_thought_id="draft",
        to_thought_id="deploy",
        edge_type=EdgeType.DEPENDS_ON,
        weight=0.5,
    ),
    EdgeRecord(
        edge_id="e-assoc",
        from_thought_id="note",
        to_thought_id="deploy",
        edge_type=EdgeType.ASSOCIATED,
        weight=0.4,
    ),
    EdgeRecord(
        edge_id="e-old",
        from_thought_id="old-reflection",
        to_thought_id="old-alert",
        edge_type=EdgeType.CONSOLIDATED_FROM,
        weight=1.0,
    ),
]

DREAMING = DreamingConfig(similarity_threshold=0.6, gates=DreamingGates(min_cluster_size=3))
"""Clusters the three failed-deploy observations (MiniLM cosine is above 0.6 among them)."""


async def load_incident(store: Neo4jEngravaCore, *, dream: bool = False) -> None:
    """Write the incident memory into ``store``; with ``dream`` run one dreaming pass at cycle
    :data:`DREAM_CYCLE`, which consolidates the failed deploys and retires ``old-reflection``
    (its only member is archived)."""
    await store.bulk_store(THOUGHTS)
    await store.bulk_create_edges(EDGES)
    if dream:
        await store.consolidate(DREAM_CYCLE, config=DREAMING)
