"""Typed values of the retrieval cycle's pure-logic phases (Encode, Route, Rank, Score).

Everything here is a frozen pydantic model or a ``StrEnum``; nothing does I/O. The
orchestrator carries the query embedding separately from :class:`QueryEncoding`.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Final, Literal, TypeAlias

from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

UnitFloat: TypeAlias = Annotated[float, Field(ge=0.0, le=1.0)]
"""A float in the closed interval [0, 1]."""

SUM_TOLERANCE: Final = 1e-6
"""Absolute tolerance when checking that a weight or score vector sums to 1."""


class Intent(StrEnum):
    """What kind of question a query asks (the Encode phase's intent classification)."""

    FACTUAL = "factual"
    CAUSAL = "causal"
    TEMPORAL = "temporal"
    EXPLORATORY = "exploratory"


class Pathway(StrEnum):
    """The three retrieval pathways the Route phase chooses among.

    Only real pathways are members, so a result or a weight table can never say
    ``"auto"``. A request's choice is a :data:`PathwayChoice`, where :data:`AUTO` asks
    the router to decide.
    """

    EXACT = "exact"
    ENERGY = "energy"
    ATTENTION = "attention"


AUTO: Final = "auto"
"""The request value that lets the router pick the pathway (``pathway="auto"``)."""


def _known_pathway(value: object) -> object:
    """``value`` if it names a pathway or ``"auto"``; else one error that lists them all (the
    union alone would report two, each naming part of the choices)."""
    if not isinstance(value, str) or value not in {AUTO, *Pathway}:
        raise ValueError(
            f"pathway {value!r} is unknown: use 'auto', 'exact', 'energy' or 'attention'"
        )
    return value


PathwayChoice: TypeAlias = Annotated[Pathway | Literal["auto"], BeforeValidator(_known_pathway)]
"""What a request may pass as ``pathway``: a :class:`Pathway` or ``"auto"``."""

Direction: TypeAlias = Literal["before", "after", "within"]
"""How a temporal reference constrains memory time; see :class:`TemporalRange`."""

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class TemporalRange(BaseModel):
    """A time reference found in a query, resolved against the request's ``now``.

    The range is half-open, ``[start, end)``, in UTC. ``direction`` says how it applies:

    * ``"within"``: a calendar reference ("last Tuesday", "in May 2023"); both bounds set.
    * ``"before"``: "before May 2023" (``start`` is None, ``end`` set) or "before the
      deploy" (an event anchor: both None, since the anchor's time is a memory, not a date).
    * ``"after"``: "since last week" (``start`` set, ``end`` None) or "after the migration"
      (event anchor: both None).

    "Last Tuesday" could read as ``direction: "before"`` (in the past); here a resolved
    calendar reference is ``"within"`` because that is how the range is used.

    Attributes:
        reference: The phrase as written in the query, e.g. ``"last Tuesday"``.
        direction: ``"before"``, ``"after"`` or ``"within"``.
        start: Inclusive lower bound (UTC, timezone-aware) or None.
        end: Exclusive upper bound (UTC, timezone-aware) or None.

    Examples:
        >>> r = TemporalRange(reference="before the deploy", direction="before")
        >>> r.start is None and r.end is None
        True
    """

    model_config = _FROZEN

    reference: str = Field(min_length=1)
    direction: Direction
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None

    @field_validator("start", "end")
    @classmethod
    def _to_utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else value.astimezone(UTC)

    @model_validator(mode="after")
    def _bounds_match_direction(self) -> TemporalRange:
        if self.start is not None and self.end is not None and self.start >= self.end:
            raise ValueError("start must be before end")
        if self.direction == "within" and (self.start is None or self.end is None):
            raise ValueError("a 'within' range needs both start and end")
        if self.direction == "before" and self.start is not None:
            raise ValueError("a 'before' range has no start")
        if self.direction == "after" and self.end is not None:
            raise ValueError("an 'after' range has no end")
        return self


class QueryEncoding(BaseModel):
    """The output of the Encode phase, without the embedding.

    Attributes:
        text: The query text, stripped of surrounding whitespace.
        intent: The winning intent.
        intent_scores: One score per :class:`Intent`, each in [0, 1], summing to 1.
        entities: Normalised entities and salient keywords, first-seen order.
        temporal: The resolved time reference, or None.
        sub_queries: The whole query first, then up to 3 clauses for the attention pathway;
            just ``[text]`` when the query has one clause.
    """

    model_config = _FROZEN

    text: str = Field(min_length=1)
    intent: Intent
    intent_scores: dict[Intent, UnitFloat]
    entities: list[str]
    temporal: TemporalRange | None
    sub_queries: list[str] = Field(min_length=1)


class PathwayScores(BaseModel):
    """Router output (the Route phase): one score per pathway, each in [0, 1], summing to 1.

    Serialises to the explain shape ``{"exact": 0.2, "energy": 0.3, "attention": 0.5}``.

    Examples:
        >>> PathwayScores(exact=0.2, energy=0.3, attention=0.5).selected
        <Pathway.ATTENTION: 'attention'>
    """

    model_config = _FROZEN

    exact: UnitFloat
    energy: UnitFloat
    attention: UnitFloat

    @model_validator(mode="after")
    def _sums_to_one(self) -> PathwayScores:
        total = self.exact + self.energy + self.attention
        if not math.isclose(total, 1.0, abs_tol=SUM_TOLERANCE):
            raise ValueError(f"pathway scores must sum to 1, got {total}")
        return self

    def __str__(self) -> str:
        """The explain shape as JSON, ``{"exact": 0.2, "energy": 0.3, "attention": 0.5}``: what
        ``print(explanation.pathway_scores)`` shows."""
        return json.dumps(self.model_dump())

    def score(self, pathway: Pathway) -> float:
        """Return the score of one pathway.

        Args:
            pathway: The pathway to read.

        Returns:
            Its score in [0, 1].
        """
        return float(getattr(self, pathway.value))

    @property
    def selected(self) -> Pathway:
        """The highest-scoring pathway.

        Ties (within :data:`SUM_TOLERANCE`) go to the first in declaration order:
        exact, then energy, then attention; precision is preferred when the evidence is even.
        """
        best = max(self.score(p) for p in Pathway)
        return next(p for p in Pathway if self.score(p) >= best - SUM_TOLERANCE)
