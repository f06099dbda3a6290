"""Memory hygiene: the opt-in forgetting loop (the retrieval side of forgetting,
off by default; the peer's ``run_hygiene``).

The policy's rules (:class:`~engrava_graph.dreaming.config.HygienePolicy`) run in Cypher
(``cypher/hygiene/``): one statement selects and archives, oldest first, at most
``max_evictions_per_run`` thoughts, stamping ``archived_at`` / ``archived_at_cycle``;
``restore_thought`` reverses it. A dry run only selects. The reflection retirement sweep runs
after archiving (members archived here can leave a reflection's cluster inactive). Nothing is
deleted: the peer's second, physical-delete stage (``auto_gc_enabled``) is not implemented.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engrava_graph.dreaming import retirement
from engrava_graph.dreaming.config import HygienePolicy
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher

_SELECT = cypher("hygiene/select")
_ARCHIVE = cypher("hygiene/archive")


@dataclass(frozen=True)
class HygieneResult:
    """What one hygiene pass did (peer names where they overlap).

    Attributes:
        archived_count: thoughts archived (0 in a dry run).
        dry_run: nothing changed; ``would_evict`` lists the selection.
        archived_ids: the archived thought ids, oldest first.
        would_evict: in a dry run, ``(thought_id, reason)`` pairs.
        reasons: ``{"superseded": n, "cold": m}`` over the selection.
        orphans_retired: reflections the retirement sweep retired after archiving.
    """

    archived_count: int = 0
    dry_run: bool = False
    archived_ids: list[str] = field(default_factory=list)
    would_evict: list[tuple[str, str]] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)
    orphans_retired: int = 0


def rule_params(
    policy: HygienePolicy, namespace: str, current_cycle: int, now: datetime
) -> dict[str, Any]:
    """The ``hygiene/_selected`` parameters of ``policy`` at ``current_cycle`` and ``now``."""
    return {
        "namespace": namespace,
        "current_cycle": current_cycle,
        "min_age_cycles": policy.min_age_cycles,
        "now": now,
        "inactive_before": now - timedelta(seconds=policy.min_inactivity_age_seconds),
        "protected_priorities": [p.value for p in policy.protected_priorities],
        "archive_superseded": policy.archive_superseded,
        "max_access_count": policy.max_access_count,
        "min_confidence": policy.min_confidence,
        "limit": policy.max_evictions_per_run,
    }


async def run_hygiene(
    executor: GraphExecutor,
    namespace: str,
    policy: HygienePolicy,
    current_cycle: int,
    now: datetime,
) -> HygieneResult:
    """One pass of an enabled ``policy`` (the caller checks ``enabled`` and the cycle).

    Args:
        executor: the connection.
        namespace: the store's namespace.
        policy: the rules.
        current_cycle: cycles; the age rule reads it and archived thoughts are stamped with it.
        now: the wall-clock instant of the inactivity and superseded rules and the stamp.
    """
    params = rule_params(policy, namespace, current_cycle, now)
    if policy.dry_run:
        rows = await executor.read(_SELECT, **params)
        return HygieneResult(
            dry_run=True,
            would_evict=[(r["thought_id"], r["reason"]) for r in rows],
            reasons=_tally(rows),
        )
    rows = await executor.write(_ARCHIVE, **params)
    retired, _ = await retirement.sweep(
        executor, namespace, protected_priorities=policy.protected_priorities, now=now
    )
    return HygieneResult(
        archived_count=len(rows),
        archived_ids=[r["thought_id"] for r in rows],
        reasons=_tally(rows),
        orphans_retired=retired,
    )


def _tally(rows: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for row in rows:
        out[row["reason"]] = out.get(row["reason"], 0) + 1
    return out
