"""Retirement of reflections whose source cluster left ACTIVE (a retired reflection stays
excluded even under ``include_archived=True``; ``restore_thought`` still brings it back).

The peer's rule (``retire_orphan_reflections``): an ACTIVE reflection none of whose
CONSOLIDATED_FROM targets is ACTIVE (or a dreaming-made one left with no such edge) becomes
ARCHIVED, unless it is pinned or at a protected priority. Ours also marks it ``retired`` (the
property ranked retrieval excludes unconditionally) and clears the mark when a member is ACTIVE
again (the reflection then stays ARCHIVED: ``include_archived`` or ``restore_thought`` brings it
back). An ACTIVE thought is never retired: ``update_thought`` / ``restore_thought`` clear it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import Priority

_RETIRE = cypher("dreaming/retire")
_UNRETIRE = cypher("dreaming/unretire")


async def sweep(
    executor: GraphExecutor,
    namespace: str,
    *,
    protected_priorities: Sequence[Priority],
    now: datetime,
) -> tuple[int, int]:
    """Retire orphaned reflections, then un-retire those with an ACTIVE member again.

    Returns:
        ``(retired, unretired)`` counts.
    """
    retired = await executor.write(
        _RETIRE,
        namespace=namespace,
        now=now,
        protected_priorities=[p.value for p in protected_priorities],
    )
    unretired = await executor.write(_UNRETIRE, namespace=namespace, now=now)
    return int(retired[0]["retired"]), int(unretired[0]["unretired"])
