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
- :class:`BoundedModel`: the base of those models: unknown fields are refused, every float
  field (nested ones too, such as a vector's items) must be finite and every text (ids, essence,
  content, tags, metadata, queries; nested ones too) well-formed Unicode without NUL.
- :func:`blank`: a text that shows nothing (only whitespace and invisible characters), refused
  as a query and, through :func:`visible_text`, as a text a record must carry.
"""

from __future__ import annotations

import math
import types
import unicodedata
from functools import lru_cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator

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

    Text must be well-formed and NUL-free (:func:`text_problem`): Neo4j's driver cannot send a
    lone surrogate (``"\\ud800"``, which JSON's ``\\uXXXX`` escapes can carry) and tools that
    read a value back as a C string (terminals, log shippers, exporters) cut it at a NUL, which
    no caller means. So every string field, and every string nested in a list or a dict (keys
    too), is checked. Records read back from Neo4j skip the check (validation context
    :data:`STORED`), so a legacy value stays readable.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_loose_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        if info.field_name and not (info.context or {}).get("stored"):
            field = cls.model_fields.get(info.field_name)
            if field is not None and (problem := loose_number_problem(field.annotation, value)):
                raise ValueError(problem)
        return value

    @field_validator("*", mode="after")
    @classmethod
    def _refuse_bad_text(cls, value: Any, info: ValidationInfo) -> Any:
        if not (info.context or {}).get("stored") and (problem := nested_text_problem(value)):
            raise ValueError(problem)
        return value


@lru_cache(maxsize=512)
def _numeric_kind(annotation: Any) -> tuple[str, bool] | None:
    """``(what it takes, whether floats are among it)`` for a numeric annotation (``int``,
    ``float``, optionally in a union with ``None``) that takes neither strings nor booleans;
    else None. Cached: every field of every record asks on each validation."""
    union = get_origin(annotation) in (Union, types.UnionType)
    accepted = set(get_args(annotation) if union else (annotation,))
    if not ({int, float} & accepted) or {str, bool, Any} & accepted:
        return None
    return ("an integer" if float not in accepted else "a number"), float in accepted


def loose_number_problem(annotation: Any, value: Any) -> str | None:
    """Why ``value`` may not fill a field of type ``annotation`` although pydantic's lax mode
    would convert it, or None.

    A numeric field (``int``, ``float``, optionally ``| None``) refuses a boolean (``true`` is
    not a count) and a string (``"3"``); an integer-only field also refuses a float (``5.0``).
    NumPy numbers pass: they are neither. Fields that accept strings or booleans themselves are
    left to pydantic.
    """
    if not isinstance(value, bool | str | float):
        return None
    try:
        numeric = _numeric_kind(annotation)
    except TypeError:  # an unhashable annotation: not a plain numeric one
        return None
    if numeric is None:
        return None
    kind, takes_floats = numeric
    if isinstance(value, bool):
        return f"Input should be {kind}, not a boolean"
    if isinstance(value, str):
        return f"Input should be {kind}, not a string"
    if not takes_floats:
        return f"Input should be {kind}, not a float ({value!r})"
    return None


def no_loose_numbers(annotation: Any) -> BeforeValidator:
    """A validator for ``Annotated[annotation, ...]`` outside :class:`BoundedModel` (a tool's
    parameters): it refuses what :func:`loose_number_problem` names, with its message."""

    def check(value: Any) -> Any:
        if problem := loose_number_problem(annotation, value):
            raise ValueError(problem)
        return value

    return BeforeValidator(check)


STORED: dict[str, bool] = {"stored": True}
"""Validation context of records rebuilt from Neo4j properties (no text check: see
:class:`BoundedModel`)."""


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored as it is, or None.

    Returns:
        ``"must not contain NUL characters (\\x00)"``, or ``"must be valid Unicode: a lone
        surrogate U+D800 at position 0"`` for text UTF-8 cannot encode; None when fine.

    Examples:
        >>> text_problem("fine") is None
        True
        >>> text_problem("\\ud800")
        'must be valid Unicode: a lone surrogate U+D800 at position 0'
    """
    if "\x00" in text:
        return "must not contain NUL characters (\\x00)"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return (
                f"must be valid Unicode: a lone surrogate U+{ord(text[exc.start]):04X} at "
                f"position {exc.start}"
            )
    return None


_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
_INVISIBLE_MARKS = frozenset(
    [chr(c) for c in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0)]
    + [chr(c) for c in (*range(0x180B, 0x1810), *range(0xFE00, 0xFE10))]
    + [chr(c) for c in range(0xE0100, 0xE01F0)]
)


def blank(text: str) -> bool:
    """Whether ``text`` shows nothing: it is empty or holds only whitespace and invisible
    characters (control and format characters such as the zero-width space U+200B, the word
    joiner U+2060, the byte order mark U+FEFF or the soft hyphen U+00AD; line and paragraph
    separators; variation selectors, Hangul fillers, the blank Braille pattern). The rule of a
    blank query everywhere a query is read.

    Examples:
        >>> blank(" \u200b\t\ufeff")
        True
        >>> blank("a\u200b")
        False
    """
    return all(
        unicodedata.category(char) in _INVISIBLE_CATEGORIES or char in _INVISIBLE_MARKS
        for char in text
    )


VISIBLE_RULE = (
    "give at least one visible character (spaces and invisible characters such as U+200B do "
    "not count)"
)
"""What a :func:`blank` text lacks, as every refusal of one says it (queries, stored texts, ids)."""


def visible_text(value: Any, info: ValidationInfo) -> Any:
    """``value`` when it shows something: the validator of the texts a record, message or query
    must carry (``essence``, ``content``, ``source``, a message's ``content`` and ``speaker``,
    a query...), by the rule of a blank query (:func:`blank`). It runs before the field's own
    constraints (``mode="before"``), so an empty text and one of spaces get the same message;
    anything but a string passes to them (None: an optional field left unset; another type: the
    field's type error), and so does anything in a record read back from Neo4j (validation
    context :data:`STORED`), so a text stored before the rule (``"\u200b"``) stays readable.

    Raises:
        ValueError: ``value`` is blank ("essence must not be empty: give at least one visible
            character ...").
    """
    if isinstance(value, str) and not (info.context or {}).get("stored") and blank(value):
        raise ValueError(f"{info.field_name} must not be empty: {VISIBLE_RULE}")
    return value


def nested_text_problem(value: object) -> str | None:
    """:func:`text_problem` of the first bad string in ``value`` (a string, or a list, tuple
    or dict nesting strings, keys included), or None.

    Examples:
        >>> nested_text_problem({"a": ["ok", "b\\x00"]})
        'must not contain NUL characters (\\\\x00)'
        >>> nested_text_problem([0.5, 1.0]) is None
        True
    """
    if isinstance(value, str):
        return text_problem(value)
    items: Any = ()
    if isinstance(value, dict):
        items = (x for pair in value.items() for x in pair)
    elif isinstance(value, list | tuple):
        items = value
    for item in items:
        if isinstance(item, str | list | tuple | dict) and (problem := nested_text_problem(item)):
            return problem
    return None


def scalar_problem(value: object) -> str | None:
    """Why ``value`` cannot be stored as a Neo4j scalar property, or None when it can.

    Args:
        value: a candidate leaf (metadata value, filter value, annotation).

    Returns:
        None for ``None``, a ``str`` :func:`text_problem` accepts, ``bool``, a 64-bit ``int`` or
        a finite ``float``; else the end of a sentence naming the problem ("is not a finite
        number", "must not contain NUL characters", ...).

    Examples:
        >>> scalar_problem(2**64)
        'is outside the signed 64-bit integer range Neo4j stores (-2**63 .. 2**63-1)'
        >>> scalar_problem(3) is None
        True
    """
    if isinstance(value, str):
        return text_problem(value)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        if INT64_MIN <= value <= INT64_MAX:
            return None
        return "is outside the signed 64-bit integer range Neo4j stores (-2**63 .. 2**63-1)"
    if isinstance(value, float):
        return None if math.isfinite(value) else "is not a finite number"
    return f"is a {type(value).__name__}, not a scalar (str, int, float, bool or null)"
