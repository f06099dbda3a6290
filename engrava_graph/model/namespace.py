"""Namespaces: one Neo4j database holds many agents' memories, isolated.

Every thought, edge, entity, tag and dream run carries a ``namespace`` property; every statement in
``cypher/`` is scoped by ``$namespace``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engrava_graph.model.bounds import scalar_problem, text_problem
from engrava_graph.model.errors import InvalidNamespaceError, ValidationFailedError

DEFAULT_NAMESPACE = "default"
_NAMESPACE_RE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
RESERVED_ANNOTATION_KEYS = frozenset({"name", "created_at"})
"""The Namespace node's own properties, which annotations may not set."""


def validate_namespace(namespace: object) -> str:
    """Return ``namespace`` if it is 1-64 of ``[A-Za-z0-9_-]``.

    Raises:
        InvalidNamespaceError: otherwise.
    """
    if not isinstance(namespace, str) or not _NAMESPACE_RE.match(namespace):
        raise InvalidNamespaceError(namespace)
    return namespace


def _key_problem(key: object) -> str | None:
    """Why Neo4j would refuse ``key`` as a property name, or None."""
    if not isinstance(key, str) or not key:
        return "must be non-empty text"
    return text_problem(key)


def validate_annotations(annotations: object) -> None:
    """Check namespace annotations (``annotate_namespace``'s, an export header's): a mapping of
    keys Neo4j takes as property names (non-empty text without NUL characters, not one of
    :data:`RESERVED_ANNOTATION_KEYS`) to Neo4j scalars (str, bool, 64-bit int, finite float,
    None).

    Raises:
        ValidationFailedError: not a mapping, or the first bad key or value, named.
    """
    if not isinstance(annotations, Mapping):
        raise ValidationFailedError(
            f"namespace annotations must be key/value pairs, not a {type(annotations).__name__}"
        )
    for key, value in annotations.items():
        if why := _key_problem(key):
            raise ValidationFailedError(f"namespace annotation key {key!r} {why}")
        if key in RESERVED_ANNOTATION_KEYS:
            raise ValidationFailedError(
                f"namespace annotation {key!r} is reserved: annotations cannot set "
                f"{', '.join(sorted(RESERVED_ANNOTATION_KEYS))}"
            )
        if problem := scalar_problem(value):
            raise ValidationFailedError(f"namespace annotation {key!r} {problem}")


def fulltext_namespace_token(namespace: str) -> str:
    """A single analyzer-proof token for ``namespace`` (``ns`` + hex of its UTF-8 bytes).

    It is stored in the ``ns_token`` property, which the full-text index covers, so a Lucene
    query can require ``+ns_token:<token>`` and filter inside the index instead of after it.

    Examples:
        >>> fulltext_namespace_token("a-1")
        'ns612d31'
    """
    return "ns" + validate_namespace(namespace).encode("utf-8").hex()
