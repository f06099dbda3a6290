"""LoCoMo retrieval benchmark (issue 3): evidence recall@5/@10 (turn level), session hit@1 and
NDCG@5 per category and overall, and p50/p95 latency, for our ``retrieve``, our
``search_hybrid``, vector-only (``search_similar``) and the peer package ``engrava``'s
``search_hybrid``, all on the same thoughts and all-MiniLM-L6-v2 vectors, in one run.

A thin script over :mod:`engrava_graph.demo` (the same ingest and evaluation as
``engrava-graph demo``) without the dreaming pass and the report files. Each conversation is
stored in the namespace ``bench-<sample_id>`` (kept for the next run, which reuses it when the
data set entry is unchanged; ``--fresh`` ingests again). Method: docs/benchmarks.md.

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``, else the project's resolution)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_locomo.py \\
        --dataset ../shared/data/locomo/locomo7.json [--conversations conv-26] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from engrava_graph.cli.demo import resolve_dataset
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.pipeline import DemoOptions, run_demo
from engrava_graph.demo.report import latency_table, rich_table, score_table
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import resolve_connection


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=None,
                        help="LoCoMo JSON (default: ../shared/data/locomo/locomo7.json)")
    parser.add_argument("--conversations", default="", help="comma-separated sample ids")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--skip-peer", action="store_true", help="leave out engrava")
    parser.add_argument("--fresh", action="store_true", help="ingest again")
    parser.add_argument("--json", type=Path, default=None, help="write all figures here")
    return parser.parse_args()


async def main() -> None:
    args = _arguments()
    console = Console()
    options = DemoOptions(
        dataset=resolve_dataset(args.dataset), top_k=args.top_k, peer=not args.skip_peer,
        dream=False, fresh=args.fresh, namespace_prefix="bench-",
        conversations=tuple(c for c in args.conversations.split(",") if c))
    info = resolve_connection()
    base = Neo4jEngravaCore.from_uri(info.uri, auth=(info.user, info.password),
                                     database=info.database,
                                     embedding_provider=SentenceTransformerProvider())
    try:
        with Progress(console=console) as progress:
            figures = await run_demo(base, options, progress)
    finally:
        await base.close()
    meta = figures["meta"]
    console.print(f"LoCoMo {', '.join(meta['conversations'])}: {meta['questions']} questions, "
                  f"{meta['machine']['cpus']} CPUs, load {meta['machine']['load_avg_1_5_15_before']}"
                  f", {meta['wall_seconds']} s")
    console.print(rich_table("Evidence recall and session hits", *score_table(figures),
                             grouped=True))
    console.print(rich_table("Latency per call", *latency_table(figures)))
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
