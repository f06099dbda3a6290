"""What each part of the retrieval cycle costs and earns: ``retrieve`` under a few
``RetrievalConfig`` variants on LoCoMo's tuning conversations, in one run on one store.

Variants (edit :data:`VARIANTS` to try others): the defaults; more links kept per spreading
seed (``per_node`` 6, the default before 5 December 2026); fewer seeds; smaller arms; spreading
off (no seeds); the session signal off; the spread signal off. For each: evidence recall@10
(turn level) overall and per category, session hit@1, and the p50 latency of a whole
``retrieve`` (question embedding included).

Method: every conversation is stored once in turns mode (``bench-turns-<sample_id>``, shared
with ``bench_locomo.py`` and kept for the next run; no dreaming). Each variant is a store with
its own config on the same namespace and the same embedding provider, whose query cache is off
(else every variant after the first would find the question's vector cached). The variants
answer each question in turn, the order rotating by one per question, so a change in machine
load and the position in the rotation touch all of them alike. Only the tuning block (conv-26,
conv-30, conv-41, conv-42) can be swept: the held-out block is never tuned on. Figures:
docs/benchmarks.md.

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``, else the project's resolution)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/sweep_retrieve.py [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from engrava_graph.cli.demo import resolve_dataset
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.evaluate import Answer, ask_all, evidence_map, score_answers, system_calls
from engrava_graph.demo.ingest import IngestMode, ingest_conversation
from engrava_graph.demo.locomo import TUNING_BLOCK, load_dataset
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import resolve_connection
from engrava_graph.retrieval.config import PathwayProfile, RetrievalConfig, default_profiles
from engrava_graph.retrieval.types import Pathway

TOP_K = 10


def _config(exact: dict[str, Any] | None = None, **fields: Any) -> RetrievalConfig:
    """The defaults with ``fields`` changed and the exact pathway's profile updated with
    ``exact`` (most LoCoMo questions route there)."""
    profiles = default_profiles()
    profiles[Pathway.EXACT] = PathwayProfile(
        **{**profiles[Pathway.EXACT].model_dump(), **(exact or {})}
    )
    return RetrievalConfig(profiles=profiles, **fields)


VARIANTS: dict[str, RetrievalConfig] = {
    "defaults": _config(),
    "per_node 6 (the old default)": _config(per_node=6),
    "seeds 5": _config({"seeds": 5}),
    "arms 25 + 25": _config({"vector_k": 25, "fulltext_k": 25}),
    "no spreading (seeds 0)": _config({"seeds": 0}),
    "session_gain 0": _config(session_gain=0.0),
    "spread_gain 0": _config(spread_gain=0.0),
}


async def _sweep(base: Neo4jEngravaCore, dataset: Path) -> dict[str, dict[str, object]]:
    answers: list[Answer] = []
    wanted = {c.sample_id: c for c in load_dataset(dataset) if c.sample_id in TUNING_BLOCK}
    for sample_id in TUNING_BLOCK:
        conversation = wanted[sample_id]
        store = base.for_namespace("bench-turns-" + conversation.namespace)
        await ingest_conversation(store, conversation, mode=IngestMode.TURNS, fresh=False)
        calls = {}
        for name, config in VARIANTS.items():
            variant = Neo4jEngravaCore(
                base.executor,
                namespace=store.namespace,
                options=replace(base.options, retrieval_config=config),
            )
            variant.access_tracking_enabled = False
            calls[name] = system_calls(variant, conversation, TOP_K)["retrieve"]
        evidence = await evidence_map(store, conversation)
        answers += await ask_all(conversation, calls, evidence, rotate=True)
    figures: dict[str, dict[str, object]] = {}
    for name in VARIANTS:
        mine = [a for a in answers if a.system == name]
        overall = score_answers(mine, TOP_K)
        figures[name] = {
            "questions": overall["questions"],
            "recall_at_10": overall["recall_at_k"][TOP_K - 1],
            "session_hit_at_1": overall["session_hit_at_k"][0],
            "p50_ms": round(statistics.median(a.latency_ms for a in mine), 1),
            "recall_at_10_by_category": {
                c: score_answers([a for a in mine if a.category == c], TOP_K)["recall_at_k"][
                    TOP_K - 1
                ]
                for c in sorted({a.category for a in mine})
            },
        }
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dataset", type=Path, help="LoCoMo JSON (default: ../shared/data/locomo/locomo7.json)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    info = resolve_connection()
    base = Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        embedding_provider=SentenceTransformerProvider(cache_size=0),
    )
    load_before = os.getloadavg()
    try:
        figures = await _sweep(base, resolve_dataset(args.dataset))
    finally:
        await base.close()
    print(f"LoCoMo tuning block, load average {load_before} -> {os.getloadavg()}")
    print(f"{'variant':28s} {'R@10':>6s} {'S-hit@1':>7s} {'p50 ms':>7s}  R@10 per category")
    for name, f in figures.items():
        print(
            f"{name:28s} {f['recall_at_10']:6.4f} {f['session_hit_at_1']:7.4f} "
            f"{f['p50_ms']:7.1f}  {f['recall_at_10_by_category']}"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
