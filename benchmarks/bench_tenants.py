"""Tenants benchmark: many namespaces of mixed sizes in one database, against each alone.

One database (the "shared" one) holds one namespace of ``--big`` thoughts (100,000), ``--mid-count``
namespaces of ``--mid-size`` (100 of 1,000) and ``--small-count`` of ``--small-size`` (1,000 of
100). For each size class, one of its namespaces is also loaded alone into an empty database
(a second private Neo4j of the same line; Community has one user database per server), and
``retrieve`` and ``search_hybrid`` p50/p95 are timed on both, query by query in turn
(interleaved, so drifting load on a shared machine hits both alike). The vector arm's
overlap@10 with exact cosine is measured per class in the shared database (``search_similar``
as configured, and with the HNSW index forced, ``exact_vector_max_thoughts=0``). Then the
alone namespace grows to ``--grow`` thoughts, both servers restart (right after a bulk load of
900,000 thoughts a search took twice as long as it does once the server has been restarted and
warmed) and, after ``--growth-warmup`` queries on both sides, ``retrieve`` there is timed against
the shared database's ``--big`` namespace (interleaved) and against its own figure at ``--big``
(earlier in the run, right after that namespace's load). Finally the shared database's size on
disk per thought, after its server stopped (a clean shutdown checkpoints; Community has no
``db.checkpoint()``).

Texts come from the synthetic corpus (``CorpusGenerator``). Vectors: the first 100,000 are the
corpus's all-MiniLM-L6-v2 embeddings (cached in ``--cache``, shared with bench_dreaming.py);
thought ``i`` past those gets a generated vector, the embedding of thought ``i mod 100,000`` plus
Gaussian noise (cosine about 0.86 to it), renormalised: near-duplicate clusters as real memory
has, without embedding a million texts. Queries are unseen texts embedded by the model (and
warm in its query cache before timing, so ``retrieve`` times the store, not the model).

Bars (issue 18, on the default line): each class at most 1.2x its alone figure; overlap@10 at
least 0.95; ``retrieve`` p50 at ``--grow`` at most 1.5x at ``--big``. Run once per line::

    ENGRAVA_NEO4J_VERSION=2026.08.1 JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 \\
      PYTHONPATH=. python benchmarks/bench_tenants.py --port 7750 --json tenants-2026.json
    ENGRAVA_NEO4J_VERSION=5.26.30 PYTHONPATH=. python benchmarks/bench_tenants.py --port 7760 \\
      --json tenants-526.json

Each run starts two fresh private servers (``tenants-<port>-shared``/``-alone``, Bolt on
``--port`` and ``--port + 1``, HTTP on ``--port + 100`` and ``+ 101``) and stops them at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import replace
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
    ThoughtSpec,
    cached_vectors,
    chunks,
    fresh_local_neo4j,
    loadavg,
    machine_info,
    our_record,
    quiet_runtime,
    timed_queries,
)

from engrava_graph.core import Neo4jEngravaCore  # noqa: E402
from engrava_graph.embeddings import SentenceTransformerProvider  # noqa: E402
from engrava_graph.graph.dialect import server_line  # noqa: E402
from engrava_graph.graph.server import LocalNeo4jServer, ServerSettings  # noqa: E402
from engrava_graph.search.fusion import SearchConfig  # noqa: E402

console = Console(width=max(Console().width, 130))
TOP_K = 10
EMBEDDED = 100_000
"""Thoughts whose vectors are real embeddings; past these, vectors are generated."""
NOISE = 0.03
"""Per-dimension standard deviation of the noise of a generated vector (norm about 0.59)."""
EXACT = SearchConfig(exact_vector_max_thoughts=10_000_000)
FORCED_INDEX = SearchConfig(exact_vector_max_thoughts=0)


def corpus_vectors(
    provider: Any, specs: Sequence[ThoughtSpec], cache: Path, seed: int
) -> np.ndarray:
    """``(len(specs), d)`` float32 unit vectors: real embeddings for the first 100,000 (cached),
    then generated ones (see the module docstring)."""
    real = cached_vectors(provider, [s.text for s in specs[:EMBEDDED]], cache)
    if len(specs) <= EMBEDDED:
        return real
    rng = np.random.default_rng(seed)
    more = real[np.arange(EMBEDDED, len(specs)) % EMBEDDED].copy()
    for a, b in chunks(len(more), 100_000):
        more[a:b] += rng.normal(0.0, NOISE, size=(b - a, real.shape[1])).astype(np.float32)
    more /= np.linalg.norm(more, axis=1, keepdims=True)
    return np.concatenate([real, more])


async def load(
    store: Neo4jEngravaCore, specs: Sequence[ThoughtSpec], vectors: np.ndarray, chunk: int
) -> float:
    """``bulk_store`` ``specs`` into ``store``'s namespace, ``chunk`` per transaction; seconds."""
    began = time.perf_counter()
    for a, b in chunks(len(specs), chunk):
        await store.bulk_store(
            [our_record(s) for s in specs[a:b]], embeddings=vectors[a:b].tolist()
        )
    return time.perf_counter() - began


class Layout:
    """Which corpus slice each namespace of the shared database holds: ``big`` = thoughts
    ``[0, big)``, then the mid namespaces, then the small ones, each a contiguous slice."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.classes: list[tuple[str, int, int]] = [
            ("small", args.small_count, args.small_size),
            ("mid", args.mid_count, args.mid_size),
            ("big", 1, args.big),
        ]
        self.slices: dict[str, list[tuple[str, int, int]]] = {}
        start = 0
        for name, count, size in reversed(self.classes):
            self.slices[name] = [
                (f"{name}-{k:04d}", start + k * size, start + (k + 1) * size) for k in range(count)
            ]
            start += count * size
        self.total = start


def store_on(base: Neo4jEngravaCore, namespace: str, config: SearchConfig | None = None) -> Any:
    """A store of ``base``'s connection and provider on ``namespace``."""
    return Neo4jEngravaCore(
        base.executor,
        namespace=namespace,
        embedding_provider=base.embedding_provider,
        search_config=config or SearchConfig(),
    )


async def overlap_at_10(
    base: Neo4jEngravaCore, namespaces: Sequence[str], qvecs: np.ndarray, config: SearchConfig
) -> tuple[float, str]:
    """Mean |top-10 ∩ exact top-10| / 10 of ``search_similar`` under ``config`` vs exact cosine,
    query ``j`` on ``namespaces[j mod len]``; and the vector strategy it used."""
    scores: list[float] = []
    strategy = ""
    for j, qvec in enumerate(qvecs):
        ns = namespaces[j % len(namespaces)]
        store, exact = store_on(base, ns, config), store_on(base, ns, EXACT)
        hits, plan = await store._arms.vector(qvec.tolist(), TOP_K, store.retrievable_scope())
        truth = await exact.search_similar(qvec.tolist(), top_k=TOP_K)
        strategy = plan.strategy
        scores.append(len({t for t, _ in hits} & {t for t, _ in truth}) / max(len(truth), 1))
    return float(np.mean(scores)), strategy


def du(path: Path) -> int:
    """Bytes of the files under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def disk_use(home: Path) -> dict[str, int]:
    """Bytes on disk of an instance's database ``neo4j``: the store files (what the page cache
    holds), its indexes (the vector index separately) and the transaction logs."""
    db = home / "data" / "databases" / "neo4j"
    indexes = du(db / "schema")
    vector = sum(du(p) for p in (db / "schema").rglob("*") if p.is_dir() and "vector" in p.name)
    return {
        "store": du(db) - indexes,
        "indexes": indexes,
        "vector_index": vector,
        "tx_logs": du(home / "data" / "transactions" / "neo4j"),
    }


def settings_for(name: str, port: int, args: argparse.Namespace) -> ServerSettings:
    """Private-instance settings: Bolt ``port``, HTTP ``port + 100``, the run's memory."""
    env = ServerSettings.from_env()
    return replace(
        env,
        version=args.version or env.version,
        instance=name,
        bolt_port=port,
        http_port=port + 100,
        heap=args.heap,
        pagecache=args.pagecache,
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    quiet_runtime()
    layout = Layout(args)
    n_all = max(layout.total, args.grow)
    gen = CorpusGenerator(args.seed)
    specs = gen.thoughts(n_all)
    provider = SentenceTransformerProvider()
    vectors = corpus_vectors(
        provider, specs, Path(args.cache) / f"dream-corpus-s{args.seed}.npy", args.seed
    )
    queries = gen.queries(
        args.queries + max(args.warmup, args.growth_warmup),
        exclude={s.text for s in specs[:EMBEDDED]},
    )
    qvecs = np.asarray(provider.embed(queries), dtype=np.float32)
    for q in queries:  # warm the query cache: retrieve then times the store, not the model
        provider.embed([q])
    out: dict[str, Any] = {"machine": machine_info(), "args": vars(args), "classes": []}
    names = [f"tenants-{args.port}-shared", f"tenants-{args.port}-alone"]
    settings = [settings_for(n, args.port + i, args) for i, n in enumerate(names)]
    homes = [s.cache_dir / "neo4j" / f"instance-{n}" for s, n in zip(settings, names, strict=True)]
    with ExitStack() as stack:
        shared_info, alone_info = (
            stack.enter_context(fresh_local_neo4j(n, s))
            for n, s in zip(names, settings, strict=True)
        )
        shared = Neo4jEngravaCore.from_uri(
            shared_info.uri, (shared_info.user, shared_info.password), embedding_provider=provider
        )
        alone = Neo4jEngravaCore.from_uri(
            alone_info.uri, (alone_info.user, alone_info.password), embedding_provider=provider
        )
        try:
            await shared.ensure_schema()
            await alone.ensure_schema()
            line = await server_line(shared.executor)
            out["server"] = {"version": line.version, "edition": line.edition}
            console.print(f"Neo4j {line.version} {line.edition}; load {loadavg()}")
            began = time.perf_counter()
            for name, _, _ in layout.classes:
                for ns, a, b in layout.slices[name]:
                    await load(store_on(shared, ns), specs[a:b], vectors[a:b], args.chunk)
                console.print(
                    f"  shared: {name} loaded ({time.perf_counter() - began:.0f} s, "
                    f"load {loadavg()})"
                )
            out["shared_load_s"] = time.perf_counter() - began
            out["shared_thoughts"] = layout.total
            previous: Neo4jEngravaCore | None = None
            for name, count, size in layout.classes:
                ns, a, b = layout.slices[name][0]
                if previous is not None:
                    await previous.delete_namespace()
                here = previous = store_on(alone, ns)
                await load(here, specs[a:b], vectors[a:b], args.chunk)
                there = store_on(shared, ns)
                row = await measure_class(name, count, size, here, there, queries, qvecs, args)
                row["overlap"], row["strategy"] = await overlap_at_10(
                    shared, [s[0] for s in layout.slices[name][:20]], qvecs, SearchConfig()
                )
                row["overlap_forced_index"], row["forced_strategy"] = await overlap_at_10(
                    shared, [s[0] for s in layout.slices[name][:20]], qvecs, FORCED_INDEX
                )
                out["classes"].append(row)
                console.print(row)
                if args.json:  # what is measured so far survives a later failure
                    Path(args.json).write_text(json.dumps(out, indent=2, default=str))
            if args.grow > args.big:
                out["growth"] = await measure_growth(
                    previous, store_on(shared, layout.slices["big"][0][0]), specs, vectors,
                    queries, out["classes"][-1], settings[::-1], args,
                )  # fmt: skip
        finally:
            await shared.close()
            await alone.close()
    out["disk"] = disk_use(homes[0])  # after the server stopped: its last checkpoint is on disk
    out["loadavg_end"] = loadavg()
    return out


async def restarted(settings: ServerSettings, provider: Any) -> Neo4jEngravaCore:
    """Stop the private server of ``settings`` (a clean shutdown checkpoints), start it again
    on the same data and return a store connected to it (the caller closes it)."""
    server = LocalNeo4jServer(settings.instance, settings)
    server.stop()
    info = server.start()
    return Neo4jEngravaCore.from_uri(
        info.uri, (info.user, info.password), embedding_provider=provider
    )


def retrieve_on(store: Neo4jEngravaCore, queries: Sequence[str]) -> Query:
    """Query ``j`` = ``retrieve(queries[j])`` on ``store``, the ranked ids."""

    async def ask(j: int) -> list[str]:
        return [r.thought_id for r in (await store.retrieve(queries[j], top_k=TOP_K)).results]

    return ask


async def measure_class(
    name: str,
    count: int,
    size: int,
    alone: Neo4jEngravaCore,
    shared: Neo4jEngravaCore,
    queries: list[str],
    qvecs: np.ndarray,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """retrieve and search_hybrid on the namespace in the shared database and alone,
    interleaved; p50/p95 ms of each and the shared/alone ratios."""

    def hybrid_on(store: Neo4jEngravaCore) -> Query:
        async def ask(j: int) -> list[str]:
            res = await store.search_hybrid(queries[j], qvecs[j].tolist(), top_k=TOP_K)
            return [t for t, _ in res.results]

        return ask

    load_before = loadavg()
    r_shared, r_alone, h_shared, h_alone = await timed_queries(
        [
            retrieve_on(shared, queries),
            retrieve_on(alone, queries),
            hybrid_on(shared),
            hybrid_on(alone),
        ],
        args.queries,
        args.warmup,
    )
    return {
        "class": name,
        "namespaces": count,
        "size": size,
        "retrieve_shared": r_shared,
        "retrieve_alone": r_alone,
        "hybrid_shared": h_shared,
        "hybrid_alone": h_alone,
        "retrieve_ratio_p50": r_shared["p50"] / r_alone["p50"],
        "hybrid_ratio_p50": h_shared["p50"] / h_alone["p50"],
        "load": [load_before, loadavg()],
    }


async def measure_growth(
    alone: Neo4jEngravaCore | None,
    shared_big: Neo4jEngravaCore,
    specs: Sequence[ThoughtSpec],
    vectors: np.ndarray,
    queries: list[str],
    big_row: dict[str, Any],
    servers: Sequence[ServerSettings],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Grow the alone big namespace to ``--grow`` thoughts and restart both ``servers`` (the
    alone one, then the shared one); time retrieve there against the shared database's big
    namespace (interleaved, after ``--growth-warmup`` queries each) and against its own figure
    at ``--big``."""
    assert alone is not None
    began = time.perf_counter()
    have = await alone.count_thoughts()
    for a, b in chunks(args.grow - have, 10 * args.chunk):
        lo, hi = have + a, have + b
        await load(alone, specs[lo:hi], vectors[lo:hi], args.chunk)
        console.print(f"  alone: grown to {hi:,} ({time.perf_counter() - began:.0f} s)")
    load_s = time.perf_counter() - began
    bases = [await restarted(settings, alone.embedding_provider) for settings in servers]
    try:
        grown, shared = await timed_queries(
            [
                retrieve_on(store_on(bases[0], alone.namespace), queries),
                retrieve_on(store_on(bases[1], shared_big.namespace), queries),
            ],
            args.queries,
            args.growth_warmup,
        )
    finally:
        for base in bases:
            await base.close()
    return {
        "thoughts": args.grow,
        "load_s": load_s,
        "retrieve_grown": grown,
        "retrieve_shared_big_now": shared,
        "ratio_to_big_alone_p50": grown["p50"] / big_row["retrieve_alone"]["p50"],
        "ratio_to_shared_big_now_p50": grown["p50"] / shared["p50"],
        "load": loadavg(),
    }


def report(out: dict[str, Any]) -> None:
    """Print the figures as tables."""
    table = Table(title=f"Neo4j {out['server']['version']}: shared database vs alone (ms)")
    for col in (
        "class",
        "retrieve p50/p95 shared",
        "alone",
        "ratio p50",
        "hybrid p50/p95 shared",
        "alone",
        "ratio p50",
        "overlap@10 (strategy)",
        "forced index",
        "load",
    ):
        table.add_column(col)
    for r in out["classes"]:
        table.add_row(
            f"{r['namespaces']} x {r['size']:,}",
            f"{r['retrieve_shared']['p50']:.1f} / {r['retrieve_shared']['p95']:.1f}",
            f"{r['retrieve_alone']['p50']:.1f} / {r['retrieve_alone']['p95']:.1f}",
            f"{r['retrieve_ratio_p50']:.2f}",
            f"{r['hybrid_shared']['p50']:.1f} / {r['hybrid_shared']['p95']:.1f}",
            f"{r['hybrid_alone']['p50']:.1f} / {r['hybrid_alone']['p95']:.1f}",
            f"{r['hybrid_ratio_p50']:.2f}",
            f"{r['overlap']:.3f} ({r['strategy']})",
            f"{r['overlap_forced_index']:.3f} ({r['forced_strategy']})",
            " → ".join(x or "?" for x in r["load"]),
        )
    console.print(table)
    g = out.get("growth")
    if g:
        console.print(
            f"retrieve at {g['thoughts']:,} in one namespace: p50 {g['retrieve_grown']['p50']:.1f} "
            f"p95 {g['retrieve_grown']['p95']:.1f} ms; {g['ratio_to_big_alone_p50']:.2f}x its p50 "
            f"alone at the big size (earlier), {g['ratio_to_shared_big_now_p50']:.2f}x the shared "
            f"big namespace (interleaved); loaded in {g['load_s']:.0f} s; load {g['load']}"
        )
    n = out["shared_thoughts"]
    disk = ", ".join(f"{k} {v / n:,.0f}" for k, v in out["disk"].items())
    console.print(
        f"on disk per thought (bytes, {n:,} thoughts, after shutdown): {disk}; "
        f"shared load {out['shared_load_s']:.0f} s; load at end {out['loadavg_end']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--mid-count", type=int, default=100)
    parser.add_argument("--mid-size", type=int, default=1_000)
    parser.add_argument("--small-count", type=int, default=1_000)
    parser.add_argument("--small-size", type=int, default=100)
    parser.add_argument(
        "--grow", type=int, default=1_000_000, help="size to grow to (not above --big: skip)"
    )
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument(
        "--growth-warmup",
        type=int,
        default=150,
        help="untimed queries on each side after the servers restart for the growth step",
    )
    parser.add_argument("--chunk", type=int, default=2_000, help="thoughts per transaction")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=7750, help="Bolt port of the shared server")
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="2g")
    parser.add_argument("--version", default=None, help="Neo4j version (else the env's)")
    parser.add_argument("--cache", default=".bench-cache", help="directory of cached vectors")
    parser.add_argument("--json", default=None, help="write the figures here")
    args = parser.parse_args()
    out = asyncio.run(run(args))
    report(out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
