"""Profile what a piece of work asks of Neo4j: every read runs under ``PROFILE``.

:class:`ProfilingExecutor` is a :class:`~engrava_graph.graph.executor.GraphExecutor` whose reads
prepend ``PROFILE`` and record, per statement run, the database hits summed over the plan's
operators, the rows returned and the server's time (``summary.profile``; Neo4j Cypher manual,
"Execution plans and query tuning"). Writes run unchanged. Give it to a store
(``Neo4jEngravaCore(ProfilingExecutor.connect(...))``), run one ``retrieve``, read
:attr:`ProfilingExecutor.profiled`. :func:`browser_params` turns a run's parameters into a
``:params`` block to paste into Neo4j Browser before the statement.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from typing import Any

from neo4j import AsyncManagedTransaction

from engrava_graph.graph.executor import GraphExecutor, Records
from engrava_graph.graph.registry import CypherStatement


@dataclass(frozen=True)
class ProfiledRun:
    """One read statement run under ``PROFILE``.

    Attributes:
        name: the registry name, e.g. ``"retrieval/activate_index"``.
        text: the Cypher that ran (without ``PROFILE``).
        params: the parameters it ran with.
        db_hits: database hits summed over every operator of the plan.
        rows: rows the statement returned.
        server_ms: the server's time to first record plus to consume them all, milliseconds.
        wall_ms: the client's time for the whole transaction, milliseconds.
    """

    name: str
    text: str
    params: dict[str, Any]
    db_hits: int
    rows: int
    server_ms: float
    wall_ms: float


def plan_db_hits(plan: Mapping[str, Any] | None) -> int:
    """Database hits of a ``summary.profile`` plan, its children's included (0 for None)."""
    if not plan:
        return 0
    own = int(plan.get("dbHits", 0) or 0)
    return own + sum(plan_db_hits(child) for child in plan.get("children", ()))


class ProfilingExecutor(GraphExecutor):
    """A :class:`GraphExecutor` that runs each :meth:`read` under ``PROFILE`` and records it.

    Attributes:
        profiled: one :class:`ProfiledRun` per read, in the order they ran.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # the executor's own arguments, unchanged
        self.profiled: list[ProfiledRun] = []

    async def read(self, stmt: CypherStatement, **params: Any) -> Records:
        """Run ``stmt`` under ``PROFILE`` in a read transaction; return its records as dicts."""

        async def work(tx: AsyncManagedTransaction) -> tuple[Records, Any]:
            result = await tx.run(f"PROFILE {stmt.text}", dict(params))
            records = [dict(record) for record in await result.fetch(2**31 - 1)]  # as the executor
            return records, await result.consume()

        started = time.perf_counter()
        records, summary = await self.transaction(work, write=False)
        wall_ms = (time.perf_counter() - started) * 1000.0
        server_ms = float(
            (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
        )
        self.profiled.append(
            ProfiledRun(
                name=stmt.name,
                text=stmt.text,
                params=dict(params),
                db_hits=plan_db_hits(summary.profile),
                rows=len(records),
                server_ms=server_ms,
                wall_ms=wall_ms,
            )
        )
        return records


def cypher_literal(value: Any) -> str:
    """``value`` written as a Cypher expression (for a Browser ``:params`` block).

    Strings are single-quoted with ``\\`` and ``'`` escaped; datetimes become ``datetime('…')``
    (dates ``date('…')``); enums their value; lists, tuples and arrays (anything with
    ``tolist()``) lists; mappings maps with back-quoted keys; NaN and infinities
    ``toFloat('NaN')`` / ``toFloat('Infinity')`` / ``-toFloat('Infinity')``.

    Raises:
        TypeError: a value of another type.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return cypher_literal(value.value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "toFloat('NaN')"
        if math.isinf(value):
            return "toFloat('Infinity')" if value > 0 else "-toFloat('Infinity')"
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, datetime):
        return f"datetime('{value.isoformat()}')"
    if isinstance(value, date):
        return f"date('{value.isoformat()}')"
    if isinstance(value, Mapping):
        items = ", ".join(
            f"`{str(k).replace('`', '``')}`: {cypher_literal(v)}" for k, v in value.items()
        )
        return "{" + items + "}"
    if hasattr(value, "tolist"):
        return cypher_literal(value.tolist())
    if isinstance(value, list | tuple | set | frozenset):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    raise TypeError(f"no Cypher literal for {type(value).__name__}")


def browser_params(params: Mapping[str, Any]) -> str:
    """A Neo4j Browser command that sets exactly ``params``: ``:params {`a`: 1, …}``."""
    return f":params {cypher_literal(params)}"
