"""``engrava_graph.core.Neo4jEngravaCore`` stays importable; the store is built in
:mod:`engrava_graph.store`, one module per area."""

from engrava_graph.store import Neo4jEngravaCore, StoreOptions

__all__ = ["Neo4jEngravaCore", "StoreOptions"]
