"""Fit Phase 9's calibration (:class:`~engrava_graph.retrieval.scoring.Calibration`) on LoCoMo's
tuning conversations at two store sizes, and print the constants and the expected calibration
error per store size.

Stores, from large to small:

- each conversation whole (namespace ``bench-turns-<sample_id>``, the one ``bench_locomo.py``
  uses, reused when unchanged), every turn stored once through ``add_messages`` as in the
  benchmark's turns mode, asked every question;
- each of its sessions alone (``calib-turns-<sample_id>-s<n>``, kept for the next run), stored
  the same way, asked the questions with an evidence turn in that session;
- per question, a small store of :data:`SMALL_STORES` memories (3 and 10): its evidence turns
  and turns of the same conversation drawn at random (seeded), stored as separate notes
  (``bulk_store``, no conversation links, as ``remember`` stores), asked that question, then
  deleted (a question with more evidence turns than the size is skipped at that size).

Each question is asked through ``retrieve(top_k=10)`` with all defaults and ``now`` = the day
after the last session.

One example per returned result: features the composite, the lead over the next-ranked
candidate and ``ln`` of the number of ranked candidates (read from Phase 9's input), label
whether the result is one of the question's evidence turns. The fit is a logistic regression
(Newton's method) with the coefficients of the composite and the lead non-negative and that of
``ln(candidates)`` non-positive (a coefficient that would cross zero is fixed at 0 and the rest
refitted). Only the tuning block may be used: a held-out conversation is refused.

Run (Neo4j from ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``, else the project's resolution)::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/fit_calibration.py \\
        [--dataset ../shared/data/locomo/locomo7.json] [--json examples.json]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import random
import sys
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from _common import project_store

from engrava_graph.cli.demo import resolve_dataset
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.evaluate import evidence_map
from engrava_graph.demo.ingest import IngestMode, ingest_conversation
from engrava_graph.demo.locomo import (
    TUNING_BLOCK,
    Conversation,
    block_of,
    load_dataset,
    session_id,
)
from engrava_graph.demo.metrics import calibration
from engrava_graph.retrieval import phases
from engrava_graph.retrieval.candidates import Candidate
from engrava_graph.retrieval.scoring import Calibration, calibrated_confidence

TOP_K = 10
#: Sizes of the per-question small stores.
SMALL_STORES = (3, 10)
SEED = 13
#: Every how many-th question is also asked where nothing answers it (see
#: :func:`unanswerable_examples`).
UNANSWERABLE_EVERY = 4
#: The features after the intercept, and the sign each coefficient must keep (+1 non-negative,
#: -1 non-positive): composite, lead, ln(candidates), ln(1 + rank), first, first x ln(candidates),
#: cosine.
SIGNS = (1.0, 1.0, -1.0, -1.0, 1.0, -1.0, 1.0)


@dataclasses.dataclass(frozen=True)
class Example:
    """One returned result: its Phase 9 inputs and whether it is evidence."""

    store: str  # "whole", "session", "small" or "unanswerable"
    composite: float
    lead: float
    cosine: float
    candidates: int
    rank: int
    evidence: bool


def session_stores(conversation: Conversation) -> list[Conversation]:
    """Each session of ``conversation`` as a conversation of its own, with the questions that
    have an evidence turn in it."""
    out = []
    for session in conversation.sessions_messages:
        label = f"S{session.number}"
        questions = [
            q for q in conversation.questions if any(session_id(e) == label for e in q.evidence)
        ]
        if questions:
            out.append(
                Conversation(
                    sample_id=f"{conversation.sample_id}-s{session.number}",
                    sessions_messages=[session],
                    questions=questions,
                    last_date=conversation.last_date,
                    sessions=session.number,
                    fingerprint=f"{conversation.fingerprint}:s{session.number}",
                )
            )
    return out


async def small_store_examples(
    base: Neo4jEngravaCore,
    conversation: Conversation,
    ranked_log: list[list[Any]],
) -> list[Example]:
    """Per question and size in :data:`SMALL_STORES`: its evidence turns and random other turns
    of the conversation as separate notes in a namespace of their own, asked that question (see
    :func:`examples_of`), then deleted."""
    turns = [t for t in conversation.thoughts if t.metadata.get("kind") == "turn"]
    rng = random.Random(f"{SEED}:{conversation.sample_id}")
    found: list[Example] = []
    for index, question in enumerate(conversation.questions):
        gold = [t for t in turns if t.thought_id in set(question.evidence)]
        others = [t for t in turns if t.thought_id not in set(question.evidence)]
        for size in SMALL_STORES:
            if not gold or len(gold) >= size:
                continue
            chosen = gold + rng.sample(others, size - len(gold))
            rng.shuffle(chosen)
            part = dataclasses.replace(
                conversation,
                sample_id=f"{conversation.sample_id}-q{index}-n{size}",
                sessions_messages=[],
                questions=[question],
            )
            store = base.for_namespace(f"calib-small-{part.sample_id}")
            await store.delete_namespace()
            await store.bulk_store(chosen)
            try:
                found += await examples_of(store, part, "small", ranked_log)
            finally:
                await store.delete_namespace()
    return found


async def unanswerable_examples(
    base: Neo4jEngravaCore, conversations: Sequence[Conversation], ranked_log: list[list[Any]]
) -> list[Example]:
    """Questions asked where no memory answers them, every result labelled not evidence: every
    :data:`UNANSWERABLE_EVERY`-th question of each conversation asked of the next
    conversation's whole store (already ingested), and of small stores of :data:`SMALL_STORES`
    memories drawn at random (seeded) from that conversation's turns (separate notes, deleted
    after). An agent asks its memory things it was never told; without these the fit only ever
    saw questions with an answer in the store."""
    found: list[Example] = []
    for at, conversation in enumerate(conversations):
        other = conversations[(at + 1) % len(conversations)]
        if other is conversation:
            continue
        asked = dataclasses.replace(
            conversation,
            questions=conversation.questions[::UNANSWERABLE_EVERY],
            last_date=other.last_date,
        )
        store = base.for_namespace("bench-turns-" + other.sample_id)
        found += await examples_of(store, asked, "unanswerable", ranked_log, answerable=False)
        turns = [t for t in other.thoughts if t.metadata.get("kind") == "turn"]
        rng = random.Random(f"{SEED}:unanswerable:{conversation.sample_id}")
        for index, question in enumerate(asked.questions):
            for size in SMALL_STORES:
                part = dataclasses.replace(
                    asked,
                    sample_id=f"{conversation.sample_id}-u{index}-n{size}",
                    questions=[question],
                )
                small = base.for_namespace(f"calib-small-{part.sample_id}")
                await small.delete_namespace()
                await small.bulk_store(rng.sample(turns, size))
                try:
                    found += await examples_of(
                        small, part, "unanswerable", ranked_log, answerable=False
                    )
                finally:
                    await small.delete_namespace()
    return found


async def examples_of(
    store: Neo4jEngravaCore,
    conversation: Conversation,
    kind: str,
    ranked_log: list[list[Any]],
    *,
    answerable: bool = True,
) -> list[Example]:
    """Ask every question of ``conversation`` in ``store``; one :class:`Example` per result (none
    is evidence when not ``answerable``: the store holds another conversation)."""
    evidence = await evidence_map(store, conversation)
    store.access_tracking_enabled = False
    now = conversation.last_date + timedelta(days=1) if conversation.last_date else None
    found = []
    for question in conversation.questions:
        ranked_log.clear()
        response = await store.retrieve(question.question, top_k=TOP_K, now=now)
        ranked = ranked_log[-1]
        composites = {tid: (i, comp, cos) for i, (tid, comp, cos) in enumerate(ranked)}
        gold = set(question.evidence)
        for memory in response.results:
            i, comp, cos = composites[memory.thought_id]
            following = ranked[i + 1][1] if i + 1 < len(ranked) else comp
            found.append(
                Example(
                    store=kind,
                    composite=comp,
                    lead=comp - following,
                    cosine=cos,
                    candidates=len(ranked),
                    rank=i,
                    evidence=answerable
                    and bool(evidence.turns.get(memory.thought_id, frozenset()) & gold),
                )
            )
    return found


def design(examples: Sequence[Example]) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: X's columns the intercept and the features of :data:`SIGNS`."""
    rows = []
    for e in examples:
        pool, first = math.log(max(e.candidates, 1)), 1.0 if e.rank == 0 else 0.0
        rows.append(
            [
                1.0,
                e.composite,
                max(e.lead, 0.0),
                pool,
                math.log1p(e.rank),
                first,
                first * pool,
                e.cosine,
            ]
        )
    y = np.array([1.0 if e.evidence else 0.0 for e in examples])
    return np.array(rows), y


def logistic_fit(x: np.ndarray, y: np.ndarray, free: Sequence[int]) -> np.ndarray:
    """Maximum-likelihood logistic coefficients over the columns ``free`` (others 0), by
    Newton's method with a tiny ridge for stability."""
    beta = np.zeros(x.shape[1])
    xs = x[:, free]
    b = np.zeros(len(free))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(xs @ b)))
        gradient = xs.T @ (y - p) - 1e-6 * b
        hessian = (xs * (p * (1 - p))[:, None]).T @ xs + 1e-6 * np.eye(len(free))
        step = np.linalg.solve(hessian, gradient)
        b += step
        if np.max(np.abs(step)) < 1e-9:
            break
    beta[list(free)] = b
    return beta


def constrained_fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`logistic_fit` keeping each feature's coefficient on the side :data:`SIGNS` says."""
    free = list(range(len(SIGNS) + 1))
    while True:
        beta = logistic_fit(x, y, free)
        wrong = [j for j in free[1:] if beta[j] * SIGNS[j - 1] < 0]
        if not wrong:
            return beta
        free.remove(wrong[0])


def capped_confidences(examples: Sequence[Example], fitted: Calibration) -> list[float]:
    """Phase 9's confidences: calibrated, never above a higher-ranked result's."""
    out, ceiling = [], 1.0
    for e in examples:
        ceiling = 1.0 if e.rank == 0 else ceiling
        confidence = calibrated_confidence(
            e.composite, e.lead, e.rank, e.candidates, fitted, cosine=e.cosine
        )
        ceiling = min(ceiling, confidence)
        out.append(ceiling)
    return out


async def collect(conversations: Sequence[Conversation]) -> list[Example]:
    """Every store of every conversation (ingested unless already stored), every question:
    one :class:`Example` per result, with Phase 9's input read as it is scored."""
    ranked_log: list[list[Any]] = []
    original = phases.score

    def recording(ranked: Sequence[Candidate], config: Any) -> None:
        ranked_log.append(
            [
                (c.thought_id, c.composite, c.cosine if c.cosine is not None else c.keyword)
                for c in ranked
            ]
        )
        original(ranked, config)

    phases.score = recording  # type: ignore[assignment]
    base = project_store()
    examples: list[Example] = []
    try:
        await base.ensure_schema()
        for conversation in conversations:
            stores = [("whole", "bench-turns-", conversation)] + [
                ("session", "calib-turns-", s) for s in session_stores(conversation)
            ]
            for kind, prefix, part in stores:
                store = base.for_namespace(prefix + part.sample_id)
                await ingest_conversation(store, part, mode=IngestMode.TURNS)
                examples += await examples_of(store, part, kind, ranked_log)
            examples += await small_store_examples(base, conversation, ranked_log)
            print(f"{conversation.sample_id}: {len(examples)} examples so far", flush=True)
        examples += await unanswerable_examples(base, conversations, ranked_log)
        print(f"unanswerable: {len(examples)} examples in all", flush=True)
    finally:
        phases.score = original  # type: ignore[assignment]
        await base.close()
    return examples


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=None)
    parser.add_argument("--conversations", default=",".join(TUNING_BLOCK))
    parser.add_argument("--json", type=Path, default=None, help="write the examples here")
    parser.add_argument(
        "--examples", type=Path, default=None, help="fit on examples written by --json instead"
    )
    args = parser.parse_args()
    wanted = [c for c in args.conversations.split(",") if c]
    refused = [c for c in wanted if block_of(c) != "tuning"]
    if refused:
        raise SystemExit(f"error: only the tuning block may be fitted on, not {refused}")
    if args.examples is not None:
        loaded = json.loads(args.examples.read_text(encoding="utf-8"))
        examples = [Example(**e) for e in loaded]
    else:
        dataset = load_dataset(resolve_dataset(args.dataset))
        examples = await collect([c for c in dataset if c.sample_id in wanted])
    if args.json is not None:
        args.json.write_text(json.dumps([dataclasses.asdict(e) for e in examples]) + "\n")
    x, y = design(examples)
    beta = constrained_fit(x, y)
    fitted = Calibration(
        bias=round(float(beta[0]), 3),
        composite_coef=round(float(beta[1]), 3),
        lead_coef=round(float(beta[2]), 3),
        pool_coef=round(float(-beta[3]), 3),
        rank_coef=round(float(-beta[4]), 3),
        first_bias=round(float(beta[5]), 3),
        first_pool_coef=round(float(-beta[6]), 3),
        cosine_coef=round(float(beta[7]), 3),
    )
    print(f"fitted: {fitted!r} on {len(examples)} results, {y.mean():.3f} evidence")
    for kind in ("whole", "session", "small", "unanswerable"):
        part = [e for e in examples if e.store == kind]
        for name, cal in (("fitted", fitted), ("current", Calibration())):
            ece = calibration(capped_confidences(part, cal), [e.evidence for e in part], bins=10)
            print(f"  {kind}: {len(part)} results, ECE {ece['ece']:.4f} ({name})")


if __name__ == "__main__":
    asyncio.run(main())
