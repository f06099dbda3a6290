"""Neo4jEngravaCore: the thought-graph store, native on Neo4j, composed of one mixin per area.

The async API and its names follow the peer package ``engrava`` (``SqliteEngravaCore``): thoughts,
edges, lifecycle, search (``search_fts``, ``search_similar``, ``search_hybrid``, ``recall``),
access telemetry, ``max_cycle``. A store is opened for one namespace; nothing it does crosses it.
Every statement comes from ``cypher/``; writes run in managed transactions. Embedding-provider
calls (synchronous, CPU-bound) run on a worker thread, never on the event loop
(:func:`~engrava_graph.embeddings.base.embed_off_loop`), and always before anything is written.

Each area lives in its own module of this package: :mod:`.namespaces`, :mod:`.thoughts`,
:mod:`.conversations`, :mod:`.vectors`, :mod:`.edges`, :mod:`.access`, :mod:`.search`,
:mod:`.cycle` (retrieval) and :mod:`.dreaming`; this module only builds the state they share.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.model.namespace import (
    DEFAULT_NAMESPACE,
    fulltext_namespace_token,
    validate_namespace,
)
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.deps import CycleDeps
from engrava_graph.retrieval.orchestrator import RetrievalCycle
from engrava_graph.search.arms import SearchArms
from engrava_graph.search.fusion import SearchConfig, TimeConfig
from engrava_graph.store.access import AccessMixin
from engrava_graph.store.access_buffer import AccessBuffer
from engrava_graph.store.conversations import ConversationsMixin
from engrava_graph.store.cycle import RetrievalMixin
from engrava_graph.store.dreaming import DreamingMixin
from engrava_graph.store.edges import EdgesMixin
from engrava_graph.store.listing import ListingMixin
from engrava_graph.store.modes import writes
from engrava_graph.store.namespaces import NamespacesMixin
from engrava_graph.store.options import StoreOptions
from engrava_graph.store.search import SearchMixin
from engrava_graph.store.thoughts import ThoughtsMixin
from engrava_graph.store.vectors import VectorsMixin


class Neo4jEngravaCore(
    NamespacesMixin,
    ThoughtsMixin,
    ListingMixin,
    ConversationsMixin,
    VectorsMixin,
    EdgesMixin,
    AccessMixin,
    SearchMixin,
    RetrievalMixin,
    DreamingMixin,
):
    """The thought-graph store on Neo4j, scoped to one namespace.

    Args:
        executor: the connection (owned: ``close()`` closes it).
        namespace: 1-64 of ``[A-Za-z0-9_-]``; default ``"default"``.
        options: the store's options (default :class:`StoreOptions`).
        **option_values: single fields of :class:`StoreOptions` (``embedding_provider``,
            ``auto_embed``, ``cycle_provider``, ``access_tracking_enabled``, ``search_config``,
            ``time_config``, ``retrieval_config``, ``vector_dimensions``, ``clock``,
            ``entity_extractor``, ``dreaming_config``, ``hygiene_policy``), overriding those of
            ``options``.

    Raises:
        InvalidNamespaceError: a bad namespace.
        TypeError: an unknown option.

    Examples:
        >>> async with Neo4jEngravaCore.from_uri("bolt://127.0.0.1:7687",  # doctest: +SKIP
        ...                                      auth=("neo4j", "pw")) as store:
        ...     await store.ensure_schema()
    """

    def __init__(
        self,
        executor: GraphExecutor,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        options: StoreOptions | None = None,
        **option_values: Any,
    ) -> None:
        self.options = replace(options or StoreOptions(), **option_values)
        embedding_provider = self.options.embedding_provider
        self.executor = executor
        self.dreaming_config = self.options.dreaming_config or DreamingConfig()
        self.hygiene_policy = self.options.hygiene_policy
        self.namespace = validate_namespace(namespace)
        self.embedding_provider = embedding_provider
        self.auto_embed = self.options.auto_embed
        self.cycle_provider = self.options.cycle_provider
        self.access_tracking_enabled = self.options.access_tracking_enabled
        self.search_config = self.options.search_config or SearchConfig()
        self.time_config = self.options.time_config or TimeConfig()
        self.vector_dimensions = (
            embedding_provider.dimensions if embedding_provider else self.options.vector_dimensions
        )
        self._clock = self.options.clock
        self._extract_entities = self.options.entity_extractor
        self._ns_token = fulltext_namespace_token(self.namespace)
        self._access = AccessBuffer()
        self._arms = SearchArms(executor, self.namespace, self.search_config)
        self.retrieval_config = self.options.retrieval_config or RetrievalConfig()
        self._cycle = RetrievalCycle(
            CycleDeps(
                executor=executor,
                namespace=self.namespace,
                arms=self._arms,
                embed=self.embed_queries,
                track=self._track,
                scope=self.retrievable_scope,
                config=self.retrieval_config,
                time_config=self.time_config,
                cycle_provider=self.cycle_provider,
            )
        )

    @classmethod
    def from_uri(
        cls,
        uri: str,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        **options: Any,
    ) -> Neo4jEngravaCore:
        """Open a store on a Neo4j URI (``bolt://`` or ``neo4j://`` for clusters).

        Args:
            uri: the server URI.
            auth: ``(user, password)``.
            database: database name; None = the server's default.
            **options: the keyword arguments of :class:`Neo4jEngravaCore`.
        """
        return cls(GraphExecutor.connect(uri, auth, database), **options)

    def for_namespace(self, namespace: str) -> Neo4jEngravaCore:
        """A store on the same connection for another namespace (same provider and options)."""
        return type(self)(self.executor, namespace=namespace, options=self.options)

    async def __aenter__(self) -> Neo4jEngravaCore:
        await self.executor.verify()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @writes
    async def close(self) -> None:
        """Flush the access buffer (best effort) and close the connection."""
        try:
            await self.flush_access_buffer()
        except Exception:  # noqa: BLE001 - a flush failure does not prevent closing
            pass
        await self.executor.close()
