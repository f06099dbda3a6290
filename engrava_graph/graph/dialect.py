"""Which Neo4j line a connection talks to, read once per connection from ``dbms.components()``.

The statements that differ between Neo4j lines live side by side in ``cypher/``; this module
says which line a server is, and callers pick their statement from it:

- **5.26 LTS** (and any 5.x): the vector index knows nothing but the vector; a namespace is
  searched by exact cosine or through ``db.index.vector.queryNodes`` over-fetched and filtered
  afterwards (``schema/thought_vector``, ``search/vector_exact``, ``search/vector_index``).
- **2026.01 and later** (calendar releases): the vector index also stores filter properties
  (``CREATE VECTOR INDEX … WITH [t.namespace, t.lifecycle_status]``) and the ``SEARCH``
  subclause of ``MATCH`` filters inside the index (``schema/thought_vector_filtered``,
  ``search/vector_filtered``), and statements compare embeddings as ``VECTOR`` values
  (``vector_distance``): the ``cypher/cypher25/`` files replace their namesakes
  (:class:`~engrava_graph.graph.registry.CypherDialect`).

The server is asked once per :class:`~engrava_graph.graph.executor.GraphExecutor` (the first
call of :func:`server_line`); every store on that connection shares the answer.

Sources: Neo4j Cypher Manual, "Vector indexes" (filters, ``SEARCH``, from 2026.01) and "Vector
functions" (``vector()``, ``vector_distance()``, Cypher 25); Operations
Manual, ``dbms.components()``.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import CypherDialect, cypher

_COMPONENTS = cypher("hygiene/server_version")
_VERSION_RE = re.compile(r"^(\d+)\.(\d+)")
#: The first calendar release whose vector index holds filter properties (``SEARCH … WHERE``).
FILTERED_VECTOR_SINCE = (2026, 1)


@dataclass(frozen=True)
class ServerLine:
    """The Neo4j server behind a connection.

    Attributes:
        version: the kernel version as reported, e.g. ``"2026.08.1"`` or ``"5.26.30"``.
        edition: ``"community"`` or ``"enterprise"`` (Aura reports ``"enterprise"``).
        filtered_vector_index: the vector index can hold filter properties and be searched with
            ``MATCH … SEARCH … WHERE`` (2026.01 and later).
    """

    version: str
    edition: str
    filtered_vector_index: bool

    @property
    def dialect(self) -> CypherDialect:
        """The Cypher its statements are rendered for: ``CYPHER25`` from 2026.01 (``VECTOR``
        values, ``vector_distance``), else ``CYPHER5``."""
        return CypherDialect.CYPHER25 if self.filtered_vector_index else CypherDialect.CYPHER5


_LINES: weakref.WeakKeyDictionary[GraphExecutor, ServerLine] = weakref.WeakKeyDictionary()


def parse_server_line(version: str, edition: str) -> ServerLine:
    """The :class:`ServerLine` of a kernel version string (``"2026.08.1"``, ``"5.26.30"``,
    ``"5.27-aura"``); a version that does not start with ``<major>.<minor>`` is taken as the
    oldest line (no filtered vector index), the safe choice.

    Examples:
        >>> parse_server_line("2026.08.1", "community").filtered_vector_index
        True
        >>> parse_server_line("5.26.30", "community").filtered_vector_index
        False
    """
    match = _VERSION_RE.match(version)
    major_minor = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
    return ServerLine(version, edition, major_minor >= FILTERED_VECTOR_SINCE)


async def server_line(executor: GraphExecutor) -> ServerLine:
    """The server line of ``executor``'s connection: asked once (``dbms.components()``, one
    read), then remembered for the executor's lifetime.

    Raises:
        Neo4jUnavailableError: the server does not answer.
    """
    line = _LINES.get(executor)
    if line is None:
        rows = await executor.read(_COMPONENTS)
        kernel = next((r for r in rows if r["name"] == "Neo4j Kernel"), rows[0])
        line = _LINES[executor] = parse_server_line(str(kernel["versions"][0]), kernel["edition"])
    return line
