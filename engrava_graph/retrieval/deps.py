"""What the retrieval cycle needs from a store, and nothing more (a narrow dependency bundle,
as ``DreamContext`` is for dreaming): the connection, the namespace, the two search arms, the
query embedder, the access-tracking callback and the configurations."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.model.cycles import CycleProvider
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.search.arms import SearchArms
from engrava_graph.search.fusion import TimeConfig

Embed = Callable[[Sequence[str]], Awaitable[list[list[float] | None]]]
"""Texts -> one vector each (None without a provider), in one provider call off the loop."""

Scope = Callable[..., dict[str, Any]]
"""``scope(include_archived=, filters=, now=)`` -> the ``search/_retrievable`` parameters."""


@dataclass(frozen=True)
class CycleDeps:
    """The retrieval cycle's dependencies for one namespace.

    Attributes:
        executor: runs the cycle's statements.
        namespace: the validated namespace every statement is confined to.
        arms: the keyword and vector arms (Phase 3).
        embed: the query embedder (Phase 1).
        track: called with the returned ids (access tracking; buffered by the store).
        scope: builds the ``search/_retrievable`` parameters of a request.
        config: the cycle's constants.
        time_config: time and recency settings shared with ``search_hybrid`` (the access
            decay rate, the cycle/transaction recency axes).
        cycle_provider: the store's cycle provider (cycle recency), or None.
    """

    executor: GraphExecutor
    namespace: str
    arms: SearchArms
    embed: Embed
    track: Callable[[Sequence[str]], None]
    scope: Scope
    config: RetrievalConfig
    time_config: TimeConfig
    cycle_provider: CycleProvider | None = None

    def retrievable(
        self, *, include_archived: bool, filters: MetadataFilter, now: datetime | None
    ) -> dict[str, Any]:
        """The ``search/_retrievable`` parameters of one request."""
        return self.scope(include_archived=include_archived, filters=filters, now=now)
