"""The rule every thought and edge id follows: it must address its record in a URL path.

REST reads a thought at ``/v1/thoughts/{thought_id}`` and an edge at ``/v1/edges/{edge_id}``, so
an id is one path segment. The peer package ``engrava`` takes any non-blank string; this model
takes any string of 1-128 characters with a visible one (not only whitespace and invisible
characters such as U+200B: :func:`~engrava_graph.model.bounds.blank`, the rule of a blank query)
except those that no URL can carry as one segment:

- ``/`` anywhere: servers decode ``%2F`` before routing, so the id splits into two segments;
- ``\\`` anywhere: browsers and WHATWG URL parsers read it as ``/``;
- ``.`` or ``..`` as the whole id: dot segments, which clients remove (``a..b`` is fine);
- control characters (U+0000-U+001F, U+007F-U+009F): not typeable in a URL, and they break the
  one-line-per-thought output of the CLI.

UUIDs (the default), ``uuid5`` ids of conversation messages, and ids such as ``D1:3``,
``O1:Caroline:0``, ``note 7`` or ``café`` all pass. Records read back from Neo4j skip the check
(validation context :data:`~engrava_graph.model.bounds.STORED`), so an id stored before the
rule stays readable.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, Field, ValidationInfo

from engrava_graph.model.bounds import VISIBLE_RULE, blank

MAX_ID_CHARS = 128
_DOT_SEGMENTS = frozenset({".", ".."})
_SEPARATORS = ("/", "\\")


def id_problem(value: str) -> str | None:
    """Why ``value`` cannot be a thought or edge id, or None when it can.

    Returns:
        The end of a sentence naming the problem ("must not contain '/' ..."), or None.

    Examples:
        >>> id_problem("D1:3") is None
        True
        >>> id_problem("notes/today")
        "must not contain '/' (an id is one URL path segment)"
        >>> id_problem("..")
        "must not be '.' or '..' (URL clients drop such a path segment)"
    """
    if blank(value):
        return f"must not be empty: {VISIBLE_RULE}"
    for separator in _SEPARATORS:
        if separator in value:
            return f"must not contain {separator!r} (an id is one URL path segment)"
    if value in _DOT_SEGMENTS:
        return "must not be '.' or '..' (URL clients drop such a path segment)"
    for position, char in enumerate(value):
        if unicodedata.category(char) == "Cc":
            name = "NUL, " if char == "\x00" else ""
            return (
                f"must not contain control characters ({name}U+{ord(char):04X} at position "
                f"{position})"
            )
    return None


def _checked_id(value: str, info: ValidationInfo) -> str:
    if not (info.context or {}).get("stored") and (problem := id_problem(value)):
        raise ValueError(problem)
    return value


RecordId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS), AfterValidator(_checked_id)]
"""A thought or edge id: 1-128 characters that :func:`id_problem` accepts (a pydantic
``ValidationError`` naming the field otherwise)."""
