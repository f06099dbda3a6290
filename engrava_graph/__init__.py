"""engrava-graph: a thought-graph memory for AI agents, native on Neo4j.

``Neo4jEngravaCore`` is the spec-003 store (the Neo4j twin of the ``engrava`` package's
``SqliteEngravaCore``); ``retrieve``/``explain`` run the 000 cognitive retrieval cycle over it.
"""

from engrava_graph.model import *  # noqa: F403 - the model is the public vocabulary
from engrava_graph.model import __all__ as _model_all
from engrava_graph.read_only import ReadOnlyEngrava
from engrava_graph.store import Neo4jEngravaCore, StoreOptions

__all__ = ["Neo4jEngravaCore", "ReadOnlyEngrava", "StoreOptions", *_model_all]
__version__ = "0.1.0"
