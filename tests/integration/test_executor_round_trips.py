"""The executor's round-trip counter: what each kind of call costs, and that a counter sees only
its own task's calls on its own executor."""

from __future__ import annotations

import asyncio

from engrava_graph.graph.executor import GraphExecutor, RoundTrips, run_in
from engrava_graph.graph.registry import cypher

PING = cypher("hygiene/ping")


async def test_a_read_is_one_round_trip_and_rows_are_plain_dicts(executor: GraphExecutor):
    with executor.counting() as counter:
        rows = await executor.read(PING)
    assert rows == [{"ok": 1}] and type(rows[0]) is dict
    assert counter == RoundTrips(transactions=1, round_trips=1, statements=1)


async def test_a_transaction_counts_begin_each_statement_and_commit(executor: GraphExecutor):
    async def work(tx):
        await run_in(tx, PING)
        return await run_in(tx, PING)

    with executor.counting() as counter:
        await executor.transaction(work, write=False)
    assert counter == RoundTrips(transactions=1, round_trips=4, statements=2)


async def test_counters_do_not_see_other_tasks_or_executors(executor: GraphExecutor):
    other = GraphExecutor(executor.driver, executor.database)  # same pool, another executor
    started, release = asyncio.Event(), asyncio.Event()

    async def elsewhere() -> None:
        started.set()
        await release.wait()
        await executor.read(PING)

    task = asyncio.create_task(elsewhere())  # created outside the block: not counted
    await started.wait()
    with executor.counting() as outer, other.counting() as foreign:
        release.set()
        await task
        with executor.counting() as inner:
            await executor.read(PING)
        await other.read(PING)
    assert inner.round_trips == 1
    assert outer.round_trips == 1
    assert foreign.round_trips == 1
