"""Numeric limits of every value that reaches Neo4j as a query parameter.

Neo4j integers are signed 64-bit (the driver raises ``OverflowError`` on anything wider) and a
NaN or an infinity would poison scoring and cannot be written back as JSON. The models that
carry caller values to Cypher (records, request and configuration models) therefore take their
numbers from here: one place for the bounds, one message per kind of mistake.

- :data:`Int64`: any integer Neo4j stores (metadata leaves, filter values).
- :data:`Count` / :data:`Cycle`: non-negative counters and cognitive cycles, 0 .. 2**63-1.
  The counters Cypher adds to (``confirmation_count``, ``access_count``) saturate at
  :data:`INT64_MAX` (``cypher/thoughts/dedup_confirm``, ``record_access``), and cycles are only
  subtracted from one another (``$current_cycle - t.created_cycle``), so nothing overflows.
- :class:`BoundedModel`: the base of those models: unknown fields are refused and every float
  field (nested ones too, such as a vector's items) must be finite.
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

Int64 = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
"""An integer Neo4j can store: -2**63 .. 2**63-1."""

Count = Annotated[int, Field(ge=0, le=INT64_MAX)]
"""A non-negative counter (accesses, confirmations, seconds, candidates): 0 .. 2**63-1.
Raise the lower end with ``Annotated[Count, Field(ge=2)]``."""

PositiveCount = Annotated[Count, Field(ge=1)]
"""A counter of at least 1 (a half-life, a period, a saturation point): 1 .. 2**63-1."""

Cycle = Count
"""A cognitive cycle (a logical tick the caller owns): 0 .. 2**63-1."""


class BoundedModel(BaseModel):
    """Base of every model whose values go to Neo4j as parameters.

    Unknown fields are refused (``extra="forbid"``) and float fields must be finite
    (``allow_inf_nan=False``: ``NaN``/``Infinity``, which Python's ``json`` accepts, fail
    validation with "Input should be a finite number"). Subclasses add their own config
    (``frozen``), which pydantic merges with this one.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def scalar_problem(value: object) -> str | None:
    """Why ``value`` cannot be stored as a Neo4j scalar property, or None when it can.

    Args:
        value: a candidate leaf (metadata value, filter value, annotation).

    Returns:
        None for ``None``, ``str``, ``bool``, a 64-bit ``int`` or a finite ``float``; else the
        end of a sentence naming the problem ("is not a finite number", ...).

    Examples:
        >>> scalar_problem(2**64)
        'is outside the signed 64-bit integer range Neo4j stores (-2**63 .. 2**63-1)'
        >>> scalar_problem(3) is None
        True
    """
    if value is None or isinstance(value, str | bool):
        return None
    if isinstance(value, int):
        if INT64_MIN <= value <= INT64_MAX:
            return None
        return "is outside the signed 64-bit integer range Neo4j stores (-2**63 .. 2**63-1)"
    if isinstance(value, float):
        return None if math.isfinite(value) else "is not a finite number"
    return f"is a {type(value).__name__}, not a scalar (str, int, float, bool or null)"
