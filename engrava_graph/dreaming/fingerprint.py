"""The fingerprint of what a dreaming pass's outcome depends on, so a pass over unchanged data can
skip the neighbour search, clustering and writing.

A pass's clusters are a deterministic function of its settings and its pool (the eligible
thoughts after the score gate, with their vectors), and what it writes depends on those clusters
and on the namespace's reflections (which exist, which are ACTIVE and consolidate what). The
fingerprint is a SHA-256 over the settings (the config as JSON, without the cycle), each pool
thought's id and version (revision, ``updated_at``, content hash) and each reflection's id,
lifecycle, retired mark, revision and CONSOLIDATED_FROM count (``dreaming/reflection_state``).
A completed pass records it on its DreamRun, computed after its own writes and retirement sweep;
the next pass whose fingerprint is equal would write nothing, so it skips to the retirement
sweep. Any write to a pool thought or a reflection, a thought entering or leaving the pool (age,
lifecycle, deletion, type) or other settings make the fingerprints differ: the full pass runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from engrava_graph.dreaming.signals import Candidate
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher

_REFLECTIONS = cypher("dreaming/reflection_state")


async def pass_fingerprint(
    executor: GraphExecutor, namespace: str, parameters: str, pool: Sequence[Candidate]
) -> str:
    """The fingerprint (64 hex digits) of a pass with settings ``parameters`` (config JSON) over
    ``pool`` (sorted by id), reading the namespace's reflections now."""
    digest = hashlib.sha256(parameters.encode())
    for c in pool:
        digest.update(f"\n{c.thought_id}|{c.version}".encode())
    digest.update(b"\n--reflections--")
    rows: list[dict[str, Any]] = await executor.read(_REFLECTIONS, namespace=namespace)
    for r in rows:
        digest.update(
            f"\n{r['thought_id']}|{r['lifecycle_status']}|{r['retired']}|"
            f"{r['revision']}|{r['members']}".encode()
        )
    return digest.hexdigest()
