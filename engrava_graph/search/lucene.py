"""Turning user text into a safe Lucene query for Neo4j's full-text index."""

from __future__ import annotations

import re

_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_WORD = re.compile(r"\w+", re.UNICODE)
_MAX_TERMS = 64


def lucene_terms(text: str) -> list[str]:
    """The word tokens of ``text`` (at most 64), each escaped for Lucene.

    Examples:
        >>> lucene_terms('AND "x" OR (y) REQ-FUNC*')
        ['and', 'x', 'or', 'y', 'req', 'func']
    """
    words = _WORD.findall(text)[:_MAX_TERMS]
    # Lowercase so the words AND/OR/NOT are never read as operators.
    return [_SPECIAL.sub(r"\\\1", w.lower()) for w in words]


def namespaced_query(text: str, ns_token: str) -> str | None:
    """An OR of ``text``'s terms, required to be in the namespace ``ns_token``.

    Returns:
        The Lucene query, or None when ``text`` has no word characters (nothing to search).
    """
    terms = lucene_terms(text)
    if not terms:
        return None
    return f"+ns_token:{ns_token} +({' '.join(terms)})"
