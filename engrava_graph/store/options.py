"""StoreOptions: how a store behaves, apart from its connection and namespace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from engrava_graph.dreaming.config import DreamingConfig, HygienePolicy
from engrava_graph.embeddings.base import EmbeddingProvider
from engrava_graph.model.cycles import CycleProvider
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.entities import extract_entities
from engrava_graph.search.fusion import SearchConfig, TimeConfig


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class StoreOptions:
    """The options of :class:`~engrava_graph.store.Neo4jEngravaCore`, in one object that
    :meth:`~engrava_graph.store.Neo4jEngravaCore.for_namespace` passes on unchanged.

    Attributes:
        embedding_provider: turns text into vectors; None = keyword search only.
        auto_embed: embed thoughts on create/update when a provider is set.
        cycle_provider: default cognitive cycle for search/consolidate when none is passed.
        access_tracking_enabled: record implicit accesses into the bounded buffer.
        search_config: hybrid-search defaults (None = :class:`SearchConfig`).
        time_config: time and recency settings every ranked path reads (None =
            :class:`~engrava_graph.search.fusion.TimeConfig`).
        retrieval_config: constants of the retrieval cycle (None = :class:`RetrievalConfig`).
        vector_dimensions: index dimensions when there is no provider (default 384).
        clock: returns "now" (aware UTC) for write stamps, expiry and access times; ranking never
            reads it (callers pass ``recency_now`` / ``now``).
        entity_extractor: text -> entity names for ``MENTIONS`` links (default: rule-based).
        dreaming_config: defaults of ``consolidate`` (None = :class:`DreamingConfig`).
        hygiene_policy: the forgetting policy of ``run_hygiene``; None = no hygiene.
    """

    embedding_provider: EmbeddingProvider | None = None
    auto_embed: bool = True
    cycle_provider: CycleProvider | None = None
    access_tracking_enabled: bool = False
    search_config: SearchConfig | None = None
    time_config: TimeConfig | None = None
    retrieval_config: RetrievalConfig | None = None
    vector_dimensions: int = 384
    clock: Callable[[], datetime] = _utcnow
    entity_extractor: Callable[[str], list[str]] = extract_entities
    dreaming_config: DreamingConfig | None = None
    hygiene_policy: HygienePolicy | None = None
