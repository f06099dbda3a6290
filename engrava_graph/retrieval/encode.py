"""Query encoding (the Encode phase) and decomposition for the attention pathway (Activate).

:func:`encode_query` builds everything of Phase 1 except the embedding, which the
orchestrator gets from the embedding provider and carries beside the encoding.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Final

from engrava_graph.model.bounds import VISIBLE_RULE, blank
from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.entities import extract_entities
from engrava_graph.retrieval.intent import DEFAULT_INTENT_RULES, IntentRule, classify_intent
from engrava_graph.retrieval.temporal import resolve_temporal
from engrava_graph.retrieval.types import QueryEncoding

MAX_QUERY_CHARS: Final = 2000
"""Longest accepted query, in characters (after stripping surrounding whitespace)."""

MAX_SUB_QUERIES: Final = 4
"""Most sub-queries :func:`decompose` returns, the whole query included."""

_CLAUSE_START = (
    r"(?:what|who|whom|whose|when|where|why|which|how|did|does|do|is|are|was|were|has|have"
    r"|had|can|could|should|would|will|tell|list|describe|explain)\b"
)
_CLAUSE_BREAK = re.compile(
    rf"\s*(?:[?;]+|\bas\s+well\s+as\b|,?\s*\band\s+(?={_CLAUSE_START})|,\s*(?={_CLAUSE_START}))\s*",
    re.IGNORECASE,
)
_EDGE_PUNCTUATION = " \t\n,.;:!?"


def query_string(value: object, field: str = "query") -> str:
    """``value`` when it is a string: the type rule of every query argument (``retrieve``,
    ``search_fts``, ``search_hybrid``).

    Args:
        value: the argument.
        field: its name, for the message and :attr:`InvalidQueryError.field`.

    Raises:
        InvalidQueryError: ``value`` is not a string (None, bytes, a number, ...).

    Examples:
        >>> query_string(None, "query_text")
        Traceback (most recent call last):
        ...
        engrava_graph.model.errors.InvalidQueryError: query_text must be a string, got NoneType
    """
    if not isinstance(value, str):
        raise InvalidQueryError(
            f"{field} must be a string, got {type(value).__name__}", field=field
        )
    return value


def encode_query(
    text: str, *, now: datetime | None, intent_rules: tuple[IntentRule, ...] = DEFAULT_INTENT_RULES
) -> QueryEncoding:
    """Encode a query: intent, entities and keywords, temporal range, sub-queries.

    Args:
        text: The query; at most :data:`MAX_QUERY_CHARS` characters once stripped.
        now: Request time, timezone-aware; relative time phrases resolve against it. None
            (the caller gave no clock) leaves ``temporal`` unresolved (None).
        intent_rules: The intent rule table (see :mod:`.intent`).

    Returns:
        The :class:`QueryEncoding` (no embedding).

    Raises:
        InvalidQueryError: If ``text`` is not a string, is blank (only whitespace and invisible
            characters, :func:`~engrava_graph.model.bounds.blank`) or too long, or ``now`` is
            naive.

    Examples:
        >>> from datetime import datetime, UTC
        >>> e = encode_query("What caused the outage last Tuesday?",
        ...                  now=datetime(2024, 5, 16, tzinfo=UTC))
        >>> (e.intent.value, e.entities, e.temporal.reference)
        ('causal', ['outage'], 'last Tuesday')
    """
    stripped = query_string(text).strip()
    if blank(stripped):
        raise InvalidQueryError(f"query must not be empty: {VISIBLE_RULE}", field="query")
    if len(stripped) > MAX_QUERY_CHARS:
        raise InvalidQueryError(
            f"query has {len(stripped)} characters; the limit is {MAX_QUERY_CHARS}", field="query"
        )
    intent, scores = classify_intent(stripped, intent_rules)
    return QueryEncoding(
        text=stripped,
        intent=intent,
        intent_scores=scores,
        entities=extract_entities(stripped, include_keywords=True),
        temporal=None if now is None else resolve_temporal(stripped, now),
        sub_queries=decompose(stripped),
    )


def decompose(text: str) -> list[str]:
    """Split a multi-part question into clauses for the attention pathway (Activate).

    Breaks at "?" and ";", at "as well as", and at "and" or "," when a new clause starts
    right after (a question word, an auxiliary, or "tell/list/describe/explain"), so
    "What did Caroline and Melanie paint?" stays whole while "What caused the outage and
    who fixed it?" splits. Empty and repeated parts are dropped.

    Args:
        text: The query text.

    Returns:
        ``[text]`` for a single clause; otherwise the whole query first, then up to
        ``MAX_SUB_QUERIES - 1`` clauses in order.

    Examples:
        >>> decompose("What caused the outage and who fixed it?")
        ['What caused the outage and who fixed it?', 'What caused the outage', 'who fixed it']
    """
    whole = text.strip()
    parts: list[str] = []
    for piece in _CLAUSE_BREAK.split(whole):
        part = piece.strip(_EDGE_PUNCTUATION)
        if part and part.casefold() not in {p.casefold() for p in parts}:
            parts.append(part)
    if len(parts) < 2:
        return [whole]
    return [whole, *parts[: MAX_SUB_QUERIES - 1]]
