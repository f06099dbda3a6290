"""Time values and the bi-temporal predicates (valid time and transaction time).

Every instant in engrava-graph is a timezone-aware ``datetime`` in UTC; a naive value is read as
UTC (the host timezone is never consulted). In Neo4j they are stored as ``DateTime`` values.

Valid time (``valid_from`` / ``valid_until``) is when a fact is true in the world; ``None`` is an
open bound. The predicates, as in the peer package ``engrava``:

- ``valid_at(t)``: ``(valid_from is None or valid_from <= t)`` and
  ``(valid_until is None or valid_until > t)``
- ``valid_now(now)``: ``valid_at(now)``; the caller supplies ``now``.
- ``valid_within(start, end)``: the interval overlaps ``[start, end)``, open bounds tolerated.
- ``valid_between(start, end)``: contained in ``[start, end]``; an open bound excludes the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo, model_validator

from engrava_graph.model.errors import InvalidRecencyArgumentError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_FIRST_INSTANT = datetime.min.replace(tzinfo=UTC)
_LAST_INSTANT = datetime.max.replace(tzinfo=UTC)


def to_utc(value: datetime | str) -> datetime:
    """Normalise an instant to an aware UTC ``datetime``.

    Args:
        value: an aware or naive ``datetime`` (naive = UTC), a Neo4j ``DateTime`` (anything with
            ``to_native()``), or an ISO-8601 string (``Z`` suffix accepted).

    Returns:
        The same instant as an aware ``datetime`` in UTC. Python's years 1-9999 lie inside
        Neo4j's ``DateTime`` range (years -999,999,999 .. 999,999,999), so every result stores.

    Raises:
        ValueError: if a string is not ISO-8601, the value is not a time at all, or its UTC
            instant falls outside years 1-9999 (``0001-01-01T00:00:00+00:01`` is in year 0).
    """
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"expected an ISO-8601 instant such as 2025-06-13T18:00:00Z, got {value!r}"
            ) from None
    if not isinstance(value, datetime):
        raise ValueError(f"expected an ISO-8601 instant, got {type(value).__name__}")
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError(
            f"{value.isoformat()} is outside the representable instants: in UTC it must fall "
            f"between {_FIRST_INSTANT.isoformat()} and {_LAST_INSTANT.isoformat()}"
        ) from exc


def from_epoch_millis(millis: int | None) -> datetime | None:
    """An aware UTC instant from Unix epoch milliseconds (exact, no float rounding).

    Returns:
        None for None and for a value outside years 1-9999 (a Neo4j ``DateTime`` can be that far
        out; callers read such a stamp as missing, as the peer reads a malformed one).
    """
    if millis is None:
        return None
    try:
        return _EPOCH + timedelta(milliseconds=millis)
    except OverflowError:
        return None


def from_epoch_parts(parts: Sequence[int | None] | None) -> datetime | None:
    """An aware UTC instant from ``[seconds, microseconds]`` since the Unix epoch, as a Cypher
    statement returns a ``DateTime`` ``d`` with ``[d.epochSeconds, d.microsecond]`` (plain
    integers: the driver's ``DateTime`` decoding costs more than the query that reads them).

    Returns:
        None for None, for ``[null, null]`` (no value) and for an instant outside years 1-9999
        (a Neo4j ``DateTime`` can be that far out; read as missing, as in
        :func:`from_epoch_millis`). Sub-microsecond digits are dropped.
    """
    if parts is None or parts[0] is None:
        return None
    try:
        return _EPOCH + timedelta(seconds=parts[0], microseconds=parts[1] or 0)
    except OverflowError:
        return None


def _to_utc_or_none(value: object) -> datetime | None:
    return None if value is None else to_utc(value)  # type: ignore[arg-type]


UtcDateTime = Annotated[datetime | None, BeforeValidator(_to_utc_or_none)]
"""A nullable instant normalised to aware UTC on validation."""


def parse_now(argument: str, value: datetime | str) -> datetime:
    """Parse a caller-supplied "now" (``recency_now``, ``now``) or raise a typed error.

    Raises:
        InvalidRecencyArgumentError: when ``value`` is not an ISO-8601 instant.
    """
    try:
        return to_utc(value)
    except (TypeError, ValueError) as exc:
        raise InvalidRecencyArgumentError(argument, value, "an ISO-8601 instant") from exc


class ValidTimeKind(StrEnum):
    """The four bi-temporal predicates."""

    AT = "valid_at"
    NOW = "valid_now"
    WITHIN = "valid_within"
    BETWEEN = "valid_between"


class ValidTimeFilter(BaseModel):
    """One bi-temporal predicate over a record's ``valid_from`` / ``valid_until``.

    Build it with the class methods; ``start``/``end`` are aware UTC instants.

    Examples:
        >>> f = ValidTimeFilter.within("2023-05-01", "2023-06-01")
        >>> f.kind.value
        'valid_within'
    """

    model_config = ConfigDict(frozen=True)

    kind: ValidTimeKind
    start: UtcDateTime
    end: UtcDateTime

    @model_validator(mode="after")
    def _check_bounds(self) -> Self:
        if self.start is None or self.end is None:
            raise ValueError(f"{self.kind.value} needs both instants")
        if self.end < self.start:
            raise ValueError(f"{self.kind.value}: end {self.end} is before start {self.start}")
        return self

    @classmethod
    def at(cls, instant: datetime | str) -> ValidTimeFilter:
        """Records valid at ``instant``."""
        return cls(kind=ValidTimeKind.AT, start=instant, end=instant)

    @classmethod
    def now(cls, now: datetime | str) -> ValidTimeFilter:
        """Records valid at the caller's ``now`` (the core reads no clock)."""
        return cls(kind=ValidTimeKind.NOW, start=now, end=now)

    @classmethod
    def within(cls, start: datetime | str, end: datetime | str) -> ValidTimeFilter:
        """Records whose validity overlaps ``[start, end)``."""
        return cls(kind=ValidTimeKind.WITHIN, start=start, end=end)

    @classmethod
    def between(cls, start: datetime | str, end: datetime | str) -> ValidTimeFilter:
        """Records whose validity lies inside ``[start, end]`` with both bounds set."""
        return cls(kind=ValidTimeKind.BETWEEN, start=start, end=end)

    def matches(self, valid_from: datetime | None, valid_until: datetime | None) -> bool:
        """Evaluate the predicate in Python (the Cypher twin is ``cypher/thoughts/list.cypher``)."""
        start, end = self.start, self.end
        assert start is not None and end is not None  # guaranteed by the validator
        if self.kind is ValidTimeKind.BETWEEN:
            return (
                valid_from is not None
                and valid_until is not None
                and valid_from >= start
                and valid_until <= end
            )
        if self.kind is ValidTimeKind.WITHIN:
            return (valid_from is None or valid_from < end) and (
                valid_until is None or valid_until > start
            )
        return (valid_from is None or valid_from <= start) and (
            valid_until is None or valid_until > start
        )

    def cypher_params(self) -> dict[str, object]:
        """The ``$vt_kind`` / ``$vt_start`` / ``$vt_end`` parameters the Cypher predicate reads."""
        return {"vt_kind": self.kind.value, "vt_start": self.start, "vt_end": self.end}


def valid_until_field(cls: type, value: datetime | None, info: ValidationInfo) -> datetime | None:
    """A ``valid_until`` field validator for a model whose ``valid_from`` comes first
    (``field_validator("valid_until")(valid_until_field)``): refuses an inverted valid-time
    interval (equal instants are a legal instantaneous fact) under the field ``valid_until``, so
    a REST 422 names it.

    Raises:
        ValueError: if ``valid_from`` is after ``valid_until``.
    """
    valid_from = info.data.get("valid_from")
    if valid_from is not None and value is not None and valid_from > value:
        raise ValueError(f"valid_until ({value}) is before valid_from ({valid_from})")
    return value
