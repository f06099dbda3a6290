"""Retrieve latency against its floor and the peer, methods taking turns query by query.

Two corpora, each in one namespace of the Neo4j from ``NEO4J_URI`` (else the project's
resolution order):

- ``locomo``: one LoCoMo conversation (``--conversation``, a tuning one; default ``conv-42``)
  stored as an agent stores a chat: every turn once through ``add_messages`` (about 650
  thoughts with their sessions, linked ``MESSAGE_OF``), questions = its QA items;
- ``synthetic``: ``--thoughts`` (default 100,000) thoughts of the synthetic corpus the other
  benchmarks use (:class:`_common.CorpusGenerator`, vectors cached in ``--cache``), unseen
  queries from the same generator.

For every query, in a rotating order, each method runs once:

- ``retrieve``: ``store.retrieve(q, top_k=10, now=…)`` (embeds the question itself);
- ``search_hybrid``: ``store.search_hybrid(q, top_k=10)`` (embeds it too);
- ``floor``: the provider's embedding of the question + one bare
  ``db.index.vector.queryNodes('thought_embedding', 10, $v)`` (``cypher/bench/vector_floor``)
  through the same executor;
- ``embed``: the embedder alone (``provider.embed([q])``);
- ``peer``: the peer ``engrava`` ``search_hybrid(q, top_k=10)`` on a SQLite copy of the same
  thoughts (and edges) and the very vectors our store holds, embedding the question with its
  own provider (same model files);
  at most ``--peer-queries`` queries (it scans every vector in NumPy: seconds at 100,000).

The embedding cache is off (``cache_size=0``), so no method profits from another's embedding.
Printed per corpus: p50/p95/p99 (ms), each method's p50 over the floor's, the median of each
of ``retrieve``'s phases (its ``phase_timings``), transactions and round trips per call
(``GraphExecutor.counting``), and the load average before and after.

Run::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_retrieve.py --json retrieve.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from _common import (
    CorpusGenerator,
    ThoughtSpec,
    fill_synthetic_namespace,
    loadavg,
    machine_info,
    open_peer_store,
    peer_provider,
    peer_record,
    peer_store_vectors,
    percentiles,
    quiet_runtime,
)

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.ingest import IngestMode, ingest_conversation
from engrava_graph.demo.locomo import Conversation, load_dataset
from engrava_graph.demo.peer import open_peer_copy
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import ConnectionInfo, resolve_connection
from engrava_graph.graph.params import vector_param
from engrava_graph.graph.registry import cypher

console = Console(stderr=True)
FLOOR = cypher("bench/vector_floor")
METHODS = ("retrieve", "search_hybrid", "floor", "embed", "peer")
LOCOMO_FILE = Path("/work/shared/data/locomo/locomo7.json")


def locomo_conversation(path: Path, conversation: str) -> tuple[Conversation, list[str], datetime]:
    """One LoCoMo conversation, its distinct questions and the date of its last session (the
    ``now`` of retrieve)."""
    conv = next(c for c in load_dataset(path) if c.sample_id == conversation)
    questions = list(dict.fromkeys(q.question for q in conv.questions))
    return conv, questions, conv.last_date or datetime.now(UTC)


async def fill_peer(
    store: Any, specs: list[ThoughtSpec], vectors: np.ndarray, model_name: str
) -> None:
    """The peer store gets the same texts and the same corpus vectors."""
    for start in range(0, len(specs), 5000):
        part = specs[start : start + 5000]
        await store.bulk_store([peer_record(s) for s in part])
        await peer_store_vectors(
            store, [s.thought_id for s in part], vectors[start : start + 5000], model_name
        )


async def measure(
    store: Neo4jEngravaCore, peer: Any, queries: list[str], now: datetime, args: argparse.Namespace
) -> dict[str, Any]:
    """Every method once per query, in rotating order; latencies, phases, round trips."""
    provider = store.embedding_provider
    executor = store.executor

    async def floor(q: str) -> Any:
        vector = await store.embed_query(q)
        return await executor.read(FLOOR, vector=vector_param(vector), k=10)

    calls: dict[str, Callable[[str], Awaitable[Any]]] = {
        "retrieve": lambda q: store.retrieve(q, top_k=10, now=now),
        "search_hybrid": lambda q: store.search_hybrid(q, top_k=10),
        "floor": floor,
        "embed": lambda q: asyncio.to_thread(provider.embed, [q]),
        "peer": lambda q: peer.search_hybrid(q, top_k=10),
    }
    laps: dict[str, list[float]] = {m: [] for m in METHODS}
    trips: dict[str, list[tuple[int, int]]] = {m: [] for m in METHODS}
    phases: list[dict[str, float]] = []
    for q in queries[: args.warmup]:
        for method in METHODS:
            await calls[method](q)
    before = loadavg()
    for i, q in enumerate(queries[args.warmup : args.warmup + args.queries]):
        order = METHODS[i % len(METHODS) :] + METHODS[: i % len(METHODS)]
        for method in order:
            if method == "peer" and len(laps["peer"]) >= args.peer_queries:
                continue
            with executor.counting() as counter:
                began = time.perf_counter()
                out = await calls[method](q)
                laps[method].append((time.perf_counter() - began) * 1000.0)
            trips[method].append((counter.transactions, counter.round_trips))
            if method == "retrieve":
                phases.append(out.phase_timings)
    return {
        "queries": len(laps["retrieve"]),
        "loadavg_before": before,
        "loadavg_after": loadavg(),
        "latency_ms": {m: percentiles(laps[m]) for m in METHODS},
        "transactions_per_call": {
            m: float(np.mean([t for t, _ in trips[m]])) if trips[m] else float("nan")
            for m in METHODS
        },
        "round_trips_per_call": {
            m: float(np.mean([r for _, r in trips[m]])) if trips[m] else float("nan")
            for m in METHODS
        },
        "retrieve_phase_p50_ms": {
            k: float(np.median([p.get(k, 0.0) for p in phases]))
            for k in (phases[0] if phases else {})
        },
    }


async def run_corpus(
    info: ConnectionInfo,
    name: str,
    specs: list[ThoughtSpec],
    queries: list[str],
    now: datetime,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Load the synthetic ``specs`` into our store and the peer's, then :func:`measure`."""
    namespace = f"{args.namespace}-{name}"
    peer_prov = peer_provider()
    async with _open_store(info, namespace) as store:
        cache = Path(args.cache) / f"dream-corpus-s{args.seed}.npy"
        load_s = await fill_synthetic_namespace(store, specs, cache, args.chunk, console.print)
        vectors = np.load(cache)[: len(specs)]
        with tempfile.TemporaryDirectory() as tmp:
            async with open_peer_store(
                Path(tmp) / "peer.db", embedding_provider=peer_prov, auto_embed=False
            ) as peer:
                console.print(f"filling the peer with {len(specs)} thoughts")
                await fill_peer(peer, specs, vectors, peer_prov.model_name)
                console.print(f"measuring {name}")
                figures = await measure(store, peer, queries, now, args)
        if not args.keep:
            await store.delete_namespace()
    return {"corpus": name, "thoughts": len(specs), "load_seconds": round(load_s, 1), **figures}


async def run_conversation(
    info: ConnectionInfo,
    conversation: Conversation,
    queries: list[str],
    now: datetime,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Store ``conversation`` through ``add_messages`` (reused when the namespace already holds
    it), copy the namespace into the peer, then :func:`measure`."""
    namespace = f"{args.namespace}-locomo-{conversation.sample_id}"
    async with _open_store(info, namespace) as store:
        ingest = await ingest_conversation(store, conversation, mode=IngestMode.TURNS)
        thoughts = await store.count_thoughts()
        console.print(f"{ingest.status.value}: {thoughts} thoughts in {namespace!r}")
        async with open_peer_copy(store, conversation.sample_id) as peer:
            console.print("measuring locomo")
            figures = await measure(store, peer.core, queries, now, args)
        if not args.keep:
            await store.delete_namespace()
    return {
        "corpus": "locomo",
        "conversation": conversation.sample_id,
        "thoughts": thoughts,
        "load_seconds": round(ingest.seconds, 1),
        **figures,
    }


@asynccontextmanager
async def _open_store(info: ConnectionInfo, namespace: str) -> AsyncIterator[Neo4jEngravaCore]:
    """Our store on ``namespace``, its provider's query cache off, its schema ensured (the
    benchmark may be the first to use the database)."""
    async with Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        namespace=namespace,
        embedding_provider=SentenceTransformerProvider(cache_size=0),
    ) as store:
        await store.ensure_schema()
        yield store


def render(result: dict[str, Any]) -> None:
    lat = result["latency_ms"]
    floor = lat["floor"]["p50"]
    table = Table(
        title=f"{result['corpus']}: {result['thoughts']} thoughts, "
        f"{result['queries']} queries, load {result['loadavg_before']} -> "
        f"{result['loadavg_after']}"
    )
    for column in (
        "method",
        "n",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "p50 / floor",
        "tx/call",
        "round trips/call",
    ):
        table.add_column(column, justify="left" if column == "method" else "right")
    for m in METHODS:
        s = lat[m]
        table.add_row(
            m,
            str(s["n"]),
            f"{s['p50']:.1f}",
            f"{s['p95']:.1f}",
            f"{s['p99']:.1f}",
            f"{s['p50'] / floor:.2f}",
            f"{result['transactions_per_call'][m]:.1f}",
            f"{result['round_trips_per_call'][m]:.1f}",
        )
    console.print(table)
    console.print(
        "retrieve phases, median ms: "
        + ", ".join(f"{k} {v:.1f}" for k, v in result["retrieve_phase_p50_ms"].items())
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpora", nargs="+", choices=("locomo", "synthetic"), default=["locomo", "synthetic"]
    )
    parser.add_argument(
        "--conversation", default="conv-42", help="a tuning conversation (conv-42: 629 turns)"
    )
    parser.add_argument("--locomo", type=Path, default=LOCOMO_FILE)
    parser.add_argument("--thoughts", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--peer-queries", type=int, default=200, help="at most this many peer calls per corpus"
    )
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=5000, help="thoughts per bulk_store call")
    parser.add_argument("--namespace", default="bench-retrieve")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the namespaces afterwards")
    parser.add_argument(
        "--cache",
        default=tempfile.gettempdir(),
        help="directory of cached corpus vectors (.npy, shared with the other benchmarks)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    quiet_runtime()

    info = resolve_connection(start_local=False)
    results = []
    for name in args.corpora:
        if name == "locomo":
            conversation, queries, now = locomo_conversation(args.locomo, args.conversation)
            result = asyncio.run(run_conversation(info, conversation, queries, now, args))
        else:
            generator = CorpusGenerator(seed=args.seed)
            specs = generator.thoughts(args.thoughts)
            queries = generator.queries(args.queries + args.warmup, exclude={s.text for s in specs})
            now = datetime.now(UTC)
            result = asyncio.run(run_corpus(info, name, specs, queries, now, args))
        render(result)
        results.append(result)
    report = {"results": results, "machine": machine_info()}
    print(json.dumps(report, indent=2, default=str))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
