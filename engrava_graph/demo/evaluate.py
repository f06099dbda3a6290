"""Ask every LoCoMo question through each system and score the rankings without an LLM.

Systems (same namespace, same thoughts, same all-MiniLM-L6-v2 vectors):

- ``retrieve``: our 10-phase retrieval cycle, ``now`` = the day after the last session;
- ``search_hybrid``: our hybrid search with its defaults (recency off);
- ``vector``: our ``search_similar`` on the provider's query vector (query embedding timed);
- ``fusion`` (optional): a plain fusion anyone writes, 0.5 min-max BM25 (``search_fts``, the
  same full-text index) + 0.5 min-max cosine (``search_similar``) over the same pools of 50;
- ``engrava``: the peer package's ``search_hybrid`` (see :mod:`engrava_graph.demo.peer`);
- ``retrieve:<pathway>`` (optional): ``retrieve`` with the pathway forced, for the routing
  accuracy (which pathway gives the best recall@10, and how often ``auto`` picks it).

A retrieved thought stands for turns: a turn for itself, an observation for the turns it was
derived from, a reflection for the turns of the members it shows (its representative and
excerpts), a session note for none (but it does locate its session). Scores per category and
overall: evidence recall@k for k = 1..top_k, session hit@k and session NDCG@5
(:mod:`engrava_graph.demo.metrics`); latency p50/p95 of each call; the expected calibration
error of ``retrieve``'s confidence (a result is right when it stands for an evidence turn) and
the routing accuracy.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, NamedTuple

from engrava_graph.conversations import conversation_thought_id
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.demo.locomo import CATEGORIES, Conversation, evidence_of, session_id
from engrava_graph.demo.metrics import (
    calibration,
    evidence_recall_at_k,
    percentiles,
    routing_accuracy,
    session_hit_at_k,
    session_ndcg_at_k,
)
from engrava_graph.demo.peer import PeerStore
from engrava_graph.model.enums import EdgeType, ThoughtType
from engrava_graph.search.fusion import fuse, min_max

PATHWAYS = ("exact", "energy", "attention")
"""The pathways ``retrieve`` can be forced to (for the routing accuracy)."""
SYSTEMS = (
    "retrieve",
    "search_hybrid",
    "vector",
    "fusion",
    "engrava",
    *(f"retrieve:{p}" for p in PATHWAYS),
)
"""Every system, in the order they are asked and reported."""
OVERALL = "overall"
NDCG_K = 5
ROUTING_K = 10
FUSION_POOL = 50
_LISTING_LIMIT = 10_000


class Ranking(NamedTuple):
    """One system's answer: thought ids best first; for ``retrieve``, also each result's
    confidence and the pathway used."""

    ids: list[str]
    confidences: list[float] | None = None
    pathway: str | None = None


Ask = Callable[[str], Awaitable[Ranking]]


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
        question: the question's index in its conversation.
        confidences, pathway: see :class:`Ranking` (``retrieve`` only).
    """

    system: str
    conversation: str
    category: str
    evidence: frozenset[str]
    ranked: tuple[str, ...]
    turns: tuple[frozenset[str], ...]
    sessions: tuple[frozenset[str], ...]
    latency_ms: float
    question: int = 0
    confidences: tuple[float, ...] | None = None
    pathway: str | None = None


async def reflection_members(store: Neo4jEngravaCore) -> dict[str, set[str]]:
    """Reflection id -> the members whose text it shows: its representative (the essence) and
    the excerpts in its content (``metadata.dreaming``); all its members (``consolidated_from``
    and CONSOLIDATED_FROM edges) when those keys are absent."""
    shown: dict[str, set[str]] = {}
    members: dict[str, set[str]] = defaultdict(set)
    for record in await store.list_thoughts(
        thought_type=ThoughtType.REFLECTION.value, limit=_LISTING_LIMIT
    ):
        members[record.thought_id].update(record.consolidated_from or [])
        dreaming = record.metadata.get("dreaming") or {}
        if dreaming.get("representative_id"):
            shown[record.thought_id] = {
                dreaming["representative_id"],
                *filter(None, str(dreaming.get("excerpt_ids") or "").split(",")),
            }
    for edge in await store.list_edges(
        edge_type=EdgeType.CONSOLIDATED_FROM, limit=_LISTING_LIMIT * 10
    ):
        members[edge.from_thought_id].add(edge.to_thought_id)
    return {reflection: shown.get(reflection, ids) for reflection, ids in members.items()}


async def evidence_map(store: Neo4jEngravaCore, conversation: Conversation) -> EvidenceMap:
    """The :class:`EvidenceMap` of ``conversation`` as stored, in either ingest mode: a thought
    stands for the turns in its ``dia_id`` metadata; a session note (``kind: session``) or a
    session's conversation thought locates its session; a reflection stands for its members."""
    stored = await store.list_thoughts(limit=_LISTING_LIMIT)
    turns = {t.thought_id: frozenset(evidence_of(t.metadata)) for t in stored}
    sessions = {tid: frozenset(session_id(d) for d in ev) for tid, ev in turns.items()}
    sessions.update(
        {
            t.thought_id: frozenset({t.thought_id})
            for t in stored
            if t.metadata.get("kind") == "session"
        }
    )
    sessions.update(
        {
            conversation_thought_id(store.namespace, s.conversation_id): frozenset({f"S{s.number}"})
            for s in conversation.sessions_messages
        }
    )
    for reflection, members in sorted((await reflection_members(store)).items()):
        turns[reflection] = frozenset().union(*(turns.get(m, frozenset()) for m in members))
        sessions[reflection] = frozenset().union(*(sessions.get(m, frozenset()) for m in members))
    return EvidenceMap(turns=turns, sessions=sessions)


def system_calls(
    store: Neo4jEngravaCore,
    conversation: Conversation,
    top_k: int,
    peer: PeerStore | None = None,
    *,
    fusion: bool = False,
    pathways: Iterable[str] = (),
) -> dict[str, Ask]:
    """question text -> :class:`Ranking`, per system (``engrava`` only with a ``peer``,
    ``fusion`` when asked, ``retrieve:<p>`` for each forced pathway in ``pathways``)."""
    now = conversation.last_date + timedelta(days=1) if conversation.last_date else None

    def recall(pathway: str) -> Ask:
        async def ask(q: str) -> Ranking:
            response = await store.retrieve(q, top_k=top_k, now=now, pathway=pathway)
            return Ranking(
                [m.thought_id for m in response.results],
                [m.confidence for m in response.results],
                str(response.pathway),
            )

        return ask

    async def hybrid(q: str) -> Ranking:
        return Ranking([tid for tid, _ in (await store.search_hybrid(q, top_k=top_k)).results])

    async def vector(q: str) -> Ranking:
        embedded = await store.embed_query(q)
        return Ranking([tid for tid, _ in await store.search_similar(embedded, top_k=top_k)])

    async def plain_fusion(q: str) -> Ranking:
        embedded = await store.embed_query(q)
        bm25 = await store.search_fts(q, max(FUSION_POOL, top_k))
        cosine = await store.search_similar(embedded, max(FUSION_POOL, top_k))
        fused = fuse(
            {"bm25": min_max(dict(bm25)), "cosine": min_max(dict(cosine))},
            {"bm25": 0.5, "cosine": 0.5},
            top_k,
        )
        return Ranking([tid for tid, _ in fused])

    async def peer_search(q: str) -> Ranking:
        assert peer is not None
        return Ranking(await peer.search(q, top_k))

    calls: dict[str, Ask] = {"retrieve": recall("auto"), "search_hybrid": hybrid, "vector": vector}
    if fusion:
        calls["fusion"] = plain_fusion
    if peer is not None:
        calls["engrava"] = peer_search
    for pathway in pathways:
        calls[f"retrieve:{pathway}"] = recall(pathway)
    return calls


async def ask_all(
    conversation: Conversation,
    calls: Mapping[str, Ask],
    evidence: EvidenceMap,
    advance: Callable[[int], None] | None = None,
    *,
    rotate: bool = False,
) -> list[Answer]:
    """Every question of ``conversation`` through every system, one call at a time.

    Each system first answers the first question once, untimed (warm-up: model load, caches).
    Then, question by question, the systems answer in the order of ``calls`` (with ``rotate``,
    starting one further along for each question, so no system always goes first), so a
    change in machine load touches all of them alike.
    """
    answers: list[Answer] = []
    if conversation.questions:
        for ask in calls.values():
            await ask(conversation.questions[0].question)
    order = list(calls.items())
    for index, question in enumerate(conversation.questions):
        turn = index % len(order) if rotate and order else 0
        for system, ask in order[turn:] + order[:turn]:
            began = time.perf_counter()
            ranking = await ask(question.question)
            elapsed_ms = (time.perf_counter() - began) * 1000.0
            ranked = ranking.ids
            answers.append(
                Answer(
                    system=system,
                    conversation=conversation.sample_id,
                    category=question.category,
                    evidence=frozenset(question.evidence),
                    ranked=tuple(ranked),
                    turns=tuple(evidence.turns.get(t, frozenset()) for t in ranked),
                    sessions=tuple(evidence.sessions.get(t, frozenset()) for t in ranked),
                    latency_ms=elapsed_ms,
                    question=index,
                    confidences=None if ranking.confidences is None else tuple(ranking.confidences),
                    pathway=ranking.pathway,
                )
            )
        if advance is not None:
            advance(1)
    return answers


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return round(sum(items) / len(items), 6) if items else 0.0


def score_answers(answers: list[Answer], top_k: int) -> dict[str, Any]:
    """``{"questions", "recall_at_k"[k-1], "session_hit_at_k"[k-1], "session_ndcg_at_5"}``
    over ``answers`` (means over the questions)."""
    gold_sessions = [frozenset(session_id(e) for e in a.evidence) for a in answers]
    return {
        "questions": len(answers),
        "recall_at_k": [
            _mean(evidence_recall_at_k(a.turns, a.evidence, k) for a in answers)
            for k in range(1, top_k + 1)
        ],
        "session_hit_at_k": [
            _mean(
                session_hit_at_k(a.sessions, g, k)
                for a, g in zip(answers, gold_sessions, strict=True)
            )
            for k in range(1, top_k + 1)
        ],
        f"session_ndcg_at_{NDCG_K}": _mean(
            session_ndcg_at_k(a.sessions, g, NDCG_K)
            for a, g in zip(answers, gold_sessions, strict=True)
        ),
    }


def categories_of(answers: Iterable[Answer]) -> list[str]:
    """The categories present, in LoCoMo's order, then :data:`OVERALL`."""
    present = {a.category for a in answers}
    return (
        [c for c in CATEGORIES.values() if c in present]
        + sorted(present - set(CATEGORIES.values()))
        + [OVERALL]
    )


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
    scores = {
        s: {
            c: score_answers([a for a in by_system[s] if c in (OVERALL, a.category)], top_k)
            for c in categories
        }
        for s in systems
    }
    latency = {
        s: {
            **{
                k: round(v, 3) for k, v in percentiles([a.latency_ms for a in by_system[s]]).items()
            },
            "n": len(by_system[s]),
        }
        for s in systems
    }
    digests = {
        s: hashlib.sha256(
            "\n".join(f"{a.conversation}\t{','.join(a.ranked)}" for a in by_system[s]).encode()
        ).hexdigest()
        for s in systems
    }
    samples = {s: [round(a.latency_ms, 2) for a in by_system[s]] for s in systems}
    return {
        "scores": scores,
        "latency_ms": latency,
        "latency_samples_ms": samples,
        "rankings_sha256": digests,
        "calibration": retrieve_calibration(by_system["retrieve"]),
        "routing": routing(answers),
    }


def retrieve_calibration(answers: Iterable[Answer]) -> dict[str, Any]:
    """Expected calibration error of ``retrieve``'s confidence over every returned result
    (right = it stands for an evidence turn of its question), 10 bins."""
    confidences: list[float] = []
    correct: list[bool] = []
    for answer in answers:
        for confidence, turns in zip(answer.confidences or (), answer.turns, strict=False):
            confidences.append(confidence)
            correct.append(bool(turns & answer.evidence))
    return calibration(confidences, correct, bins=10)


def routing(answers: Iterable[Answer]) -> dict[str, Any] | None:
    """Routing accuracy (:func:`~engrava_graph.demo.metrics.routing_accuracy`) over the
    questions answered by ``retrieve`` and by every forced pathway; None when none were."""
    by_question: dict[tuple[str, int], dict[str, Answer]] = defaultdict(dict)
    for answer in answers:
        by_question[(answer.conversation, answer.question)][answer.system] = answer
    recalls, chosen = [], []
    for key in sorted(by_question):
        systems = by_question[key]
        forced = {p: systems.get(f"retrieve:{p}") for p in PATHWAYS}
        auto = systems.get("retrieve")
        if auto is None or auto.pathway is None or any(a is None for a in forced.values()):
            continue
        recalls.append(
            {
                p: evidence_recall_at_k(a.turns, a.evidence, ROUTING_K)
                for p, a in forced.items()
                if a is not None
            }
        )
        chosen.append(auto.pathway)
    return routing_accuracy(recalls, chosen) if chosen else None
