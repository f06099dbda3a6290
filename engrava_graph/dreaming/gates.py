"""Eligibility gates of a dreaming pass (DESIGN.md "Dreaming").

A thought enters a pass when it is of an allowed type (OBSERVATION by default), ACTIVE, not
expired, embedded, at least ``min_age_cycles`` old (``current_cycle - created_cycle``), and
confirmed enough unless ``allow_zero_confirmation``; those gates run inside Cypher
(``cypher/dreaming/_eligible.cypher``) with the parameters built here. The score gate
(``min_score``) runs here, on the signals. The schedule gate is
:meth:`~engrava_graph.dreaming.config.DreamingConfig.is_due`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engrava_graph.dreaming.config import DreamingGates
from engrava_graph.dreaming.signals import Candidate
from engrava_graph.model.cycles import CycleProvider, resolve_cycle
from engrava_graph.model.errors import CycleRequiredError


def require_cycle(explicit: int | None, provider: CycleProvider | None, operation: str) -> int:
    """The cycle a maintenance pass runs at: the explicit argument, else the provider's.

    Raises:
        CycleRequiredError: (a ValueError) neither yields a cycle (these passes never
            run with ``current_cycle=None``).
        CycleProviderError: the value is not a non-negative int.
    """
    cycle = resolve_cycle(explicit, provider)
    if cycle is None:
        raise CycleRequiredError(operation)
    return cycle


def eligibility_params(gates: DreamingGates, current_cycle: int, now: datetime) -> dict[str, Any]:
    """The ``dreaming/_eligible`` parameters: ``$thought_types`` (LIST<STRING>),
    ``$current_cycle`` and ``$min_age_cycles`` (cycles), ``$allow_zero_confirmation``,
    ``$min_confirmations``, ``$now`` (expiry instant)."""
    return {
        "thought_types": [t.value for t in gates.thought_types],
        "current_cycle": current_cycle,
        "min_age_cycles": gates.min_age_cycles,
        "allow_zero_confirmation": gates.allow_zero_confirmation,
        "min_confirmations": gates.min_confirmations,
        "now": now,
    }


def passing_score_gate(
    candidates: Sequence[Candidate], scores: Mapping[str, float], gates: DreamingGates
) -> list[Candidate]:
    """The candidates whose signal score is at least ``gates.min_score`` (input order kept)."""
    return [c for c in candidates if scores[c.thought_id] >= gates.min_score]
