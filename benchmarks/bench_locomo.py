"""LoCoMo retrieval benchmark (issues 3 and 13): evidence recall@5/@10 (turn level), session
hit@1 and NDCG@5 per category and overall, and p50/p95 latency, for our ``retrieve``, our
``search_hybrid``, vector-only (``search_similar``), a plain fusion (0.5 min-max BM25 + 0.5
min-max cosine over the same pools) and the peer package ``engrava``'s ``search_hybrid``, all
on the same thoughts and all-MiniLM-L6-v2 vectors, in one run on one store; plus the routing
accuracy (``retrieve`` with each pathway forced) and the expected calibration error of
``retrieve``'s confidence with a reliability plot.

Modes: ``turns`` (default) stores every LoCoMo turn once through ``add_messages`` (speaker, text
with its image caption, the session date as the message time, conversation ``session_<n>``);
``observations`` also stores session notes and LoCoMo's LLM-written observations (the old mode).
Figures are reported per block: tuning (conv-26, conv-30, conv-41, conv-42) and held-out
(conv-43, conv-44, conv-47), never pooled.

A thin script over :mod:`engrava_graph.demo` (the same ingest and evaluation as
``engrava-graph demo``) without the dreaming pass. Each conversation is stored in the namespace
``bench-<mode>-<sample_id>`` (kept for the next run, which reuses it when the data set entry is
unchanged; ``--fresh`` ingests again). Method: docs/benchmarks.md.

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``, else the project's resolution)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_locomo.py \\
        --dataset ../shared/data/locomo/locomo7.json \\
        --conversations conv-26,conv-30,conv-41,conv-42 \\
        [--mode turns|observations] [--no-routing] [--json out.json] [--plot reliability.png]
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

from _common import project_store

from engrava_graph.cli.demo import resolve_dataset
from engrava_graph.demo.ingest import IngestMode
from engrava_graph.demo.pipeline import DemoOptions, run_demo
from engrava_graph.demo.report import (
    block_sections,
    latency_table,
    reliability_plot,
    rich_table,
    routing_lines,
    score_table,
)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dataset",
        type=Path,
        default=None,
        help="LoCoMo JSON (default: ../shared/data/locomo/locomo7.json)",
    )
    parser.add_argument("--conversations", default="", help="comma-separated sample ids")
    parser.add_argument(
        "--mode",
        choices=[m.value for m in IngestMode],
        default=IngestMode.TURNS.value,
        help="how conversations are stored",
    )
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--skip-peer", action="store_true", help="leave out engrava")
    parser.add_argument(
        "--no-routing",
        action="store_true",
        help="skip the forced-pathway runs (no routing accuracy)",
    )
    parser.add_argument("--fresh", action="store_true", help="ingest again")
    parser.add_argument("--json", type=Path, default=None, help="write all figures here")
    parser.add_argument(
        "--plot",
        type=Path,
        default=Path("locomo_reliability.png"),
        help="reliability plot of retrieve's confidence (PNG)",
    )
    return parser.parse_args()


async def main() -> None:
    args = _arguments()
    console = Console()
    mode = IngestMode(args.mode)
    options = DemoOptions(
        dataset=resolve_dataset(args.dataset),
        top_k=args.top_k,
        peer=not args.skip_peer,
        dream=False,
        fresh=args.fresh,
        namespace_prefix=f"bench-{mode.value}-",
        conversations=tuple(c for c in args.conversations.split(",") if c),
        mode=mode,
        fusion=True,
        routing=not args.no_routing,
    )
    base = project_store()
    try:
        with Progress(console=console) as progress:
            figures = await run_demo(base, options, progress)
    finally:
        await base.close()
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1, default=str) + "\n", encoding="utf-8")
    meta = figures["meta"]
    console.print(
        f"LoCoMo ({mode.value} mode) {', '.join(meta['conversations'])}: "
        f"{meta['questions']} questions, {meta['machine']['cpus']} CPUs, load "
        f"{meta['machine']['load_avg_1_5_15_before']} -> "
        f"{meta['machine']['load_avg_1_5_15_after']}, {meta['wall_seconds']} s"
    )
    for block, block_figures in block_sections(figures):
        console.print(
            rich_table(
                f"{block} block: evidence recall and session hits",
                *score_table(block_figures),
                grouped=True,
            )
        )
        console.print(rich_table(f"{block} block: latency per call", *latency_table(block_figures)))
        for line in routing_lines(block_figures):
            console.print(f"{block} block: {line}", highlight=False, markup=False)
    reliability_plot({block: f["calibration"] for block, f in figures["blocks"].items()}, args.plot)
    console.print(f"Reliability plot: {args.plot}")


if __name__ == "__main__":
    asyncio.run(main())
