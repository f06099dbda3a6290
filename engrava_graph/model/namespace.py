"""Namespaces: one Neo4j database holds many agents' memories, isolated.

Every thought, edge, entity, tag and dream run carries a ``namespace`` property; every statement in
``cypher/`` is scoped by ``$namespace``.
"""

from __future__ import annotations

import re

from engrava_graph.model.errors import InvalidNamespaceError

DEFAULT_NAMESPACE = "default"
_NAMESPACE_RE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")


def validate_namespace(namespace: object) -> str:
    """Return ``namespace`` if it is 1-64 of ``[A-Za-z0-9_-]``.

    Raises:
        InvalidNamespaceError: otherwise.
    """
    if not isinstance(namespace, str) or not _NAMESPACE_RE.match(namespace):
        raise InvalidNamespaceError(namespace)
    return namespace


def fulltext_namespace_token(namespace: str) -> str:
    """A single analyzer-proof token for ``namespace`` (``ns`` + hex of its UTF-8 bytes).

    It is stored in the ``ns_token`` property, which the full-text index covers, so a Lucene
    query can require ``+ns_token:<token>`` and filter inside the index instead of after it.

    Examples:
        >>> fulltext_namespace_token("a-1")
        'ns612d31'
    """
    return "ns" + validate_namespace(namespace).encode("utf-8").hex()
