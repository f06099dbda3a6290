"""Closed vocabularies of the thought-graph model: thought types, lifecycle, edge types, etc.

Values are the peer package ``engrava``'s, so records move between the two stores unchanged.
Neo4j labels and relationship types are taken only from these enums, never from user input.
"""

from __future__ import annotations

from enum import StrEnum, unique


@unique
class ThoughtType(StrEnum):
    """What a thought is. Exactly the six types of the peer; each is also a Neo4j label.

    Examples:
        >>> ThoughtType("OBSERVATION").label
        'Observation'
    """

    TASK = "TASK"
    OBSERVATION = "OBSERVATION"
    BELIEF = "BELIEF"
    REFLECTION = "REFLECTION"
    OUTPUT_DRAFT = "OUTPUT_DRAFT"
    NOTE = "NOTE"

    @property
    def label(self) -> str:
        """The extra Neo4j label of this type, in PascalCase
        (``OUTPUT_DRAFT`` -> ``OutputDraft``)."""
        return "".join(part.capitalize() for part in self.value.split("_"))


@unique
class Priority(StrEnum):
    """Importance of a thought: P1 (highest) to P4 (lowest). ``P1 < P4`` means "more urgent".

    Examples:
        >>> Priority.P1 < Priority.P4
        True
    """

    P1 = "P1"
    P2 = "P2"
    P3 = "P3"
    P4 = "P4"

    @property
    def rank(self) -> int:
        """1 for P1 … 4 for P4."""
        return int(self.value[1])

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Priority):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Priority):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Priority):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Priority):
            return NotImplemented
        return self.rank >= other.rank


_TRANSITIONS: dict[str, frozenset[str]] = {
    "CREATED": frozenset({"ACTIVE"}),
    "ACTIVE": frozenset({"DONE", "ARCHIVED"}),
    "DONE": frozenset({"ARCHIVED"}),
    "ARCHIVED": frozenset({"ACTIVE"}),
}


@unique
class LifecycleStatus(StrEnum):
    """The lifecycle state machine: CREATED -> ACTIVE -> DONE -> ARCHIVED,
    ACTIVE -> ARCHIVED directly, and ARCHIVED -> ACTIVE through ``restore_thought``.

    Examples:
        >>> LifecycleStatus.ACTIVE.can_transition_to(LifecycleStatus.ARCHIVED)
        True
        >>> LifecycleStatus.CREATED.can_transition_to(LifecycleStatus.DONE)
        False
    """

    CREATED = "CREATED"
    ACTIVE = "ACTIVE"
    DONE = "DONE"
    ARCHIVED = "ARCHIVED"

    def allowed_transitions(self) -> frozenset[LifecycleStatus]:
        """The states reachable from this one in one step."""
        return frozenset(LifecycleStatus(v) for v in _TRANSITIONS[self.value])

    def can_transition_to(self, target: LifecycleStatus) -> bool:
        """Whether ``self -> target`` is a legal step of the state machine."""
        return target.value in _TRANSITIONS[self.value]


@unique
class EdgeType(StrEnum):
    """Typed relation between two thoughts; each is a Neo4j relationship type.

    The seven types of the peer plus the causal pair that the retrieval cycle walks for causal
    chains: ``CAUSED_BY`` points effect -> cause, ``LEADS_TO`` points cause -> effect.
    """

    ASSOCIATED = "ASSOCIATED"
    DEPENDS_ON = "DEPENDS_ON"
    DERIVED_FROM = "DERIVED_FROM"
    MESSAGE_OF = "MESSAGE_OF"
    BRIDGE = "BRIDGE"
    CONSOLIDATED_FROM = "CONSOLIDATED_FROM"
    CONTESTED_BY = "CONTESTED_BY"
    CAUSED_BY = "CAUSED_BY"
    LEADS_TO = "LEADS_TO"


@unique
class KnowledgeSource(StrEnum):
    """How a piece of knowledge was obtained (provenance)."""

    EXPERIENCE = "EXPERIENCE"
    SEEDED_LLM = "SEEDED_LLM"
    DISTILLED_LLM = "DISTILLED_LLM"
    DREAMING = "DREAMING"


@unique
class ThoughtVisibility(StrEnum):
    """Inner vs outer speech (visibility); stored, not enforced."""

    PRIVATE = "private"
    SELECTIVE = "selective"
    PUBLIC = "public"


@unique
class EdgeDirection(StrEnum):
    """Which edges of a thought ``get_edges`` returns."""

    IN = "IN"
    OUT = "OUT"
    BOTH = "BOTH"


@unique
class NodeLabel(StrEnum):
    """The node labels besides the thought-type labels; every one is namespaced."""

    THOUGHT = "Thought"
    ENTITY = "Entity"
    TAG = "Tag"
    DREAM_RUN = "DreamRun"
