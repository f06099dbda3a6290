"""The thought-graph store: :class:`Neo4jEngravaCore` (one public class, one module per area)
and its :class:`StoreOptions`."""

from engrava_graph.store.core import Neo4jEngravaCore
from engrava_graph.store.options import StoreOptions

__all__ = ["Neo4jEngravaCore", "StoreOptions"]
