"""The executor: the one place that sends Cypher to Neo4j.

Reads and writes run as managed transactions (``execute_read`` / ``execute_write``), so the driver
retries transient errors (leader switches, deadlocks) and a write returns only after commit.
Reads are routed to readers on a ``neo4j://`` cluster, and every session of one executor shares a
bookmark manager, so a read always sees the writes the executor made before it (causal
consistency: on a cluster a reader waits until it has applied them; on one server it costs
nothing). Statements come from the registry only;
on failure we log the statement's name and parameter keys, never the values (thought content).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from engrava_graph.graph.registry import CypherStatement
from engrava_graph.model.errors import Neo4jUnavailableError

log = logging.getLogger(__name__)
T = TypeVar("T")

Records = list[dict[str, Any]]


def _unavailable(exc: Exception) -> Neo4jUnavailableError:
    return Neo4jUnavailableError(
        f"Neo4j is not reachable ({type(exc).__name__}); start it with "
        f"`engrava-graph neo4j start` or check NEO4J_URI"
    )


async def _run(tx: AsyncManagedTransaction, stmt: CypherStatement,
               params: Mapping[str, Any]) -> Records:
    result = await tx.run(stmt.text, dict(params))
    # dict(record), not Record.data(): the statements return maps, lists and scalars, never
    # nodes or relationships, and data()'s recursive conversion costs ~0.5 ms per 384-float row.
    return [dict(record) for record in await result.fetch(2**31 - 1)]


class GraphExecutor:
    """Runs registry statements on one database with managed transactions.

    Args:
        driver: an ``AsyncDriver`` the executor owns (closed by :meth:`close`).
        database: the database name; ``None`` = the server's default database.

    Attributes:
        bookmark_manager: shared by all its sessions (read-your-writes across sessions).
    """

    def __init__(self, driver: AsyncDriver, database: str | None = None) -> None:
        self.driver = driver
        self.database = database
        self.bookmark_manager = AsyncGraphDatabase.bookmark_manager()

    def _session(self) -> neo4j.AsyncSession:
        return self.driver.session(database=self.database,
                                   bookmark_manager=self.bookmark_manager)

    @classmethod
    def connect(cls, uri: str, auth: tuple[str, str] | None, database: str | None = None, *,
                max_connection_pool_size: int = 50, connection_timeout: float = 10.0,
                max_transaction_retry_time: float = 15.0) -> GraphExecutor:
        """Build an executor with a configured connection pool.

        Args:
            uri: ``bolt://`` (one server) or ``neo4j://`` (routing, clusters).
            auth: ``(user, password)`` or None.
            database: the database name or None for the default.
            max_connection_pool_size: connections kept per server.
            connection_timeout: seconds to establish a connection.
            max_transaction_retry_time: seconds a managed transaction keeps retrying transient
                errors before giving up.
        """
        driver = AsyncGraphDatabase.driver(
            uri, auth=auth, max_connection_pool_size=max_connection_pool_size,
            connection_timeout=connection_timeout,
            max_transaction_retry_time=max_transaction_retry_time,
            notifications_min_severity="OFF",
        )
        return cls(driver, database)

    async def verify(self) -> None:
        """Check connectivity.

        Raises:
            Neo4jUnavailableError: the server does not answer.
        """
        try:
            await self.driver.verify_connectivity()
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise _unavailable(exc) from exc

    async def read(self, stmt: CypherStatement, **params: Any) -> Records:
        """Run ``stmt`` in a read transaction (routed to readers) and return its records as dicts."""
        return await self._execute(stmt, params, write=False)

    async def write(self, stmt: CypherStatement, **params: Any) -> Records:
        """Run ``stmt`` in a write transaction; returns after commit."""
        return await self._execute(stmt, params, write=True)

    async def run_auto_commit(self, stmt: CypherStatement, **params: Any) -> Records:
        """Run ``stmt`` as an implicit transaction: needed for ``CALL { … } IN TRANSACTIONS``
        and for schema statements that must not share a transaction."""
        try:
            async with self._session() as session:
                result = await session.run(stmt.text, params)
                return [dict(r) for r in await result.fetch(2**31 - 1)]
        except (ServiceUnavailable, SessionExpired) as exc:
            raise _unavailable(exc) from exc

    async def transaction(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]], *,
                          write: bool = True) -> T:
        """Run ``work(tx)`` as one managed transaction (several statements, one commit).

        ``work`` may be retried on transient errors, so it must not have side effects outside
        the transaction. Use :func:`run_in` inside it.
        """
        try:
            async with self._session() as session:
                fn = session.execute_write if write else session.execute_read
                return await fn(work)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise _unavailable(exc) from exc

    async def _execute(self, stmt: CypherStatement, params: Mapping[str, Any], *,
                       write: bool) -> Records:
        try:
            return await self.transaction(lambda tx: _run(tx, stmt, params), write=write)
        except neo4j.exceptions.Neo4jError as exc:
            log.debug("statement %s failed (%s); parameter keys %s", stmt.name, exc.code,
                      sorted(params))
            raise

    async def close(self) -> None:
        """Close the driver and its pool."""
        await self.driver.close()


async def run_in(tx: AsyncManagedTransaction, stmt: CypherStatement, **params: Any) -> Records:
    """Run one registry statement inside an open managed transaction."""
    return await _run(tx, stmt, params)
