"""Dreaming benchmark: one consolidation pass, ours (Neo4j) vs the peer (SQLite), and what
dreaming does to retrieval on LoCoMo.

1. Synthetic (``--sizes``, default 10k and 100k): the deterministic agent memory of
   ``_common.CorpusGenerator``, every thought an OBSERVATION (created cycle = index // 10), the
   same precomputed all-MiniLM-L6-v2 vectors in both stores. The pass runs at cycle
   ``max_cycle + 1`` in a fresh Python process per system, so the process's peak RSS is the
   pass's own (``VmHWM`` from ``/proc``; its baseline after imports and connecting, ``VmRSS``,
   is printed beside it, and the load average before and after). Ours:
   ``Neo4jEngravaCore.consolidate`` with the default ``DreamingConfig`` (cosine 0.7, k = 10
   neighbours, clusters of 3-200, strategy "auto": exact NumPy up to 20,000 thoughts, the
   inverted-file index above), run twice (the second pass, at the next cycle over unchanged
   data, must create nothing) and, up to ``--index-max``, once more with the HNSW vector index
   ("index") on a fresh copy. Peer: ``engrava`` 0.7.2 ``consolidate`` with
   dreaming enabled, every thought a candidate (``candidates_limit = N``) and
   ``cluster_algorithm="agglomerative"`` (its default "lpa" clusters only existing dream edges,
   which a fresh store has none of); its other settings are its defaults (cosine 0.7, clusters
   of 3-200, quality gates on).
2. LoCoMo (``--locomo``): each conversation in its own namespace (turns, sessions and LoCoMo's
   ``observation`` entries as OBSERVATIONs); evidence recall@5/@10 of ``retrieve`` (top_k 10,
   ``now`` = the day after the last session) on every question with evidence, before and
   after one dreaming pass at ``max session + 1``. A retrieved turn stands for its
   ``dia_id``, an observation for the turns it was derived from. A retrieved REFLECTION is
   counted two ways: "excerpts" = the evidence of the members whose text its content shows
   (what a reader of the result sees; the headline figure), and "members" = the evidence of
   every member it consolidates (an upper bound: a reader would have to follow
   CONSOLIDATED_FROM).

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``, else the project's resolution)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_dreaming.py --sizes 10000 100000 \\
        --locomo /work/shared/data/locomo/locomo7.json --json bench_dreaming.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from _common import (  # noqa: E402
    CorpusGenerator,
    ThoughtSpec,
    cached_vectors,
    chunks,
    loadavg,
    machine_info,
    open_peer_store,
    our_record,
    peer_record,
    peer_store_vectors,
    quiet_runtime,
)

from engrava_graph.core import Neo4jEngravaCore  # noqa: E402
from engrava_graph.demo.locomo import Conversation, evidence_of, load_dataset  # noqa: E402
from engrava_graph.demo.metrics import evidence_recall_at_k  # noqa: E402
from engrava_graph.dreaming import DreamingConfig  # noqa: E402
from engrava_graph.embeddings import SentenceTransformerProvider  # noqa: E402
from engrava_graph.graph.connection import resolve_connection  # noqa: E402
from engrava_graph.model import EdgeDirection, EdgeType, ThoughtType  # noqa: E402

console = Console(width=max(Console().width, 130))
CHUNK = 5_000
PEER_MODEL = "all-MiniLM-L6-v2"


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _peak_mib() -> float:
    """This process's peak RSS (``VmHWM``: unlike ``ru_maxrss``, not inherited from the parent
    that forked it)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# ------------------------------------------------------------------- workers (one process each)


async def _worker_ours(namespace: str, cycle: int, strategy: str) -> dict[str, Any]:
    load = loadavg()
    conn = resolve_connection()
    store = Neo4jEngravaCore.from_uri(
        conn.uri, auth=(conn.user, conn.password), database=conn.database, namespace=namespace
    )
    try:
        await store.max_cycle()  # connection warmed before the baseline
        base = _rss_mib()
        t0 = time.perf_counter()
        result = await store.consolidate(cycle, config=DreamingConfig(neighbour_strategy=strategy))  # type: ignore[arg-type]
        seconds = time.perf_counter() - t0
    finally:
        await store.close()
    return {
        "seconds": seconds,
        "rss_base_mib": base,
        "rss_peak_mib": _peak_mib(),
        "reflections": result.reflections_created,
        "clusters": result.clusters_found,
        "existing": result.reflections_existing,
        "covered": result.clusters_covered,
        "edges": result.edges_created,
        "candidates": result.candidates_evaluated,
        "rejected": result.clusters_rejected,
        "strategy": result.strategy,
        "unchanged_since": result.unchanged_since,
        "phases": result.phase_seconds,
        "load_before": load,
        "load_after": loadavg(),
    }


async def _worker_peer(db_path: str, cycle: int, n: int) -> dict[str, Any]:
    load = loadavg()
    from engrava.config import DreamingConfig, DreamingGates
    from engrava.extensions.dreaming import DreamingExtension

    config = DreamingConfig(
        enabled=True, candidates_limit=n, gates=DreamingGates(cluster_algorithm="agglomerative")
    )
    async with open_peer_store(db_path) as store:
        store.attach_dreaming_extension(DreamingExtension(config))
        base = _rss_mib()
        t0 = time.perf_counter()
        result = await store.consolidate(current_cycle=cycle)
        seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "rss_base_mib": base,
        "rss_peak_mib": _peak_mib(),
        "reflections": result.reflections_created,
        "edges": result.edges_created,
        "candidates": result.candidates_evaluated,
        "promoted": result.promoted_count,
        "load_before": load,
        "load_after": loadavg(),
    }


def _run_worker(*args: str) -> dict[str, Any]:
    """Run this script as a worker process and return the JSON it prints last."""
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"worker {args[0]} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------ synthetic


def _observations(gen: CorpusGenerator, n: int) -> list[ThoughtSpec]:
    return [replace(s, thought_type=ThoughtType.OBSERVATION.value) for s in gen.thoughts(n)]


async def synthetic(
    n: int, args: argparse.Namespace, provider: SentenceTransformerProvider, tmp: Path
) -> dict[str, Any]:
    specs = _observations(CorpusGenerator(args.seed), n)
    vectors = cached_vectors(
        provider, [s.text for s in specs], Path(args.cache) / f"dream-corpus-s{args.seed}.npy"
    )
    cycle = max(s.cycle for s in specs) + 1
    out: dict[str, Any] = {"n": n, "cycle": cycle}
    strategies = ["auto"] + (["index"] if n <= args.index_max else [])
    conn = resolve_connection()
    for strategy in strategies:
        namespace = f"bench-dream-{n}-{strategy}-{os.getpid()}"
        store = Neo4jEngravaCore.from_uri(
            conn.uri, auth=(conn.user, conn.password), database=conn.database, namespace=namespace
        )
        try:
            await store.ensure_schema()
            with console.status(f"ours: storing {n:,} observations"):
                for a, b in chunks(n, CHUNK):
                    await store.bulk_store(
                        [our_record(s) for s in specs[a:b]], embeddings=vectors[a:b].tolist()
                    )
            with console.status(f"ours ({strategy}): dreaming over {n:,}"):
                out[f"ours_{strategy}"] = _run_worker("ours", namespace, str(cycle), strategy)
            if strategy == "auto":  # the next cycle, nothing new: must create nothing
                out["ours_rerun"] = _run_worker("ours", namespace, str(cycle + 1), strategy)
        finally:
            await store.delete_namespace()
            await store.close()
    if not args.skip_peer:
        db = tmp / f"peer-{n}.db"
        async with open_peer_store(db) as peer:
            with console.status(f"peer: storing {n:,} observations"):
                for a, b in chunks(n, CHUNK):
                    await peer.bulk_store([peer_record(s) for s in specs[a:b]])
                    await peer_store_vectors(
                        peer, [s.thought_id for s in specs[a:b]], vectors[a:b], PEER_MODEL
                    )
        with console.status(f"peer: consolidating {n:,}"):
            out["peer"] = _run_worker("peer", str(db), str(cycle), str(n))
        db.unlink(missing_ok=True)
    return out


# ---------------------------------------------------------------------------------- LoCoMo


async def _evidence(
    store: Neo4jEngravaCore, result: Any, cache: dict[str, tuple[set, set]]
) -> tuple[list[set[str]], list[set[str]], int]:
    """Per result, (excerpt-counted, member-counted) evidence; and how many are reflections."""
    shown: list[set[str]] = []
    full: list[set[str]] = []
    reflections = 0
    for memory in result.results:
        if memory.thought_type != ThoughtType.REFLECTION.value:
            own = evidence_of(memory.metadata)
            shown.append(own)
            full.append(own)
            continue
        reflections += 1
        if memory.thought_id not in cache:
            edges = await store.get_edges(memory.thought_id, direction=EdgeDirection.OUT)
            ids = [e.to_thought_id for e in edges if e.edge_type is EdgeType.CONSOLIDATED_FROM]
            members = await store.get_thoughts(ids)
            excerpt_ids = set(str(memory.metadata["dreaming"]["excerpt_ids"]).split(","))
            cache[memory.thought_id] = (
                set().union(
                    *(evidence_of(m.metadata) for i, m in members.items() if i in excerpt_ids)
                ),
                set().union(*(evidence_of(m.metadata) for m in members.values())),
            )
        shown.append(cache[memory.thought_id][0])
        full.append(cache[memory.thought_id][1])
    return shown, full, reflections


async def _recall(
    store: Neo4jEngravaCore, conv: Conversation, limit: int | None
) -> dict[str, list[float]]:
    cache: dict[str, tuple[set, set]] = {}
    now = conv.last_date + timedelta(days=1) if conv.last_date else None
    out: dict[str, list[float]] = {
        k: [] for k in ("shown5", "shown10", "full5", "full10", "reflections")
    }
    for question in conv.questions[:limit]:
        result = await store.retrieve(question.question, top_k=10, now=now)
        shown, full, reflections = await _evidence(store, result, cache)
        gold = set(question.evidence)
        for k in (5, 10):
            out[f"shown{k}"].append(evidence_recall_at_k(shown, gold, k))
            out[f"full{k}"].append(evidence_recall_at_k(full, gold, k))
        out["reflections"].append(reflections)
    return out


async def locomo(
    path: str, args: argparse.Namespace, provider: SentenceTransformerProvider
) -> dict[str, Any]:
    conn = resolve_connection()
    before: dict[str, list[float]] = {}
    after: dict[str, list[float]] = {}
    dreams: list[dict[str, Any]] = []
    for conv in load_dataset(path)[: args.conversations]:
        store = Neo4jEngravaCore.from_uri(
            conn.uri,
            auth=(conn.user, conn.password),
            database=conn.database,
            namespace=f"bench-dream-{conv.sample_id}-{os.getpid()}",
            embedding_provider=provider,
        )
        try:
            await store.ensure_schema()
            with console.status(f"LoCoMo {conv.sample_id}: storing {len(conv.thoughts)}"):
                await store.bulk_store(conv.thoughts)
                for edge in conv.edges:
                    await store.create_edge(edge)
            with console.status(f"LoCoMo {conv.sample_id}: retrieval before dreaming"):
                for key, values in (await _recall(store, conv, args.questions)).items():
                    before.setdefault(key, []).extend(values)
            cycle = max(t.created_cycle for t in conv.thoughts) + 1
            result = await store.consolidate(cycle)
            dreams.append(
                {
                    "conversation": conv.sample_id,
                    "observations": sum(
                        t.thought_type is ThoughtType.OBSERVATION for t in conv.thoughts
                    ),
                    "reflections": result.reflections_created,
                    "seconds": result.seconds,
                }
            )
            with console.status(f"LoCoMo {conv.sample_id}: retrieval after dreaming"):
                for key, values in (await _recall(store, conv, args.questions)).items():
                    after.setdefault(key, []).extend(values)
        finally:
            await store.delete_namespace()
            await store.close()
    return {
        "questions": len(before["shown5"]),
        "dreams": dreams,
        "before": {k: float(np.mean(v)) for k, v in before.items()},
        "after": {k: float(np.mean(v)) for k, v in after.items()},
    }


# ------------------------------------------------------------------------------------ report


def render(report: dict[str, Any]) -> None:
    m = report["machine"]
    console.print(
        f"[bold]Machine[/]: {m['cpu_count']} CPUs, {m.get('processor')}, "
        f"{m.get('memory_gib')} GiB, Python {m['python']}; peer engrava 0.7.2"
    )
    if report["synthetic"]:
        console.print(_synthetic_table(report["synthetic"]))
    if report.get("locomo"):
        _render_locomo(report["locomo"])
    console.print(f"Wall time: {report['wall_s']:.0f} s")


def _synthetic_table(sizes: list[dict[str, Any]]) -> Table:
    table = Table(title="One dreaming pass over N observations (fresh process per pass)")
    for name, just in (
        ("system", "left"),
        ("N", "right"),
        ("wall s", "right"),
        ("peak RSS MiB", "right"),
        ("baseline RSS MiB", "right"),
        ("reflections", "right"),
        ("edges", "right"),
        ("notes", "left"),
    ):
        table.add_column(name, justify=just)  # type: ignore[arg-type]
    for size in sizes:
        n = f"{size['n']:,}"
        for label, key in (
            ("engrava-graph, default", "ours_auto"),
            ("  next cycle, nothing new", "ours_rerun"),
            ("engrava-graph, vector index", "ours_index"),
            ("engrava (peer)", "peer"),
        ):
            row = size.get(key)
            if row is None:
                continue
            note = (
                f"{row['strategy'] or 'unchanged: skipped'}; {row['clusters']} clusters "
                f"({row['existing']} existing, {row['covered']} covered), {row['rejected']} "
                f"oversize; s: " + ", ".join(f"{k} {v:.1f}" for k, v in row["phases"].items())
                if "clusters" in row
                else f"{row['promoted']} promoted to P1"
            )
            note += f"; load {row.get('load_before')} -> {row.get('load_after')}"
            table.add_row(
                label,
                n,
                f"{row['seconds']:.1f}",
                f"{row['rss_peak_mib']:.0f}",
                f"{row['rss_base_mib']:.0f}",
                f"{row['reflections']:,}",
                f"{row['edges']:,}",
                note,
            )
        table.add_section()
    return table


def _render_locomo(lo: dict[str, Any]) -> None:
    table = Table(
        title=f"LoCoMo: evidence recall of retrieve (top_k 10), {lo['questions']} questions"
    )
    for name in ("when", "recall@5", "recall@10", "reflections in top 10"):
        table.add_column(name, justify="left" if name == "when" else "right")
    b, a = lo["before"], lo["after"]
    table.add_row("before dreaming", f"{b['shown5']:.3f}", f"{b['shown10']:.3f}", "0")
    table.add_row(
        "after (reflection = its excerpts)",
        f"{a['shown5']:.3f}",
        f"{a['shown10']:.3f}",
        f"{a['reflections']:.2f}",
    )
    table.add_row(
        "after (reflection = all members)",
        f"{a['full5']:.3f}",
        f"{a['full10']:.3f}",
        f"{a['reflections']:.2f}",
    )
    console.print(table)
    made = sum(d["reflections"] for d in lo["dreams"])
    obs = sum(d["observations"] for d in lo["dreams"])
    console.print(
        f"  LoCoMo dreaming: {made} reflections from {obs} observations in "
        f"{len(lo['dreams'])} conversations, "
        f"{sum(d['seconds'] for d in lo['dreams']):.1f} s in all"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    wall0 = time.perf_counter()
    provider = SentenceTransformerProvider()
    report: dict[str, Any] = {"machine": machine_info(), "synthetic": [], "locomo": None}
    with tempfile.TemporaryDirectory(prefix="bench-dream-") as tmp:
        for n in args.sizes:
            console.rule(f"N = {n:,}")
            report["synthetic"].append(await synthetic(n, args, provider, Path(tmp)))
    if args.locomo:
        console.rule("LoCoMo")
        report["locomo"] = await locomo(args.locomo, args, provider)
    report["wall_s"] = time.perf_counter() - wall0
    return report


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    quiet_runtime()
    warnings.filterwarnings("ignore")  # a worker's stdout must be its JSON line alone
    if argv[:1] == ["--worker"]:
        kind, *rest = argv[1:]
        work = (
            _worker_ours(rest[0], int(rest[1]), rest[2])
            if kind == "ours"
            else _worker_peer(rest[0], int(rest[1]), int(rest[2]))
        )
        print(json.dumps(asyncio.run(work)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="*",
        default=[10_000, 100_000],
        help="synthetic corpus sizes N (default: 10000 100000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument("--locomo", help="LoCoMo JSON file (skipped when not given)")
    parser.add_argument(
        "--questions",
        type=int,
        default=None,
        help="LoCoMo questions per conversation (default: all)",
    )
    parser.add_argument(
        "--conversations", type=int, default=None, help="LoCoMo conversations (default: all)"
    )
    parser.add_argument(
        "--cache", default=tempfile.gettempdir(), help="directory for cached corpus vectors (.npy)"
    )
    parser.add_argument("--skip-peer", action="store_true", help="only our store")
    parser.add_argument(
        "--index-max",
        type=int,
        default=10_000,
        help="also time the vector-index strategy up to this N (slow on a "
        "loaded server: one HNSW query per observation)",
    )
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    report = asyncio.run(run(args))
    render(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
