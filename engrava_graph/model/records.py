"""ThoughtRecord and EdgeRecord: the frozen value objects of the thought-graph model.

Field names and defaults follow the peer package ``engrava`` where the model leaves them open.
Instants are aware UTC ``datetime`` values (ISO-8601 strings are accepted and normalised;
naive = UTC). Records do no I/O: the store (``Neo4jEngravaCore``) persists them.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any, Self

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from engrava_graph.model.bounds import BoundedModel, Count, Cycle, visible_text
from engrava_graph.model.enums import (
    EdgeType,
    KnowledgeSource,
    LifecycleStatus,
    Priority,
    ThoughtType,
    ThoughtVisibility,
)
from engrava_graph.model.errors import InvalidTransitionError
from engrava_graph.model.ids import RecordId
from engrava_graph.model.metadata import MetadataValue, validate_metadata
from engrava_graph.model.temporal import (
    UtcDateTime,
    ValidTimeFilter,
    to_utc,
    valid_until_field,
)

ESSENCE_MAX_CHARS = 200
MAX_TTL_SECONDS = 100 * 365 * 86400
"""Longest time to live (``expires_after_seconds``) a thought takes: 100 years, so ``expires_at``
stays a representable instant."""


def new_id() -> str:
    """A fresh random UUID4 string, the default thought and edge id."""
    return str(uuid.uuid4())


def content_hash(content: str) -> str:
    """SHA-256 hex digest of ``content`` (UTF-8): the dedup key of ``create_thought``.

    It is computed once at creation and never recomputed on update, as in the peer
    ("editing a thought does not recompute its hash").
    """
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def _as_status(value: Any) -> LifecycleStatus | None:
    """``value`` as a :class:`LifecycleStatus` when it is one or names one, else None (the
    model's validation then refuses anything that is not a status)."""
    if isinstance(value, str):
        try:
            return LifecycleStatus(value)
        except ValueError:
            return None
    return None


def checked_metadata(value: Any, info: ValidationInfo) -> Any:
    """Validate metadata before pydantic's union checks, for one clear message (a record read
    back from Neo4j, validation context :data:`~engrava_graph.model.bounds.STORED`, is not held
    to the key cap, so one stored before it stays readable)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"metadata must be an object, got {type(value).__name__}")
    validate_metadata(value, capped=not (info.context or {}).get("stored"))
    return value


class ThoughtRecord(BoundedModel):
    """One thought: the unit of memory.

    Attributes:
        thought_id: stable id, unique within a namespace (default: a new UUID4); 1-128
            characters, one URL path segment (:mod:`engrava_graph.model.ids`: no ``/``, ``\\``
            or control characters, not ``.`` or ``..``).
        thought_type: one of the six :class:`ThoughtType` values; also a Neo4j label.
        essence: the prompt-facing one-liner, 1-200 characters, at least one of them visible
            (not only spaces and invisible characters such as U+200B:
            :func:`~engrava_graph.model.bounds.blank`, the rule of a blank query).
        content: the full source text (full-text indexed; defaults to nothing: required; not
            blank either).
        priority: P1 (highest) .. P4; default P3.
        lifecycle_status: default ACTIVE ("most thoughts you create will start ACTIVE").
        created_cycle, updated_cycle: the caller's cognitive cycle (logical ticks, not time);
            ``updated_cycle >= created_cycle``.
        source: free-form origin id ("human", "ingest", ...), required, not blank.
        confidence: belief strength in [0, 1]; None is read as 0.5 by signals.
        source_type: how the knowledge was obtained.
        confirmation_count: dedup hash hits (``create_thought(deduplicate=True)``).
        consolidated_from: ids a dreaming reflection was built from.
        visibility: inner/outer speech marker (stored, not enforced).
        access_count, last_accessed_at: access telemetry (``record_access``, access buffer).
        created_at, updated_at: transaction time, stamped by the store (UTC).
        expires_at: TTL instant; an expired thought is hidden unless ``include_expired``.
        valid_from, valid_until: valid time (world time); None = open bound.
        metadata: caller-defined attributes (scalar leaves, nested dicts), filterable in Cypher;
            null is ``{}``.
        tags: up to 32 labels (1-64 characters, stored lower-case); each becomes a
            ``(:Tag)`` node the thought is ``TAGGED`` with, which spreading activation walks;
            null is ``[]``.
        pinned: never archived by memory hygiene.
        archived_at_cycle, archived_at: set by the hygiene archive path, cleared on restore.

    Raises:
        pydantic.ValidationError: on any invalid field (e.g. a 201-character essence, a blank
            essence, content or source, an integer outside Neo4j's signed 64 bits (counts and
            cycles also >= 0), a NaN or infinite float, an instant whose UTC value falls outside
            years 1-9999).

    Examples:
        >>> t = ThoughtRecord(thought_type=ThoughtType.OBSERVATION, essence="User prefers email",
        ...                   content="Said so during onboarding.", source="onboarding")
        >>> t.lifecycle_status
        <LifecycleStatus.ACTIVE: 'ACTIVE'>
    """

    model_config = ConfigDict(frozen=True)

    thought_id: RecordId = Field(default_factory=new_id)
    thought_type: ThoughtType
    essence: str = Field(min_length=1, max_length=ESSENCE_MAX_CHARS)
    content: str = Field(min_length=1, max_length=1_000_000)
    priority: Priority = Priority.P3
    lifecycle_status: LifecycleStatus = LifecycleStatus.ACTIVE
    created_cycle: Cycle = 0
    updated_cycle: Cycle = Field(default=0, validate_default=True)  # checked against created_cycle
    source: str = Field(min_length=1, max_length=256)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    source_type: KnowledgeSource = KnowledgeSource.EXPERIENCE
    confirmation_count: Count = 0
    consolidated_from: list[str] | None = None
    visibility: ThoughtVisibility = ThoughtVisibility.SELECTIVE
    access_count: Count = 0
    last_accessed_at: UtcDateTime = None
    created_at: UtcDateTime = None
    updated_at: UtcDateTime = None
    expires_at: UtcDateTime = None
    valid_from: UtcDateTime = None
    valid_until: UtcDateTime = None
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list, max_length=32)
    pinned: bool = False
    archived_at_cycle: Cycle | None = None
    archived_at: UtcDateTime = None

    @field_validator("essence", "content", "source", mode="before")
    @classmethod
    def _not_blank(cls, value: Any, info: ValidationInfo) -> Any:
        return visible_text(value, info)

    @field_validator("metadata", mode="before")
    @classmethod
    def _check_metadata(cls, value: Any, info: ValidationInfo) -> Any:
        return checked_metadata(value, info)

    @field_validator("tags", mode="before")
    @classmethod
    def _null_tags_are_none(cls, value: Any) -> Any:
        return [] if value is None else value  # as metadata null is {}: a PATCH's null clears

    @field_validator("tags")
    @classmethod
    def _normalise_tags(cls, value: list[str]) -> list[str]:
        tags: list[str] = []
        for tag in value:
            norm = tag.strip().lower()
            if not 1 <= len(norm) <= 64:
                raise ValueError(f"tag {tag!r} must be 1-64 characters")
            if norm not in tags:
                tags.append(norm)
        return tags

    @field_validator("updated_cycle")
    @classmethod
    def _not_before_created(cls, value: int, info: ValidationInfo) -> int:
        created = info.data.get("created_cycle")
        if created is not None and value < created:
            raise ValueError(f"updated_cycle ({value}) must be >= created_cycle ({created})")
        return value

    _check_interval = field_validator("valid_until")(valid_until_field)

    def is_active(self) -> bool:
        """Whether the thought is ACTIVE."""
        return self.lifecycle_status is LifecycleStatus.ACTIVE

    def can_transition_to(self, target: LifecycleStatus) -> bool:
        """Whether the lifecycle state machine allows ``self.lifecycle_status -> target``."""
        return self.lifecycle_status.can_transition_to(target)

    def evolve(self, **changes: Any) -> Self:
        """A new record with ``changes`` applied and validated.

        A ``lifecycle_status`` is checked against the state machine whether it is given as a
        :class:`LifecycleStatus` member or as its plain string value (``"CREATED"``): a status is
        a status. A string that names no status fails validation.
        ``created_at`` cannot change once set (restating the same instant is not a change).

        Raises:
            InvalidTransitionError: an illegal lifecycle jump.
            ValueError: an attempt to change ``created_at``; pydantic errors for bad values.
        """
        if "created_at" in changes and self.created_at is not None:
            new = changes["created_at"]
            if new is None or to_utc(new) != self.created_at:
                raise ValueError(
                    f"created_at is immutable once set (current={self.created_at.isoformat()}, "
                    f"attempted={new!r})"
                )
        target = _as_status(changes.get("lifecycle_status"))
        if target is not None and target is not self.lifecycle_status:
            if not self.can_transition_to(target):
                raise InvalidTransitionError(
                    entity_type="LifecycleStatus",
                    current_state=self.lifecycle_status.value,
                    target_state=target.value,
                )
        data = self.model_dump()
        data.update(changes)
        return type(self).model_validate(data)

    def valid_at(self, instant: datetime | str) -> bool:
        """Bi-temporal ``valid_at``: true at ``instant`` (open bounds tolerated)."""
        return ValidTimeFilter.at(instant).matches(self.valid_from, self.valid_until)


class EdgeRecord(BoundedModel):
    """A typed, weighted, directed link between two thoughts of one namespace.

    At most one edge exists per ``(from_thought_id, to_thought_id, edge_type)``; a second raises
    :class:`~engrava_graph.model.errors.DuplicateEdgeError`.

    Attributes:
        edge_id: unique within a namespace (default: a new UUID4); the id rule of
            :mod:`engrava_graph.model.ids`, as for thoughts.
        from_thought_id, to_thought_id: the endpoints (must differ).
        edge_type: the relationship type in Neo4j.
        weight: strength in [0, 1]; default 1.0.
        confidence: link confidence in [0, 1] for causal edges (CAUSED_BY, LEADS_TO); None means
            "use ``weight``". The retrieval cycle scores causal chains by it.
        created_cycle: the caller's cognitive cycle when the edge was made.
        source: how the relation was obtained (dreaming writes DREAMING).
        decay_multiplier: per-edge multiplier on spreading activation (>= 0, finite).
        created_at: transaction time, stamped by the store.
        valid_from, valid_until: valid time of the relation; None = open.
        metadata: caller-defined attributes, filterable by ``list_edges(filters=...)``.

    Raises:
        pydantic.ValidationError: on an invalid field (bounds as in :class:`ThoughtRecord`) or
            a self-loop.
    """

    model_config = ConfigDict(frozen=True)

    edge_id: RecordId = Field(default_factory=new_id)
    from_thought_id: RecordId
    to_thought_id: RecordId
    edge_type: EdgeType
    weight: float = Field(default=1.0, ge=0.0, le=1.0)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    created_cycle: Cycle = 0
    source: KnowledgeSource = KnowledgeSource.EXPERIENCE
    decay_multiplier: float = Field(default=1.0, ge=0.0)
    created_at: UtcDateTime = None
    valid_from: UtcDateTime = None
    valid_until: UtcDateTime = None
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)

    @field_validator("metadata", mode="before")
    @classmethod
    def _check_metadata(cls, value: Any, info: ValidationInfo) -> Any:
        return checked_metadata(value, info)

    @field_validator("to_thought_id")
    @classmethod
    def _not_a_loop(cls, value: str, info: ValidationInfo) -> str:
        if value == info.data.get("from_thought_id"):
            raise ValueError(f"an edge cannot link thought {value!r} to itself")
        return value

    _check_interval = field_validator("valid_until")(valid_until_field)

    @property
    def link_confidence(self) -> float:
        """``confidence`` when set, else ``weight``."""
        return self.weight if self.confidence is None else self.confidence

    def evolve(self, **changes: Any) -> Self:
        """A new record with ``changes`` applied and validated (``edge_id`` and endpoints fixed).

        Raises:
            ValueError: an attempt to change the id, endpoints or type.
        """
        fixed = {"edge_id", "from_thought_id", "to_thought_id", "edge_type"} & changes.keys()
        if fixed:
            raise ValueError(f"{sorted(fixed)} cannot change; delete the edge and create a new one")
        data = self.model_dump()
        data.update(changes)
        return type(self).model_validate(data)
