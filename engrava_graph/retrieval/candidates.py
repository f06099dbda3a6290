"""The memories moving through one run of the retrieval cycle, and how they are read back from
its statements.

Ranking happens in Cypher (``cypher/retrieval/_rank``): a ranked candidate arrives as its signal
row (:data:`SIGNAL_ROW`), and the ones Phase 8 kept (the results are among them) with their
fields (``cypher/retrieval/_ranking_fields``, :data:`RANKING_FIELDS`) and their text and metadata
(``cypher/retrieval/_display_fields``, :data:`DISPLAY_FIELDS`). All come as plain lists: a list
of maps took the driver twice as long to read back as the statement took to build it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from engrava_graph.model.enums import Priority, ThoughtType
from engrava_graph.model.temporal import from_epoch_parts
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

_THOUGHT_TYPES = frozenset(ThoughtType)
"""The thought types a write stores (each equal to its string)."""

DISPLAY_FIELDS = ("thought_id", "essence", "metadata_json")
"""The positions of ``cypher/retrieval/_display_fields``."""


@dataclass(frozen=True, slots=True)
class MemoryFields:
    """What the response reads of one memory (and the causal walk of the ones it reaches).

    Instants are kept as read (epoch seconds and microsecond) and turned into datetimes only
    when asked (:attr:`created_at` …). ``essence`` and ``metadata`` are None until
    :meth:`with_display`. ``fixed`` names the fields read as their defaults (edited by hand
    into values no write produces): :func:`warn_hand_edited` warns of them once per run.
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
    fixed: tuple[str, ...] = ()

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> MemoryFields:
        """Build from a ``retrieval/_ranking_fields`` list.

        A value edited by hand into something no write produces (an unknown thought type, read
        as an OBSERVATION, or priority, a confidence outside [0, 1], a count, cycle or position
        that is not an integer, a pinned flag that is not a boolean) ranks as the default would
        (a position as none) and is named in ``fixed``, so one such node does not fail every
        retrieval of its namespace (``retrieval/_rank`` ranks it with the same defaults)."""
        (thought_id, element_id, thought_type, priority, confidence, pinned, access_count,
         created_s, created_us, updated_s, updated_us, updated_cycle, accessed_s, accessed_us,
         valid_s, valid_us, conversation_id, position) = row  # fmt: skip
        fixed: list[str] = []
        if not isinstance(thought_type, str) or thought_type not in _THOUGHT_TYPES:
            fixed.append("thought_type")
            thought_type = ThoughtType.OBSERVATION.value
        priority = priority or Priority.P3.value
        # the priorities importance_score accepts (a list set by hand is no key)
        if not isinstance(priority, str) or priority not in PRIORITY_BOOST:
            fixed.append("priority")
            priority = Priority.P3.value
        if confidence is not None and not (
            isinstance(confidence, int | float) and 0.0 <= confidence <= 1.0
        ):
            fixed.append("confidence")
            confidence = None
        if pinned is not True and pinned is not False:
            fixed.append("pinned")
            pinned = False
        if type(access_count) is not int or access_count < 0:  # a bool is no count either
            fixed.append("access_count")
            access_count = 0
        if updated_cycle is not None and type(updated_cycle) is not int:
            fixed.append("updated_cycle")
            updated_cycle = None
        if position is not None and type(position) is not int:
            fixed.append("position")
            position = None
        return cls(
            thought_id=thought_id,
            element_id=element_id,
            thought_type=thought_type,
            priority=priority,
            confidence=confidence,
            pinned=pinned,
            access_count=access_count,
            created=(created_s, created_us),
            updated=(updated_s, updated_us),
            updated_cycle=updated_cycle or 0,
            last_accessed=(accessed_s, accessed_us),
            valid_from_parts=(valid_s, valid_us),
            conversation_id=conversation_id,
            position=position,
            fixed=tuple(fixed),
        )

    def with_display(self, row: Sequence[Any]) -> MemoryFields:
        """These fields with the text and metadata of a ``retrieval/_display_fields`` list (a
        text that is not a string, or metadata that is not a JSON object, shown as the default
        would be and added to ``fixed``)."""
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
        return replace(
            self,
            essence=essence,
            metadata=metadata if isinstance(metadata, dict) else {},
            fixed=self.fixed + tuple(fixed),
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


def warn_hand_edited(candidates: Iterable[Candidate]) -> None:
    """Warn once of each of ``candidates`` (the memories of one run, each once) read with
    defaults for fields edited by hand (:attr:`MemoryFields.fixed`): a run may read a memory's
    fields more than once (a causal question ranks its pool again)."""
    for c in candidates:
        if c.fields is not None and c.fields.fixed:
            log.warning(
                "thought %r has invalid %s in Neo4j (edited by hand?); ranked with defaults",
                c.thought_id,
                ", ".join(c.fields.fixed),
            )


@dataclass(frozen=True, slots=True)
class Arrival:
    """One spreading link into a candidate: the seed it came from, the source (an edge type,
    ``CONVERSATION``, ``ENTITY``, ``TAG``, ``TEMPORAL`` or ``SESSION``) and the activation it
    passed on."""

    from_id: str
    via: str
    activation: float


SIGNAL_ROW = (
    "thought_id",
    "reached_by",
    "hops",
    "cosine",
    "keyword",
    "direct",
    "activation",
    "spread",
    "session",
    "relevance",
    "temporal",
    "in_range",
    "causal",
    "importance",
    "access_frequency",
    "composite",
    "arrivals",
    "links",
)
"""The positions of ``cypher/retrieval/_signal_row`` (one candidate's signals, computed in
``retrieval/_rank``)."""


@dataclass(slots=True)
class Candidate:
    """A memory moving through the cycle (mutable working state of one request).

    Attributes:
        thought_id: the memory.
        reached_by: "activation", "spread" or "cause"; hops: links from the activated set.
        activation: Phase 3 level: the direct similarity relative to the best match (1.0 for
            the best; 0 for a memory only spreading or the causal walk reached).
        cosine: cosine to the query in [0, 1] (None without a vector); keyword: normalised BM25.
        direct: the direct similarity, ``vector_share * cosine + (1 - vector_share) * keyword``.
        spread: the best direct similarity reaching it over a link, times the link weight
            (Phase 4); session: the mean direct similarity of its conversation's best matched
            messages (Phase 4, session level); arrivals: where spreading from the seeds came
            from; pool_links: the conversation neighbours and session among the candidates
            that link to it (Phase 4 over the pool).
        causal: Phase 6 relevance; links: the causal chain through it.
        temporal: Phase 5 relevance; in_range: whether its time is in the query's range.
        signals: Phase 7's signals; composite: Phase 7's score; confidence: Phase 9's.
    """

    thought_id: str
    reached_by: str = "activation"
    hops: int = 0
    activation: float = 0.0
    cosine: float | None = None
    keyword: float = 0.0
    direct: float = 0.0
    spread: float = 0.0
    session: float = 0.0
    arrivals: list[Arrival] = field(default_factory=list)
    pool_links: list[Arrival] = field(default_factory=list)
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

    @classmethod
    def from_signal_row(cls, row: Sequence[Any], fields: MemoryFields) -> Candidate:
        """A ranked candidate from a ``retrieval/_signal_row`` list and its fields."""
        (thought_id, reached_by, hops, cosine, keyword, direct, activation, spread, session,
         relevance, temporal, in_range, causal, importance, access_frequency, composite,
         arrivals, links) = row  # fmt: skip
        return cls(
            thought_id,
            reached_by=reached_by,
            hops=int(hops),
            activation=float(activation),
            cosine=None if cosine is None else float(cosine),
            keyword=float(keyword),
            direct=float(direct),
            spread=float(spread),
            session=float(session),
            arrivals=[Arrival(f, v, float(a)) for f, v, a in arrivals],
            pool_links=[Arrival(f, v, float(a)) for f, v, a in links],
            causal=float(causal),
            temporal=float(temporal),
            in_range=in_range,
            fields=fields,
            signals=CandidateSignals(
                thought_id=thought_id,
                similarity=relevance,
                temporal=temporal,
                causal=causal,
                importance=importance,
                access_frequency=access_frequency,
                activation=min(1.0, max(float(activation), float(spread))),
            ),
            composite=float(composite),
        )

    @property
    def via(self) -> list[str]:
        """Explain's view of the sources: ``"CONVERSATION from <id>"``, strongest first."""
        ordered = sorted(
            [*self.arrivals, *self.pool_links], key=lambda a: (-a.activation, a.via, a.from_id)
        )
        return [f"{a.via} from {a.from_id}" for a in ordered]
