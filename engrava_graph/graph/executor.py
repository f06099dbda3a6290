"""The executor: the one place that sends Cypher to Neo4j.

Every session of one executor shares a bookmark manager, so a read always sees the writes the
executor made before it (causal consistency: on a cluster a reader waits until it has applied
them; on one server it costs nothing). Reads are routed to readers on a ``neo4j://`` cluster.
Three ways a statement travels, by what it needs (round trips counted as the client waits for
the server; records come in one batch, ``fetch_size=-1``):

- :meth:`GraphExecutor.read`: one read statement as an auto-commit transaction: RUN and PULL
  pipelined, **1 round trip**. Transient errors (leader switch, server briefly away) are retried
  here, with exponential back-off up to ``max_transaction_retry_time``: a read has no effects,
  so running it again is safe.
- :meth:`GraphExecutor.write`: one statement in a managed write transaction through the driver's
  ``execute_query`` (BEGIN pipelined with RUN and PULL, then COMMIT): **2 round trips**; the
  driver retries transient errors and the call returns after commit.
- :meth:`GraphExecutor.transaction`: several statements in one managed transaction (BEGIN,
  one per statement, COMMIT).

Records are turned into dicts with ``dict(record)``: the statements return maps, lists and
scalars (never nodes or relationships), so the driver's ``Record.data()`` (a recursive
conversion, 16-18 ms for 30 rows holding 384-float lists) is not needed.

:meth:`GraphExecutor.counting` counts transactions and round trips of the calls made inside a
``with`` block (benchmarks, ``explain``), per task and per executor, so concurrent requests and
other stores do not mix into it.

Statements come from the registry only; on failure we log the statement's name and parameter
keys, never the values (thought content).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, RoutingControl
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from engrava_graph.graph.registry import CypherStatement
from engrava_graph.model.errors import Neo4jUnavailableError

log = logging.getLogger(__name__)
T = TypeVar("T")

Records = list[dict[str, Any]]

_ALL_RECORDS = 2**31 - 1
_FIRST_RETRY_DELAY = 0.05  # seconds before the first retry of a read; doubled each time
_RETRY_JITTER = 0.2  # +- fraction of a retry delay


@dataclass
class RoundTrips:
    """What the executor sent while a :meth:`GraphExecutor.counting` block was open.

    Attributes:
        transactions: transactions begun (auto-commit or managed; a retry is another one).
        round_trips: client-server round trips the caller waited for.
        statements: statements run.
    """

    transactions: int = 0
    round_trips: int = 0
    statements: int = 0


_COUNTERS: ContextVar[tuple[tuple[GraphExecutor, RoundTrips], ...]] = ContextVar(
    "engrava_graph_round_trips", default=()
)
_IN_TRANSACTION: ContextVar[GraphExecutor | None] = ContextVar(
    "engrava_graph_in_transaction", default=None
)


def _unavailable(exc: Exception) -> Neo4jUnavailableError:
    return Neo4jUnavailableError(
        f"Neo4j is not reachable ({type(exc).__name__}); start it with "
        f"`engrava-graph neo4j start` or check NEO4J_URI"
    )


async def _rows(result: neo4j.AsyncResult) -> Records:
    return [dict(record) for record in await result.fetch(_ALL_RECORDS)]


class GraphExecutor:
    """Runs registry statements on one database.

    Args:
        driver: an ``AsyncDriver`` the executor owns (closed by :meth:`close`).
        database: the database name; ``None`` = the server's default database.
        max_transaction_retry_time: seconds :meth:`read` keeps retrying transient errors (the
            driver's own setting of that name bounds the managed transactions).

    Attributes:
        bookmark_manager: shared by all its sessions (read-your-writes across sessions).
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str | None = None,
        *,
        max_transaction_retry_time: float = 15.0,
    ) -> None:
        self.driver = driver
        self.database = database
        self.max_transaction_retry_time = max_transaction_retry_time
        self.bookmark_manager = AsyncGraphDatabase.bookmark_manager()

    def _session(self, *, read: bool = False) -> neo4j.AsyncSession:
        return self.driver.session(
            database=self.database,
            bookmark_manager=self.bookmark_manager,
            fetch_size=-1,
            default_access_mode=neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS,
        )

    @classmethod
    def connect(
        cls,
        uri: str,
        auth: tuple[str, str] | None,
        database: str | None = None,
        *,
        max_connection_pool_size: int = 50,
        connection_timeout: float = 10.0,
        max_transaction_retry_time: float = 15.0,
    ) -> GraphExecutor:
        """Build an executor with a configured connection pool.

        Args:
            uri: ``bolt://`` (one server) or ``neo4j://`` (routing, clusters).
            auth: ``(user, password)`` or None.
            database: the database name or None for the default.
            max_connection_pool_size: connections kept per server.
            connection_timeout: seconds to establish a connection.
            max_transaction_retry_time: seconds a transaction keeps retrying transient errors
                before giving up.
        """
        driver = AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            max_connection_pool_size=max_connection_pool_size,
            connection_timeout=connection_timeout,
            max_transaction_retry_time=max_transaction_retry_time,
            notifications_min_severity="OFF",
        )
        return cls(driver, database, max_transaction_retry_time=max_transaction_retry_time)

    @contextmanager
    def counting(self) -> Iterator[RoundTrips]:
        """Count this executor's transactions and round trips inside the ``with`` block.

        Only calls made by the current task (and tasks it starts inside the block) on this
        executor are counted; blocks may nest (each counter sees what runs inside it).

        Yields:
            A :class:`RoundTrips` updated as statements run.
        """
        counter = RoundTrips()
        token = _COUNTERS.set((*_COUNTERS.get(), (self, counter)))
        try:
            yield counter
        finally:
            _COUNTERS.reset(token)

    def _count(self, *, transactions: int = 0, round_trips: int = 0, statements: int = 0) -> None:
        for executor, counter in _COUNTERS.get():
            if executor is self:
                counter.transactions += transactions
                counter.round_trips += round_trips
                counter.statements += statements

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
        """Run the read statement ``stmt`` (auto-commit, routed to readers, 1 round trip,
        transient errors retried) and return its records as dicts.

        Raises:
            Neo4jUnavailableError: the server stays unreachable for the retry time.
            neo4j.exceptions.Neo4jError: the statement failed (not transiently).
        """
        deadline = time.monotonic() + self.max_transaction_retry_time
        delay = _FIRST_RETRY_DELAY
        while True:
            try:
                return await self._read_once(stmt, params)
            except (Neo4jError, DriverError) as exc:
                if not exc.is_retryable() or time.monotonic() + delay > deadline:
                    if isinstance(exc, ServiceUnavailable | SessionExpired):
                        raise _unavailable(exc) from exc
                    self._log_failure(stmt, params, exc)
                    raise
                log.warning(
                    "read %s failed transiently (%s); retrying in %.2f s",
                    stmt.name,
                    type(exc).__name__,
                    delay,
                )
            await asyncio.sleep(delay * random.uniform(1 - _RETRY_JITTER, 1 + _RETRY_JITTER))
            delay *= 2

    async def _read_once(self, stmt: CypherStatement, params: Mapping[str, Any]) -> Records:
        self._count(transactions=1, round_trips=1, statements=1)
        async with self._session(read=True) as session:
            return await _rows(await session.run(stmt.text, dict(params)))

    async def write(self, stmt: CypherStatement, **params: Any) -> Records:
        """Run ``stmt`` in a managed write transaction (2 round trips, transient errors retried
        by the driver); returns its records as dicts after commit.

        Raises:
            Neo4jUnavailableError: the server stays unreachable for the retry time.
            neo4j.exceptions.Neo4jError: the statement failed (not transiently).
        """

        async def transform(result: neo4j.AsyncResult) -> Records:
            self._count(transactions=1, round_trips=2, statements=1)  # per attempt
            return await _rows(result)

        try:
            return await self.driver.execute_query(
                stmt.text,
                dict(params),
                routing_=RoutingControl.WRITE,
                database_=self.database,
                bookmark_manager_=self.bookmark_manager,
                result_transformer_=transform,
            )
        except (ServiceUnavailable, SessionExpired) as exc:
            raise _unavailable(exc) from exc
        except Neo4jError as exc:
            self._log_failure(stmt, params, exc)
            raise

    async def run_auto_commit(self, stmt: CypherStatement, **params: Any) -> Records:
        """Run ``stmt`` as an implicit transaction: needed for ``CALL { … } IN TRANSACTIONS``
        and for schema statements that must not share a transaction. Not retried."""
        self._count(transactions=1, round_trips=1, statements=1)
        try:
            async with self._session() as session:
                return await _rows(await session.run(stmt.text, dict(params)))
        except (ServiceUnavailable, SessionExpired) as exc:
            raise _unavailable(exc) from exc

    async def transaction(
        self, work: Callable[[AsyncManagedTransaction], Awaitable[T]], *, write: bool = True
    ) -> T:
        """Run ``work(tx)`` as one managed transaction (several statements, one commit).

        ``work`` may be retried on transient errors, so it must not have side effects outside
        the transaction. Use :func:`run_in` inside it.
        """

        async def counted(tx: AsyncManagedTransaction) -> T:
            self._count(transactions=1, round_trips=2)  # BEGIN and COMMIT, per attempt
            token = _IN_TRANSACTION.set(self)
            try:
                return await work(tx)
            finally:
                _IN_TRANSACTION.reset(token)

        try:
            async with self._session(read=not write) as session:
                fn = session.execute_write if write else session.execute_read
                return await fn(counted)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise _unavailable(exc) from exc

    @staticmethod
    def _log_failure(stmt: CypherStatement, params: Mapping[str, Any], exc: Exception) -> None:
        log.debug(
            "statement %s failed (%s); parameter keys %s",
            stmt.name,
            getattr(exc, "code", type(exc).__name__),
            sorted(params),
        )

    async def close(self) -> None:
        """Close the driver and its pool."""
        await self.driver.close()


async def run_in(tx: AsyncManagedTransaction, stmt: CypherStatement, **params: Any) -> Records:
    """Run one registry statement inside an open managed transaction (1 round trip)."""
    executor = _IN_TRANSACTION.get()
    if executor is not None:
        executor._count(round_trips=1, statements=1)
    return await _rows(await tx.run(stmt.text, dict(params)))
