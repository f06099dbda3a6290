"""The memories moving through one run of the retrieval cycle, and how they are read back from
its statements.

A candidate arrives with its ranking fields (``cypher/retrieval/_ranking_fields``: what Phases
5, 7 and 9 read, no text); the results, after ranking, get their display fields
(``cypher/retrieval/_display_fields``: the text and the metadata). Both come as plain lists,
in the order of :data:`RANKING_FIELDS` and :data:`DISPLAY_FIELDS`: a list of maps took the
driver twice as long to read back as the statement took to build it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from engrava_graph.model.enums import Priority
from engrava_graph.model.temporal import from_epoch_parts
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.results import CausalLink
from engrava_graph.retrieval.scoring import PRIORITY_BOOST, CandidateSignals

log = logging.getLogger(__name__)

RANKING_FIELDS = (
    "thought_id",
    "element_id",
    "thought_type",
    "priority",
    "confidence",
    "pinned",
    "access_count",
    "created_s",
    "created_us",
    "updated_s",
    "updated_us",
    "updated_cycle",
    "last_accessed_s",
    "last_accessed_us",
    "valid_from_s",
    "valid_from_us",
    "conversation_id",
    "position",
)
"""The positions of ``cypher/retrieval/_ranking_fields`` (an instant is its epoch seconds and its
microsecond, ``_s`` and ``_us``)."""

DISPLAY_FIELDS = ("thought_id", "essence", "metadata_json")
"""The positions of ``cypher/retrieval/_display_fields``."""


def _seconds(s: int | None, us: int | None) -> float | None:
    """Seconds since the Unix epoch of an instant read as its two parts (None without one)."""
    return None if s is None else s + (us or 0) / 1_000_000


@dataclass(frozen=True, slots=True)
class MemoryFields:
    """What ranking and the response read of one memory.

    Instants are kept as read (epoch seconds and microsecond) and turned into datetimes only
    when asked (:attr:`created_at` …): ranking needs ages (:meth:`age_seconds`), and only the
    results are shown. ``essence`` and ``metadata`` are None until :meth:`with_display` (the
    ranking read does not read them).
    """

    thought_id: str
    element_id: str
    thought_type: str
    priority: str
    confidence: float | None
    pinned: bool
    access_count: int
    created: tuple[int | None, int | None]
    updated: tuple[int | None, int | None]
    updated_cycle: int
    last_accessed: tuple[int | None, int | None]
    valid_from_parts: tuple[int | None, int | None]
    conversation_id: str | None
    position: int | None
    essence: str | None = None
    metadata: dict[str, Any] | None = None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> MemoryFields:
        """Build from a ``retrieval/_ranking_fields`` list.

        A value edited by hand into something no write produces (an unknown priority, a
        confidence outside [0, 1]) ranks as the default would, with a warning naming the
        thought, so one such node does not fail every retrieval of its namespace."""
        (thought_id, element_id, thought_type, priority, confidence, pinned, access_count,
         created_s, created_us, updated_s, updated_us, updated_cycle, accessed_s, accessed_us,
         valid_s, valid_us, conversation_id, position) = row  # fmt: skip
        fixed: list[str] = []
        priority = priority or Priority.P3.value
        if priority not in PRIORITY_BOOST:  # the priorities importance_score accepts
            fixed.append("priority")
            priority = Priority.P3.value
        if confidence is not None and not (
            isinstance(confidence, int | float) and 0.0 <= confidence <= 1.0
        ):
            fixed.append("confidence")
            confidence = None
        if fixed:
            _warn_fixed(thought_id, fixed)
        return cls(
            thought_id=thought_id,
            element_id=element_id,
            thought_type=thought_type,
            priority=priority,
            confidence=confidence,
            pinned=bool(pinned),
            access_count=int(access_count or 0),
            created=(created_s, created_us),
            updated=(updated_s, updated_us),
            updated_cycle=int(updated_cycle or 0),
            last_accessed=(accessed_s, accessed_us),
            valid_from_parts=(valid_s, valid_us),
            conversation_id=conversation_id,
            position=position,
        )

    def with_display(self, row: Sequence[Any]) -> MemoryFields:
        """These fields with the text and metadata of a ``retrieval/_display_fields`` list (a
        text that is not a string, or metadata that is not a JSON object, shown as the default
        would be, with a warning)."""
        _, essence, metadata_json = row
        fixed: list[str] = []
        if not isinstance(essence, str):
            if essence is not None:
                fixed.append("essence")
            essence = "" if essence is None else str(essence)
        try:
            metadata = json.loads(metadata_json or "{}")
        except (TypeError, ValueError):
            fixed.append("metadata_json")
            metadata = {}
        if fixed:
            _warn_fixed(self.thought_id, fixed)
        return replace(
            self, essence=essence, metadata=metadata if isinstance(metadata, dict) else {}
        )

    @property
    def created_at(self) -> datetime | None:
        """When the memory was stored (aware UTC)."""
        return from_epoch_parts(self.created)

    @property
    def updated_at(self) -> datetime | None:
        """When the memory was last written (aware UTC)."""
        return from_epoch_parts(self.updated)

    @property
    def last_accessed_at(self) -> datetime | None:
        """When the memory was last recalled (aware UTC)."""
        return from_epoch_parts(self.last_accessed)

    @property
    def valid_from(self) -> datetime | None:
        """When what the memory says became true (aware UTC)."""
        return from_epoch_parts(self.valid_from_parts)

    def happened_s(self) -> float | None:
        """When the memory happened, seconds since the Unix epoch: valid_from, else created_at."""
        valid_from = _seconds(*self.valid_from_parts)
        return _seconds(*self.created) if valid_from is None else valid_from

    def age_seconds(self, now_s: float) -> float | None:
        """Seconds from the last access (an access resets the clock), else from when the memory
        happened, to ``now_s`` (epoch seconds); None without either."""
        since = _seconds(*self.last_accessed)
        if since is None:
            since = self.happened_s()
        return None if since is None else now_s - since


def _warn_fixed(thought_id: str, fixed: list[str]) -> None:
    log.warning(
        "thought %r has invalid %s in Neo4j (edited by hand?); ranked with defaults",
        thought_id,
        ", ".join(fixed),
    )


@dataclass(frozen=True, slots=True)
class Arrival:
    """One spreading link into a candidate: the seed it came from, the source (an edge type,
    ``CONVERSATION``, ``ENTITY``, ``TAG``, ``TEMPORAL`` or ``SESSION``) and the activation it
    passed on."""

    from_id: str
    via: str
    activation: float


@dataclass(slots=True)
class Candidate:
    """A memory moving through the cycle (mutable working state of one request).

    Attributes:
        thought_id: the memory.
        reached_by: "activation", "spread" or "cause"; hops: links from the activated set.
        activation: Phase 3 level: the direct similarity relative to the best match (1.0 for
            the best; 0 for a memory only spreading or the causal walk reached).
        cosine: cosine to the query in [0, 1] (None without a vector); keyword: normalised BM25.
        spread: the best direct similarity reaching it over a link, times the link weight
            (Phase 4); session: the mean direct similarity of its conversation's best matched
            messages (Phase 4, session level); arrivals: where spreading came from.
        causal: Phase 6 relevance; links: the causal chain through it.
        temporal: Phase 5 relevance; in_range: whether its time is in the query's range.
    """

    thought_id: str
    reached_by: str = "activation"
    hops: int = 0
    activation: float = 0.0
    cosine: float | None = None
    keyword: float = 0.0
    spread: float = 0.0
    session: float = 0.0
    arrivals: list[Arrival] = field(default_factory=list)
    causal: float = 0.0
    temporal: float = 0.0
    in_range: bool | None = None
    links: list[CausalLink] = field(default_factory=list)
    fields: MemoryFields | None = None
    signals: CandidateSignals | None = None
    composite: float = 0.0
    confidence: float = 0.0
    dropped_in: str | None = None
    reason: str | None = None

    def similarity(self, config: RetrievalConfig, has_vector: bool) -> float:
        """Direct relevance in [0, 1]: ``vector_share * cosine + (1 - vector_share) * keyword``
        (keyword alone without a query vector)."""
        if not has_vector:
            return self.keyword
        return (
            config.vector_share * (self.cosine or 0.0) + (1.0 - config.vector_share) * self.keyword
        )

    def relevance(self, config: RetrievalConfig, has_vector: bool) -> float:
        """Phase 7's relevance signal in [0, 1]: a weighted mean of the direct similarity, the
        best relevance reaching it over a link (``spread``) and its session's (``session``),
        weights ``1 : spread_gain : session_gain``."""
        total = 1.0 + config.spread_gain + config.session_gain
        return (
            self.similarity(config, has_vector)
            + config.spread_gain * self.spread
            + config.session_gain * self.session
        ) / total

    @property
    def via(self) -> list[str]:
        """Explain's view of the sources: ``"CONVERSATION from <id>"``, strongest first."""
        ordered = sorted(self.arrivals, key=lambda a: (-a.activation, a.via, a.from_id))
        return [f"{a.via} from {a.from_id}" for a in ordered]
