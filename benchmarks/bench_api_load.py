"""REST load benchmark: 1 and N concurrent clients on ``POST /v1/retrieve`` for a fixed time.

1. Loads ``--thoughts`` synthetic thoughts (``CorpusGenerator``) into the namespace
   ``--namespace`` (default ``bench-api``) with ``bulk_store`` in chunks of ``--chunk`` and
   embeddings precomputed by ``SentenceTransformerProvider().embed`` (cached in ``--cache``
   across runs and benchmarks); a namespace
   left by an earlier run (``--keep``, or an interrupted load) is reused or completed.
2. Starts ``engrava-graph serve`` in a subprocess on 127.0.0.1 (a free port) with a read-only key
   for that namespace, and waits for ``/readyz``.
3. For each count in ``--clients`` (default 1, then 8), runs that many concurrent httpx
   clients for ``--seconds`` seconds (after ``--warmup`` requests), each posting unseen queries
   (``top_k`` 10, auto pathway) back to back; the loop is bounded in time and in requests
   (``--max-requests``). No query text repeats within or across the runs, so the service's
   query-embedding cache never answers.
4. Prints, per client count, requests/s, latency p50/p95/p99 (ms, client side), the error
   count (non-200 or transport failure), the load average and the CPU time per request (ms,
   from ``/proc``: the service process, this process's clients, the rest of the machine, which
   is Neo4j when nothing else runs, and the whole machine; on N cores the whole machine's
   figure bounds the throughput at N x 1000 / it requests/s); stops the server and deletes the
   namespace unless ``--keep``.

The peer ``engrava`` has no HTTP service, so there is no peer figure here; ``bench_store.py``
compares the stores themselves. Traffic goes to 127.0.0.1 only.

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_api_load.py --thoughts 100000 \\
        --clients 1 8 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from _common import CorpusGenerator, fill_synthetic_namespace, machine_info, percentiles

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import ConnectionInfo, resolve_connection

console = Console(stderr=True)
READY_TIMEOUT = 300.0  # seconds for the server to migrate, load the model and answer /readyz
REQUEST_TIMEOUT = 60.0  # seconds for one request
STOP_TIMEOUT = 30.0  # seconds for the server to exit after SIGTERM


async def load_corpus(info: ConnectionInfo, args: argparse.Namespace) -> float:
    """Fill the namespace up to ``args.thoughts`` thoughts and return the seconds it took
    (:func:`_common.fill_synthetic_namespace`)."""
    async with Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        namespace=args.namespace,
        embedding_provider=SentenceTransformerProvider(),
    ) as store:
        return await fill_synthetic_namespace(
            store,
            CorpusGenerator(seed=args.seed).thoughts(args.thoughts),
            Path(args.cache) / f"dream-corpus-s{args.seed}.npy",
            args.chunk,
            console.print,
        )


def start_server(info: ConnectionInfo, namespace: str, key: str, port: int) -> subprocess.Popen:
    """``engrava-graph serve`` in a subprocess with one read-only key for ``namespace``."""
    env = {
        **os.environ,
        "NEO4J_URI": info.uri,
        "NEO4J_USER": info.user,
        "NEO4J_PASSWORD": info.password,
        "HF_HUB_OFFLINE": "1",
        "ENGRAVA_LOG_LEVEL": "WARNING",
        "ENGRAVA_API_KEYS": json.dumps(
            [{"name": "bench", "key": key, "namespaces": [namespace], "read_only": True}]
        ),
    }
    if info.database:
        env["NEO4J_DATABASE"] = info.database
    command = [
        sys.executable,
        "-c",
        "from engrava_graph.cli import app; app()",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--env-file",
        os.devnull,
    ]
    return subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL)


async def wait_ready(base_url: str, server: subprocess.Popen) -> None:
    """Poll ``/readyz`` until 200, the server exits, or ``READY_TIMEOUT`` passes."""
    deadline = time.monotonic() + READY_TIMEOUT
    async with httpx.AsyncClient(base_url=base_url, timeout=5.0) as client:
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise RuntimeError(f"the server exited with code {server.returncode}")
            try:
                if (await client.get("/readyz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.5)
    raise RuntimeError(f"the server was not ready within {READY_TIMEOUT} s")


def cpu_seconds(pid: int | None = None) -> float | None:
    """CPU seconds (user + system) used so far by process ``pid`` (all its threads), or by the
    whole machine when None (every CPU's busy time in ``/proc/stat``); None where ``/proc`` is
    missing (not Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    try:
        if pid is None:
            with open("/proc/stat", encoding="ascii") as stat:
                fields = [int(x) for x in stat.readline().split()[1:]]
            idle = fields[3] + fields[4]  # idle, iowait
            return (sum(fields[:8]) - idle) / ticks
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            after_name = stat.read().rsplit(")", 1)[1].split()
        return (int(after_name[11]) + int(after_name[12])) / ticks  # utime, stime
    except (OSError, ValueError, IndexError):
        return None


def cpu_per_request(
    before: dict[str, float | None], after: dict[str, float | None], requests: int
) -> dict[str, float | None]:
    """Milliseconds of CPU per successful request, per part: the service process, this
    process (the clients), the rest of the machine (Neo4j, on an otherwise idle machine) and
    the whole machine."""

    def spent(part: str) -> float | None:
        b, a = before[part], after[part]
        return None if a is None or b is None or not requests else (a - b) * 1000 / requests

    service, clients, machine = spent("service"), spent("clients"), spent("machine")
    rest = None
    if service is not None and clients is not None and machine is not None:
        rest = machine - service - clients
    figures = {"service": service, "clients": clients, "rest": rest, "machine": machine}
    return {k: None if v is None else round(v, 1) for k, v in figures.items()}


async def run_load(
    base_url: str,
    key: str,
    namespace: str,
    queries: list[str],
    clients: int,
    args: argparse.Namespace,
    server_pid: int,
) -> dict[str, Any]:
    """``clients`` workers posting ``queries`` (in order) for ``args.seconds`` seconds."""
    headers = {"Authorization": f"Bearer {key}", "X-Namespace": namespace}
    latencies: list[float] = []
    errors: dict[str, int] = {}
    counter = iter(range(min(args.max_requests, len(queries) - args.warmup)))

    async def worker(client: httpx.AsyncClient, deadline: float) -> None:
        for i in counter:
            if time.monotonic() >= deadline:
                return
            began = time.perf_counter()
            try:
                response = await client.post(
                    "/v1/retrieve", json={"query": queries[args.warmup + i], "top_k": 10}
                )
                outcome = str(response.status_code)
            except httpx.HTTPError as exc:
                outcome = type(exc).__name__
            if outcome == "200":
                latencies.append((time.perf_counter() - began) * 1000.0)
            else:
                errors[outcome] = errors.get(outcome, 0) + 1

    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(
        base_url=base_url, headers=headers, limits=limits, timeout=REQUEST_TIMEOUT
    ) as client:
        for query in queries[: args.warmup]:
            (await client.post("/v1/retrieve", json={"query": query})).raise_for_status()
        began = time.monotonic()
        deadline = began + args.seconds
        load_before = os.getloadavg()[0]

        def cpu() -> dict[str, float | None]:
            return {
                "service": cpu_seconds(server_pid),
                "clients": time.process_time(),
                "machine": cpu_seconds(),
            }

        cpu_before = cpu()
        await asyncio.gather(*(worker(client, deadline) for _ in range(clients)))
        elapsed = time.monotonic() - began
        cpu_after = cpu()
    stats = percentiles(latencies, (50, 95, 99))
    return {
        "clients": clients,
        "requests_ok": len(latencies),
        "errors": sum(errors.values()),
        "error_kinds": errors,
        "seconds": round(elapsed, 1),
        "requests_per_second": round(len(latencies) / elapsed, 2),
        **{k: round(v, 1) for k, v in stats.items() if k.startswith("p")},
        "mean_ms": round(stats["mean"], 1),
        "cpu_ms_per_request": cpu_per_request(cpu_before, cpu_after, len(latencies)),
        "loadavg_1m_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


async def drop(info: ConnectionInfo, namespace: str) -> None:
    async with Neo4jEngravaCore.from_uri(
        info.uri, auth=(info.user, info.password), database=info.database, namespace=namespace
    ) as store:
        await store.delete_namespace()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thoughts", type=int, default=100_000)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=int, default=10, help="untimed requests first")
    parser.add_argument(
        "--max-requests",
        type=int,
        default=20_000,
        help="per run; also the number of distinct queries per run",
    )
    parser.add_argument("--chunk", type=int, default=5000, help="thoughts per bulk_store call")
    parser.add_argument("--namespace", default="bench-api")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the namespace afterwards")
    parser.add_argument(
        "--cache",
        default=tempfile.gettempdir(),
        help="directory for cached corpus vectors (.npy, shared with the other benchmarks)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)

    info = resolve_connection(start_local=False)
    load_seconds = asyncio.run(load_corpus(info, args))
    key = secrets.token_urlsafe(24)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    per_run = args.warmup + args.max_requests
    queries = CorpusGenerator(seed=args.seed).queries(per_run * len(args.clients))
    server = start_server(info, args.namespace, key, port)
    try:
        asyncio.run(wait_ready(base_url, server))
        runs = [
            asyncio.run(
                run_load(
                    base_url,
                    key,
                    args.namespace,
                    queries[i * per_run : (i + 1) * per_run],
                    clients,
                    args,
                    server.pid,
                )
            )
            for i, clients in enumerate(args.clients)
        ]
    finally:
        stop_server(server)
        if not args.keep:
            asyncio.run(drop(info, args.namespace))
    report = {
        "thoughts": args.thoughts,
        "load_seconds": round(load_seconds, 1),
        "runs": runs,
        "machine": machine_info(),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0 if all(run["requests_ok"] for run in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
