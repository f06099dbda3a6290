"""Ask every LoCoMo question through each system and score the rankings without an LLM.

Systems (same namespace, same thoughts, same all-MiniLM-L6-v2 vectors):

- ``retrieve``: our 10-phase cycle (spec 000), ``now`` = the day after the last session;
- ``search_hybrid``: our 003 hybrid search with its defaults (recency off);
- ``vector``: our ``search_similar`` on the provider's query vector (query embedding timed);
- ``engrava``: the peer package's ``search_hybrid`` (see :mod:`engrava_graph.demo.peer`).

A retrieved thought stands for turns: a turn for itself, an observation for the turns it was
derived from, a reflection for the turns of the members it shows (its representative and
excerpts), a session note for none (but it does locate its session). Scores per category and overall: evidence recall@k for k = 1..top_k, session
hit@k and session NDCG@5 (:mod:`engrava_graph.demo.metrics`); latency p50/p95 of each call.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.locomo import CATEGORIES, Conversation, evidence_of, session_id
from engrava_graph.demo.metrics import (
    evidence_recall_at_k,
    percentiles,
    session_hit_at_k,
    session_ndcg_at_k,
)
from engrava_graph.demo.peer import PeerStore
from engrava_graph.model.enums import EdgeType, ThoughtType

SYSTEMS = ("retrieve", "search_hybrid", "vector", "engrava")
"""Every system, in the order they are asked and reported."""
OVERALL = "overall"
NDCG_K = 5
_LISTING_LIMIT = 10_000

Ask = Callable[[str], Awaitable[list[str]]]


@dataclass(frozen=True)
class EvidenceMap:
    """What each thought of a namespace stands for.

    Attributes:
        turns: thought id -> the turn ids (``D<s>:<t>``) it covers.
        sessions: thought id -> the session ids (``S<s>``) it lies in.
    """

    turns: Mapping[str, frozenset[str]]
    sessions: Mapping[str, frozenset[str]]


@dataclass(frozen=True)
class Answer:
    """One system's ranking for one question.

    Attributes:
        system, conversation, category: which run this is.
        evidence: the question's gold turn ids.
        ranked: thought ids, best first (at most ``top_k``).
        turns, sessions: per ranked id, what it stands for (see :class:`EvidenceMap`).
        latency_ms: wall time of the call, in milliseconds.
    """

    system: str
    conversation: str
    category: str
    evidence: frozenset[str]
    ranked: tuple[str, ...]
    turns: tuple[frozenset[str], ...]
    sessions: tuple[frozenset[str], ...]
    latency_ms: float


async def reflection_members(store: Neo4jEngravaCore) -> dict[str, set[str]]:
    """Reflection id -> the members whose text it shows: its representative (the essence) and
    the excerpts in its content (``metadata.dreaming``); all its members (``consolidated_from``
    and CONSOLIDATED_FROM edges) when those keys are absent."""
    shown: dict[str, set[str]] = {}
    members: dict[str, set[str]] = defaultdict(set)
    for record in await store.list_thoughts(thought_type=ThoughtType.REFLECTION.value,
                                            limit=_LISTING_LIMIT):
        members[record.thought_id].update(record.consolidated_from or [])
        dreaming = record.metadata.get("dreaming") or {}
        if dreaming.get("representative_id"):
            shown[record.thought_id] = {dreaming["representative_id"], *filter(
                None, str(dreaming.get("excerpt_ids") or "").split(","))}
    for edge in await store.list_edges(edge_type=EdgeType.CONSOLIDATED_FROM,
                                       limit=_LISTING_LIMIT * 10):
        members[edge.from_thought_id].add(edge.to_thought_id)
    return {reflection: shown.get(reflection, ids) for reflection, ids in members.items()}


async def evidence_map(store: Neo4jEngravaCore, conversation: Conversation) -> EvidenceMap:
    """The :class:`EvidenceMap` of ``conversation`` as stored (reflections included)."""
    turns = {t.thought_id: frozenset(evidence_of(t.metadata)) for t in conversation.thoughts}
    sessions = {tid: frozenset(session_id(d) for d in ev) for tid, ev in turns.items()}
    sessions.update({t.thought_id: frozenset({t.thought_id}) for t in conversation.thoughts
                     if t.metadata.get("kind") == "session"})
    for reflection, members in sorted((await reflection_members(store)).items()):
        turns[reflection] = frozenset().union(*(turns.get(m, frozenset()) for m in members))
        sessions[reflection] = frozenset().union(*(sessions.get(m, frozenset())
                                                   for m in members))
    return EvidenceMap(turns=turns, sessions=sessions)


def system_calls(store: Neo4jEngravaCore, conversation: Conversation, top_k: int,
                 peer: PeerStore | None = None) -> dict[str, Ask]:
    """question text -> ranked thought ids, per system (``engrava`` only with a ``peer``)."""
    now = conversation.last_date + timedelta(days=1) if conversation.last_date else None

    async def retrieve(q: str) -> list[str]:
        return [m.thought_id for m in (await store.retrieve(q, top_k=top_k, now=now)).results]

    async def hybrid(q: str) -> list[str]:
        return [tid for tid, _ in (await store.search_hybrid(q, top_k=top_k)).results]

    async def vector(q: str) -> list[str]:
        embedded = await store.embed_query(q)
        return [tid for tid, _ in await store.search_similar(embedded, top_k=top_k)]

    calls: dict[str, Ask] = {"retrieve": retrieve, "search_hybrid": hybrid, "vector": vector}
    if peer is not None:
        calls["engrava"] = lambda q: peer.search(q, top_k)
    return calls


async def ask_all(conversation: Conversation, calls: Mapping[str, Ask], evidence: EvidenceMap,
                  advance: Callable[[int], None] | None = None) -> list[Answer]:
    """Every question of ``conversation`` through every system, one call at a time.

    Each system first answers the first question once, untimed (warm-up: model load, caches).
    Then, question by question, the systems answer in :data:`SYSTEMS` order, so a change in
    machine load touches all of them alike.
    """
    answers: list[Answer] = []
    if conversation.questions:
        for ask in calls.values():
            await ask(conversation.questions[0].question)
    for question in conversation.questions:
        for system, ask in calls.items():
            began = time.perf_counter()
            ranked = await ask(question.question)
            elapsed_ms = (time.perf_counter() - began) * 1000.0
            answers.append(Answer(
                system=system, conversation=conversation.sample_id, category=question.category,
                evidence=frozenset(question.evidence), ranked=tuple(ranked),
                turns=tuple(evidence.turns.get(t, frozenset()) for t in ranked),
                sessions=tuple(evidence.sessions.get(t, frozenset()) for t in ranked),
                latency_ms=elapsed_ms))
        if advance is not None:
            advance(1)
    return answers


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return round(sum(items) / len(items), 6) if items else 0.0


def _scores(answers: list[Answer], top_k: int) -> dict[str, Any]:
    gold_sessions = [frozenset(session_id(e) for e in a.evidence) for a in answers]
    return {
        "questions": len(answers),
        "recall_at_k": [_mean(evidence_recall_at_k(a.turns, a.evidence, k) for a in answers)
                        for k in range(1, top_k + 1)],
        "session_hit_at_k": [_mean(session_hit_at_k(a.sessions, g, k)
                                   for a, g in zip(answers, gold_sessions, strict=True))
                             for k in range(1, top_k + 1)],
        f"session_ndcg_at_{NDCG_K}": _mean(session_ndcg_at_k(a.sessions, g, NDCG_K)
                                           for a, g in zip(answers, gold_sessions, strict=True)),
    }


def categories_of(answers: Iterable[Answer]) -> list[str]:
    """The categories present, in LoCoMo's order, then :data:`OVERALL`."""
    present = {a.category for a in answers}
    return [c for c in CATEGORIES.values() if c in present] + sorted(
        present - set(CATEGORIES.values())) + [OVERALL]


def summarize(answers: list[Answer], top_k: int) -> dict[str, Any]:
    """All figures of a run.

    Returns:
        ``{"scores": {system: {category | "overall": {"questions", "recall_at_k"[k-1],
        "session_hit_at_k"[k-1], "session_ndcg_at_5"}}}, "latency_ms": {system: {"p50", "p95",
        "mean", "n"}}, "latency_samples_ms": {system: [ms, ...]}, "rankings_sha256":
        {system: hex}}``; the digest covers every ranked id list, so two runs with equal
        digests ranked identically.
    """
    by_system: dict[str, list[Answer]] = defaultdict(list)
    for answer in answers:
        by_system[answer.system].append(answer)
    systems = [s for s in SYSTEMS if s in by_system]
    categories = categories_of(answers)
    scores = {s: {c: _scores([a for a in by_system[s] if c in (OVERALL, a.category)], top_k)
                  for c in categories} for s in systems}
    latency = {s: {**{k: round(v, 3) for k, v in
                      percentiles([a.latency_ms for a in by_system[s]]).items()},
                   "n": len(by_system[s])} for s in systems}
    digests = {s: hashlib.sha256("\n".join(
        f"{a.conversation}\t{','.join(a.ranked)}" for a in by_system[s]).encode()).hexdigest()
        for s in systems}
    samples = {s: [round(a.latency_ms, 2) for a in by_system[s]] for s in systems}
    return {"scores": scores, "latency_ms": latency, "latency_samples_ms": samples,
            "rankings_sha256": digests}
