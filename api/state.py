"""What the running service holds: settings, keys, one Neo4j connection, per-namespace stores,
and the background jobs. Built by the app's lifespan (:meth:`ApiState.open`), closed on shutdown.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from api.auth import KeyRing
from api.jobs import JobRegistry
from api.settings import ApiSettings
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings.base import EmbeddingProvider
from engrava_graph.graph import schema
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.model.errors import SchemaVersionError

_PING = cypher("hygiene/ping")
STORES_CACHED = 1024
"""Per-namespace store objects kept (they are cheap; the connection is shared)."""
SEEN_EXISTING_SECONDS = 5.0
"""How long a read takes a namespace found to exist as existing without reading it again: one
existence read per namespace every 5 s instead of one per request (a round trip and a
fifteenth of a retrieve's client CPU under load). A namespace deleted meanwhile by another
process answers reads as empty instead of 404 until then; writes and a namespace not found
are always read afresh."""


class ApiState:
    """The service's shared objects.

    Args:
        settings: the configuration.
        keyring: the API keys.
        base: the store of the default namespace; every other store shares its connection,
            embedding provider and options (:meth:`Neo4jEngravaCore.for_namespace`).
        jobs: the background job registry.
    """

    def __init__(
        self, settings: ApiSettings, keyring: KeyRing, base: Neo4jEngravaCore, jobs: JobRegistry
    ) -> None:
        self.settings = settings
        self.keyring = keyring
        self.base = base
        self.jobs = jobs
        self._stores: OrderedDict[str, Neo4jEngravaCore] = OrderedDict()
        self._seen_existing: dict[str, float] = {}

    @classmethod
    async def open(
        cls, settings: ApiSettings, keyring: KeyRing, provider: EmbeddingProvider | None
    ) -> ApiState:
        """Connect to Neo4j with the configured pool and timeouts, then migrate the schema
        (``migrate_on_start``) or check that it is current, and warm the embedding model up.

        Raises:
            Neo4jUnavailableError: Neo4j does not answer.
            SchemaVersionError: the schema is not current and ``migrate_on_start`` is off.
            EmbeddingDimensionMismatchError: the provider and the vector index disagree.
            EmbeddingError: the provider fails to embed the warm-up text.
        """
        info = settings.connection()
        executor = GraphExecutor.connect(
            info.uri,
            (info.user, info.password),
            info.database,
            max_connection_pool_size=settings.neo4j_max_pool_size,
            connection_timeout=settings.neo4j_connection_timeout,
            max_transaction_retry_time=settings.neo4j_max_transaction_retry_time,
        )
        base = Neo4jEngravaCore(executor, embedding_provider=provider, time_config=settings.time)
        try:
            await executor.verify()
            if settings.migrate_on_start:
                await base.ensure_schema()
            else:
                await _check_schema(executor)
            await base.embed_query("warm-up")  # loads the model, off the loop; no-op without one
        except BaseException:
            await executor.close()
            raise
        return cls(settings, keyring, base, JobRegistry(settings.dream_jobs_kept))

    def store(self, namespace: str) -> Neo4jEngravaCore:
        """The store of ``namespace`` (validated by the caller), on the shared connection."""
        store = self._stores.get(namespace)
        if store is None:
            store = self.base.for_namespace(namespace)
            self._stores[namespace] = store
            if len(self._stores) > STORES_CACHED:
                self._stores.popitem(last=False)
        else:
            self._stores.move_to_end(namespace)
        return store

    async def namespace_exists(self, store: Neo4jEngravaCore, *, for_read: bool) -> bool:
        """Whether ``store``'s namespace is registered; a read may take a yes read in the last
        :data:`SEEN_EXISTING_SECONDS` (a write, and a no, are read now)."""
        now = time.monotonic()
        seen = self._seen_existing.get(store.namespace)
        if for_read and seen is not None and now - seen <= SEEN_EXISTING_SECONDS:
            return True
        exists = await store.namespace_exists()
        if exists:
            if len(self._seen_existing) >= STORES_CACHED:
                self._seen_existing.clear()
            self._seen_existing[store.namespace] = now
        else:
            self._seen_existing.pop(store.namespace, None)
        return exists

    async def ready(self) -> int:
        """Check that Neo4j answers and the schema is current; return the schema version.

        Raises:
            Neo4jUnavailableError: Neo4j does not answer.
            SchemaVersionError: the schema is missing or of another version.
        """
        await self.base.executor.read(_PING)
        return await _check_schema(self.base.executor)

    async def close(self) -> None:
        """Stop the jobs and close the connection."""
        await self.jobs.close()
        await self.base.executor.close()


async def _check_schema(executor: GraphExecutor) -> int:
    version = await schema.schema_version(executor)
    if version != schema.SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the graph's schema version is {version}, this service needs "
            f"{schema.SCHEMA_VERSION}: start the service with ENGRAVA_MIGRATE_ON_START=true (the "
            f"default) to migrate it"
        )
    return version
