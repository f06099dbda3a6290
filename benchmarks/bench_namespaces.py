"""Namespace benchmark: does scoping cost anything? One namespace of N thoughts vs M of N/M.

The same N synthetic thoughts (same texts, same all-MiniLM-L6-v2 vectors, cached across runs)
are stored in two layouts, both kept stored while measuring, so each is measured on the same
database (2N benchmark thoughts plus whatever else the server holds, reported):

- ``1 x N``: one namespace holds all N;
- ``M x N/M``: thought i goes to namespace ``i // (N/M)``; query j asks namespace ``j mod M``.

It times ``bulk_store`` per layout (vectors given, one transaction per chunk), then
``retrieve`` (the retrieval cycle, query embedding included, as a caller sees it) and
``search_hybrid`` (precomputed query vector: the store alone) over the same unseen queries
after warm-up, the layouts taking turns query by query so that drifting load on a shared
machine hits both alike; retrieve also without spreading (``spread_depth=0``), and its median
per phase, because spreading expands hub entities less (``max_entity_fanout``) and a small
namespace has fewer of them than a large one. It counts results of the M-namespace layout that
come from another namespace (must be 0). The M-namespace layout is also timed with the vector
arm forced onto the HNSW index (``exact_vector_max_thoughts=0``): a small namespace is normally
searched by exact cosine, because Neo4j 5.26's vector index ranks the whole database before any
namespace filter.

The peer ``engrava`` has no namespaces; its way to keep agents apart is one SQLite file each,
so beside ours it runs ``search_hybrid`` on one file of N vs M files of N/M (same vectors).

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``, else the project's resolution)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_namespaces.py --total 100000 \\
        --namespaces 100 --queries 200 --private-server --json bench_namespaces.json

``--private-server`` runs ours on a fresh, empty local Neo4j started for the run: figures then
do not depend on what else the server holds, nor on vectors earlier runs deleted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack, ExitStack
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from _common import (  # noqa: E402
    CorpusGenerator,
    Query,
    Stopwatch,
    ThoughtSpec,
    cached_vectors,
    chunks,
    fresh_local_neo4j,
    loadavg,
    machine_info,
    open_peer_store,
    our_record,
    peer_record,
    peer_store_vectors,
    quiet_runtime,
    rate,
    timed_queries,
)

from engrava_graph.core import Neo4jEngravaCore  # noqa: E402
from engrava_graph.embeddings import SentenceTransformerProvider  # noqa: E402
from engrava_graph.graph.connection import resolve_connection  # noqa: E402
from engrava_graph.graph.registry import cypher  # noqa: E402
from engrava_graph.search.fusion import SearchConfig  # noqa: E402

console = Console(width=max(Console().width, 130))
PEER_MODEL = "all-MiniLM-L6-v2"
TOP_K = 10

# ----------------------------------------------------------------------------------- ours


class OurLayout:
    """One layout of the corpus over ``len(stores)`` namespaces of equal size.

    Args:
        stores: one store per namespace (same connection); thought i lives in
            ``stores[i // per_namespace]``.
        specs: the corpus.
    """

    def __init__(self, stores: list[Neo4jEngravaCore], specs: list[ThoughtSpec]) -> None:
        self.stores = stores
        self.specs = specs
        self.per_namespace = len(specs) // len(stores)
        self.label = f"{len(stores)} x {self.per_namespace:,}"
        self.owner = {s.thought_id: i // self.per_namespace for i, s in enumerate(specs)}

    def with_search_config(self, config: SearchConfig) -> OurLayout:
        """The same namespaces through stores with another search configuration."""
        return OurLayout(
            [
                Neo4jEngravaCore(
                    s.executor,
                    namespace=s.namespace,
                    embedding_provider=s.embedding_provider,
                    search_config=config,
                )
                for s in self.stores
            ],
            self.specs,
        )

    def store_for(self, j: int) -> Neo4jEngravaCore:
        """The store (namespace) that query ``j`` asks: ``j mod`` the number of namespaces."""
        return self.stores[j % len(self.stores)]

    def foreign(self, j: int, ids: Sequence[str]) -> int:
        """How many of ``ids`` (the answer to query ``j``) belong to another namespace."""
        k = j % len(self.stores)
        return sum(1 for tid in ids if self.owner.get(tid, k) != k)


async def ingest(
    layout: OurLayout, specs: list[ThoughtSpec], vectors: np.ndarray, chunk: int
) -> Stopwatch:
    """``bulk_store`` every thought into its namespace, ``chunk`` per transaction."""
    sw = Stopwatch()
    for k, store in enumerate(layout.stores):
        await store.ensure_namespace()
        lo = k * layout.per_namespace
        for a, b in chunks(layout.per_namespace, chunk):
            records = [our_record(s) for s in specs[lo + a : lo + b]]
            given = vectors[lo + a : lo + b].tolist()
            with sw:
                await store.bulk_store(records, embeddings=given)
    return sw


async def bench_ours(
    layouts: list[OurLayout],
    specs: list[ThoughtSpec],
    vectors: np.ndarray,
    queries: list[str],
    qvecs: np.ndarray,
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    """Ingest the corpus once per layout (both stay stored, so every layout is measured on the
    same database), time ``retrieve`` and ``search_hybrid`` on all layouts side by side (and
    hybrid with the vector index forced on layouts of several namespaces), delete them all.
    One row per layout and operation."""
    base: list[dict[str, Any]] = []
    foreign = [0] * len(layouts)
    rows: list[tuple[int, dict[str, Any]]] = []  # (layout index, row)
    try:
        for layout in layouts:
            console.print(f"  ours {layout.label}: storing {len(specs):,} thoughts")
            sw = await ingest(layout, specs, vectors, args.chunk_size)
            base.append(
                {
                    "system": "engrava-graph (Neo4j)",
                    "layout": layout.label,
                    "namespaces": len(layout.stores),
                    "per_namespace": layout.per_namespace,
                    "ingest_s": sw.total,
                    "ingest_tps": rate(len(specs), sw.total),
                }
            )
        counts = (
            await layouts[0]
            .stores[0]
            .executor.read(
                cypher("namespaces/count_thoughts"), namespace=layouts[0].stores[0].namespace
            )
        )[0]

        phases: list[list[dict[str, float]]] = [[] for _ in layouts]

        def retrieve_on(i: int, on: OurLayout, **params: Any) -> Query:
            async def ask(j: int) -> list[str]:
                response = await on.store_for(j).retrieve(queries[j], top_k=TOP_K, **params)
                if not params:
                    phases[i].append(
                        {
                            **response.phase_timings,
                            "candidates_activated": response.candidates_activated,
                            "candidates_after_spread": response.candidates_after_spread,
                        }
                    )
                ids = [m.thought_id for m in response.results]
                foreign[i] += on.foreign(j, ids)
                return ids

            return ask

        def hybrid_on(i: int, on: OurLayout) -> Query:
            async def ask(j: int) -> list[str]:
                res = await on.store_for(j).search_hybrid(
                    queries[j], query_vector=qvecs[j].tolist(), top_k=TOP_K
                )
                ids = [tid for tid, _ in res.results]
                foreign[i] += on.foreign(j, ids)
                return ids

            return ask

        index_only = SearchConfig(exact_vector_max_thoughts=0)
        forced = [
            (i, layout.with_search_config(index_only))
            for i, layout in enumerate(layouts)
            if len(layout.stores) > 1
        ]
        plans = [
            ("retrieve", [(i, lay, retrieve_on(i, lay)) for i, lay in enumerate(layouts)]),
            (
                "retrieve (spread_depth=0)",
                [(i, lay, retrieve_on(i, lay, spread_depth=0)) for i, lay in enumerate(layouts)],
            ),
            ("search_hybrid", [(i, lay, hybrid_on(i, lay)) for i, lay in enumerate(layouts)]),
            ("search_hybrid (index forced)", [(i, lay, hybrid_on(i, lay)) for i, lay in forced]),
        ]
        for operation, runs in plans:
            if not runs:
                continue
            console.print(f"  ours: {operation} on {', '.join(lay.label for _, lay, _ in runs)}")
            stats = await timed_queries([ask for _, _, ask in runs], args.queries, args.warmup)
            for (i, lay, _), st in zip(runs, stats, strict=True):
                plan = await lay.stores[0]._arms._plan(TOP_K)  # private: which vector arm ran
                row = {
                    **base[i],
                    "operation": operation,
                    "latency_ms": st,
                    "vector_arm": f"{plan.strategy} (fetch_k={plan.fetch_k})",
                    "thoughts_in_database": int(counts["in_database"]),
                }
                if operation == "retrieve":  # medians over timed and warm-up runs alike
                    row["retrieve_medians"] = {
                        key: float(np.median([p[key] for p in phases[i]])) for key in phases[i][0]
                    }
                rows.append((i, row))
    finally:
        for i, layout in enumerate(layouts):
            t0 = time.perf_counter()
            for store in layout.stores:
                await store.delete_namespace()
            if i < len(base):
                base[i]["delete_s"] = time.perf_counter() - t0
    return [
        {**row, "delete_s": base[i]["delete_s"], "foreign_results": foreign[i]} for i, row in rows
    ]


# ----------------------------------------------------------------------------------- peer


async def bench_peer(
    tmp: Path,
    n_files: int,
    specs: list[ThoughtSpec],
    vectors: np.ndarray,
    queries: list[str],
    qvecs: np.ndarray,
    n_queries: int,
    warmup: int,
    chunk: int,
) -> dict[str, Any]:
    """The peer with one SQLite file per namespace: ingest, then search_hybrid latency."""
    per_file = len(specs) // n_files
    label = f"{n_files} x {per_file:,}"
    console.print(f"  peer {label}: storing {len(specs):,} thoughts")
    sw = Stopwatch()
    async with AsyncExitStack() as stack:
        stores = [
            await stack.enter_async_context(open_peer_store(tmp / f"ns-{k}.db"))
            for k in range(n_files)
        ]
        for k, store in enumerate(stores):
            lo = k * per_file
            for a, b in chunks(per_file, chunk):
                part = specs[lo + a : lo + b]
                with sw:
                    await store.bulk_store([peer_record(s) for s in part])
                    await peer_store_vectors(
                        store, [s.thought_id for s in part], vectors[lo + a : lo + b], PEER_MODEL
                    )

        async def hybrid(j: int) -> list[str]:
            store = stores[j % n_files]
            res = await store.search_hybrid(queries[j], query_vector=qvecs[j].tolist(), top_k=TOP_K)
            return [tid for tid, _ in res.results]

        console.print(f"  peer {label}: search_hybrid")
        stats = (await timed_queries([hybrid], n_queries, warmup))[0]
    for f in tmp.iterdir():
        f.unlink()
    return {
        "system": "engrava 0.7.2 (SQLite, a file each)",
        "layout": label,
        "namespaces": n_files,
        "per_namespace": per_file,
        "ingest_s": sw.total,
        "ingest_tps": rate(len(specs), sw.total),
        "operation": "search_hybrid",
        "latency_ms": stats,
        "vector_arm": "numpy brute force",
    }


# ------------------------------------------------------------------------------------ main


async def bench_ours_all(
    conn: Any,
    args: argparse.Namespace,
    report: dict[str, Any],
    specs: list[ThoughtSpec],
    vectors: np.ndarray,
    queries: list[str],
    qvecs: np.ndarray,
    provider: SentenceTransformerProvider,
) -> None:
    """Both layouts of ours on the server ``conn``; rows and server identity into ``report``."""
    root = Neo4jEngravaCore.from_uri(
        conn.uri,
        auth=(conn.user, conn.password),
        database=conn.database,
        namespace="bench-ns-probe",
        embedding_provider=provider,
    )
    try:
        await root.ensure_schema()
        row = (await root.executor.read(cypher("hygiene/server_version")))[0]
        report["server"] = {**row, "uri": conn.uri}
        tag = f"{os.getpid()}"
        layouts = [
            OurLayout([root.for_namespace(f"bench-ns-{tag}-one")], specs),
            OurLayout(
                [root.for_namespace(f"bench-ns-{tag}-m{k:03d}") for k in range(args.namespaces)],
                specs,
            ),
        ]
        report["rows"] += await bench_ours(layouts, specs, vectors, queries, qvecs, args)
    finally:
        await root.delete_namespace()
        await root.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    wall0 = time.perf_counter()
    if args.total % args.namespaces:
        raise SystemExit("--total must be a multiple of --namespaces")
    gen = CorpusGenerator(args.seed)
    specs = gen.thoughts(args.total)
    queries = gen.queries(args.queries + args.warmup, exclude={s.text for s in specs})
    provider = SentenceTransformerProvider()
    vectors = cached_vectors(
        provider, [s.text for s in specs], Path(args.cache) / f"dream-corpus-s{args.seed}.npy"
    )
    qvecs = np.asarray(provider.embed(queries), dtype=np.float32)
    report: dict[str, Any] = {
        "total": args.total,
        "namespaces": args.namespaces,
        "queries": args.queries,
        "peer_queries": args.peer_queries,
        "warmup": args.warmup,
        "seed": args.seed,
        "machine": {**machine_info(), "loadavg_start": loadavg()},
        "rows": [],
    }

    with ExitStack() as servers:
        conn = (
            servers.enter_context(fresh_local_neo4j("bench-namespaces"))
            if args.private_server
            else resolve_connection()
        )
        await bench_ours_all(conn, args, report, specs, vectors, queries, qvecs, provider)

    if not args.skip_peer:
        with tempfile.TemporaryDirectory(prefix="bench-ns-peer-") as tmp:
            for n_files in (1, args.namespaces):
                report["rows"].append(
                    await bench_peer(
                        Path(tmp),
                        n_files,
                        specs,
                        vectors,
                        queries,
                        qvecs,
                        args.peer_queries if n_files == 1 else args.queries,
                        args.warmup,
                        args.chunk_size,
                    )
                )
    report["wall_s"] = time.perf_counter() - wall0
    report["machine"]["loadavg_end"] = loadavg()
    return report


def render(report: dict[str, Any]) -> None:
    m, s = report["machine"], report["server"]
    console.print(
        f"[bold]Machine[/]: {m['cpu_count']} CPUs, {m.get('processor')}, "
        f"{m.get('memory_gib')} GiB, load average {m['loadavg_start']} at start, "
        f"{m['loadavg_end']} at end   [bold]Neo4j[/]: {s['name']} "
        f"{', '.join(s['versions'])} {s['edition']}"
    )
    table = Table(
        title=f"Namespaces: {report['total']:,} thoughts as 1 namespace vs "
        f"{report['namespaces']} (top_k={TOP_K}, {report['queries']} timed "
        f"queries after {report['warmup']} warm-up)"
    )
    for col in (
        "system",
        "layout",
        "ingest/s",
        "operation",
        "n",
        "p50 ms",
        "p95 ms",
        "vector arm",
        "foreign",
    ):
        table.add_column(
            col,
            justify="right" if col in ("ingest/s", "n", "p50 ms", "p95 ms", "foreign") else "left",
        )
    for r in report["rows"]:
        lat = r["latency_ms"]
        table.add_row(
            r["system"],
            r["layout"],
            f"{r['ingest_tps']:,.0f}",
            r["operation"],
            str(lat["n"]),
            f"{lat['p50']:.1f}",
            f"{lat['p95']:.1f}",
            r["vector_arm"],
            str(r.get("foreign_results", "—")),
        )
    console.print(table)
    medians = [r for r in report["rows"] if "retrieve_medians" in r]
    if medians:
        phase_table = Table(title="retrieve, median per phase (ms) and candidates")
        phase_table.add_column("layout")
        keys = [
            k
            for k in medians[0]["retrieve_medians"]
            if k.startswith("candidates") or any(r["retrieve_medians"][k] > 0 for r in medians)
        ]
        for key in keys:
            phase_table.add_column(key.replace("candidates_", "cand. "), justify="right")
        for r in medians:
            phase_table.add_row(r["layout"], *(f"{r['retrieve_medians'][k]:.1f}" for k in keys))
        console.print(phase_table)
    for r in report["rows"]:
        if r["operation"] == "retrieve":
            console.print(
                f"  ours {r['layout']}: {r['thoughts_in_database']:,} thoughts in the "
                f"database while measured (both layouts stored), ingest "
                f"{r['ingest_s']:.0f} s, deletion {r['delete_s']:.1f} s"
            )
    console.print(f"Wall time: {report['wall_s']:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--total", type=int, default=100_000, help="thoughts in each layout")
    parser.add_argument(
        "--namespaces",
        type=int,
        default=100,
        help="namespaces of the second layout (must divide --total)",
    )
    parser.add_argument("--queries", type=int, default=200, help="timed queries per row")
    parser.add_argument(
        "--peer-queries",
        type=int,
        default=20,
        help="timed queries on the peer's single large file (seconds each)",
    )
    parser.add_argument("--warmup", type=int, default=5, help="warm-up queries (not timed)")
    parser.add_argument("--seed", type=int, default=0, help="corpus/query seed")
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=5_000,
        help="thoughts per bulk_store call (one transaction each)",
    )
    parser.add_argument(
        "--cache",
        default=tempfile.gettempdir(),
        help="directory for cached corpus vectors (.npy, shared with bench_dreaming.py)",
    )
    parser.add_argument(
        "--private-server",
        action="store_true",
        help="run ours on a fresh, empty local Neo4j started for this run "
        "(instance 'bench-namespaces') instead of NEO4J_URI's server",
    )
    parser.add_argument("--skip-peer", action="store_true", help="only our store")
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)

    quiet_runtime()
    report = asyncio.run(run(args))
    render(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
        console.print(f"Report written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
