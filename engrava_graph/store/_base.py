"""What every area of the store shares: the attributes set by
:class:`~engrava_graph.store.Neo4jEngravaCore` and the validation wrapper of ``evolve``."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from engrava_graph.model.errors import InvalidTransitionError, ValidationFailedError

if TYPE_CHECKING:
    from engrava_graph.dreaming.config import DreamingConfig, HygienePolicy
    from engrava_graph.embeddings.base import EmbeddingProvider
    from engrava_graph.graph.executor import GraphExecutor
    from engrava_graph.model.cycles import CycleProvider
    from engrava_graph.model.metadata import MetadataFilter
    from engrava_graph.model.records import ThoughtRecord
    from engrava_graph.retrieval.config import RetrievalConfig
    from engrava_graph.retrieval.orchestrator import RetrievalCycle
    from engrava_graph.search.arms import SearchArms
    from engrava_graph.search.fusion import SearchConfig, TimeConfig
    from engrava_graph.store.access_buffer import AccessBuffer
    from engrava_graph.store.options import StoreOptions


class StoreBase:
    """The state the per-area mixins of the store read; set once by the store's constructor."""

    executor: GraphExecutor
    namespace: str
    options: StoreOptions
    embedding_provider: EmbeddingProvider | None
    auto_embed: bool
    cycle_provider: CycleProvider | None
    access_tracking_enabled: bool
    search_config: SearchConfig
    time_config: TimeConfig
    retrieval_config: RetrievalConfig
    vector_dimensions: int
    dreaming_config: DreamingConfig
    hygiene_policy: HygienePolicy | None
    _clock: Callable[[], datetime]
    _extract_entities: Callable[[str], list[str]]
    _ns_token: str
    _access: AccessBuffer
    _arms: SearchArms
    _cycle: RetrievalCycle

    if TYPE_CHECKING:  # methods one area calls on another; the composed store has them all

        def _track(self, thought_ids: Sequence[str]) -> None: ...
        def suppress_access_tracking(self) -> contextvars.Token[bool]: ...
        @staticmethod
        def resume_access_tracking(token: contextvars.Token[bool]) -> None: ...
        async def flush_access_buffer(self) -> int: ...
        async def ensure_namespace(self) -> None: ...
        async def _register_in(self, tx: Any) -> None: ...
        def retrievable_scope(
            self,
            *,
            include_archived: bool = False,
            filters: MetadataFilter | None = None,
            now: datetime | None = None,
        ) -> dict[str, Any]: ...
        async def _vectors_for(
            self,
            thoughts: Sequence[ThoughtRecord],
            given: Sequence[Sequence[float] | None] | None,
        ) -> list[list[float] | None]: ...
        def _checked_embeddings(
            self, thoughts: Sequence[ThoughtRecord], given: Sequence[Sequence[float] | None]
        ) -> list[list[float] | None]: ...
        def _check_dims(
            self, vector: Sequence[float], field: str = "embedding", which: str = "the embedding"
        ) -> list[float]: ...
        def _stamp(
            self, thought: ThoughtRecord, now: datetime, expires_after_seconds: float | None
        ) -> ThoughtRecord: ...
        def _row(self, thought: ThoughtRecord, vector: list[float] | None) -> dict[str, Any]: ...
        async def get_thoughts(self, thought_ids: Sequence[str]) -> dict[str, ThoughtRecord]: ...
        async def _query_vector(
            self, query_text: str, query_vector: Sequence[float] | None
        ) -> list[float] | None: ...


def evolved(record: Any, changes: dict[str, Any]) -> Any:
    """``record.evolve(**changes)`` with validation failures as :class:`ValidationFailedError`
    (an :class:`InvalidTransitionError` passes through unchanged)."""
    try:
        return record.evolve(**changes)
    except InvalidTransitionError:
        raise
    except ValidationError as exc:
        raise ValidationFailedError.from_pydantic(exc) from exc
    except ValueError as exc:
        raise ValidationFailedError(str(exc)) from exc
