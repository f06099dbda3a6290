"""ReadOnlyEngrava: a view of a store whose reads pass and whose writes raise (spec 003).

Reads delegated through it never record implicit accesses.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.model.errors import ReadOnlyViolationError

READ_METHODS = frozenset({
    "get_thought", "get_thoughts", "list_thoughts", "count_thoughts", "get_embedding",
    "max_cycle", "get_edge", "get_edges", "list_edges", "search_fts", "search_similar",
    "search_hybrid", "recall", "retrieve", "explain", "search_reflections_only",
    "namespace_exists", "embed_query", "embed_queries",
})
WRITE_METHODS = frozenset({
    "create_thought", "bulk_store", "remember", "update_thought", "delete_thought",
    "restore_thought", "record_access", "flush_access_buffer", "create_edge", "update_edge",
    "delete_edge", "ensure_schema", "ensure_namespace", "delete_namespace", "consolidate",
    "run_hygiene",
})


class ReadOnlyEngrava:
    """Wraps a :class:`Neo4jEngravaCore`: the read methods work, the write methods raise.

    Raises:
        ReadOnlyViolationError: on any write method.
        AttributeError: for a name that is neither a known read nor a known write.
    """

    def __init__(self, store: Neo4jEngravaCore) -> None:
        self._store = store

    @property
    def namespace(self) -> str:
        """The wrapped store's namespace."""
        return self._store.namespace

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name in WRITE_METHODS:
            async def refuse(*_: Any, **__: Any) -> Any:
                raise ReadOnlyViolationError(name)
            return refuse
        if name not in READ_METHODS:
            raise AttributeError(f"ReadOnlyEngrava has no method {name!r}")
        method = getattr(self._store, name)

        @functools.wraps(method)
        async def read(*args: Any, **kwargs: Any) -> Any:
            token = self._store.suppress_access_tracking()
            try:
                return await method(*args, **kwargs)
            finally:
                self._store.resume_access_tracking(token)

        return read
