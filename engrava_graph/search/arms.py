"""The two activation arms of search over Neo4j: the full-text index and the vector index.

Both are restricted to one namespace. The keyword arm filters inside Lucene (``+ns_token:``),
one query per analysed term, and scores the candidates with BM25 over the namespace's own
statistics (:mod:`engrava_graph.search.bm25`), so no other namespace's data moves its scores
(a term in half the namespace, whose idf BM25 floors, has only its best hits read; the hit
counts of terms matching more than the arm reads are cached with the namespace's statistics; a
namespace that holds the whole database has its any-term query sent without the ``ns_token``
clause, and anything of another namespace dropped after it);
the vector arm searches through the HNSW index: on Neo4j 2026.x filtered inside the index at any
namespace size (``SEARCH … WHERE`` on the namespace filter property, strategy ``"filtered"``;
Lucene searches a small filtered set exactly; the lifecycle is tested after it unless most of the
namespace is archived, :func:`lifecycle_plan`); on 5.26, whose vector index ranks
the whole database before any ``WHERE``, a namespace small next to the database by exact cosine
(strategy ``"exact"``) and a larger one over-fetched by the database/namespace size ratio
(strategy ``"index"``). The line is read once per connection
(:func:`~engrava_graph.graph.dialect.server_line`); the choice is reported.

A metadata filter narrows the candidates before ranking: the arms count the thoughts that pass
it (cached 30 s per filter) and, when few pass, rank exactly those (exact cosine over the
filtered set; BM25 over every filtered thought's text); otherwise they over-fetch by the
namespace/filtered ratio. So ``top_k`` results come back whenever ``top_k`` thoughts match.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from neo4j.exceptions import ClientError

from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.params import vector_param
from engrava_graph.graph.registry import cypher, cypher_by_dialect
from engrava_graph.model.enums import LifecycleStatus
from engrava_graph.model.namespace import fulltext_namespace_token
from engrava_graph.search import bm25
from engrava_graph.search.fusion import (
    SearchConfig,
    cosine_to_index_score,
    index_score_to_cosine,
)
from engrava_graph.search.lucene import query_terms, term_clause, term_query

_FULLTEXT = cypher("search/fulltext")
_VECTOR_STATEMENTS = {
    "exact": cypher_by_dialect("search/vector_exact"),
    "index": cypher_by_dialect("search/vector_index"),
    "filtered": cypher_by_dialect("search/vector_filtered"),
}
_UNARCHIVED = [s.value for s in LifecycleStatus if s is not LifecycleStatus.ARCHIVED]
_EVERY_STATUS = [s.value for s in LifecycleStatus]
_FULLTEXT_SCAN = cypher("search/fulltext_scan")
_STATS = cypher("search/namespace_stats")
_COUNT_FILTERED = cypher("search/count_retrievable")
log = logging.getLogger(__name__)
T = TypeVar("T")

#: How long namespace statistics are cached, in seconds (BM25's N and avgdl, the arm choice).
_STATS_TTL_SECONDS = 30.0
#: Statistics that took ``d`` seconds to read are read again after ``max(30, 50 * d)`` seconds
#: (a 1,000,000-thought namespace takes about 3 s): refreshing costs Neo4j at most 2 % of a core.
_STATS_COST_FACTOR = 50.0
_MAX_FETCH_K = 10_000
#: The index is always asked for at least this many results' worth of neighbours, so the first
#: hits do not depend on ``top_k`` (an HNSW search for 1 neighbour explores less of the graph).
INDEX_FLOOR_K = 50
#: Candidates the index returns per query term (a term matching more is scored on these, and
#: its document frequency is taken as this cap).
PER_TERM_LIMIT = 1_000
#: A query term the index matches in at least half of the namespace and in at least this many
#: thoughts is "common": BM25 floors its idf to almost nothing, so only its ``top_k`` best index
#: hits are read and its hit count stands for its document frequency (``search/fulltext``); a
#: speaker's name on every turn of a chat otherwise had most of the namespace's texts read.
COMMON_TERM_MIN_HITS = 64
#: The other terms' matches read at most: the index's best for any of them (one Lucene query).
#: A namespace with fewer matches has every one read and its document frequencies counted on
#: the texts; a larger one takes the index's hit counts (at most ``PER_TERM_LIMIT``) instead.
#: 200 and 500 gave the same LoCoMo recall on the tuning conversations (R@10 0.794); 200 reads
#: 60 % fewer texts at 100,000 thoughts (retrieve p50 43 -> 34 ms).
MATCH_LIMIT = 200
#: A filter passed by at most this many thoughts has the keyword arm rank all of them.
KEYWORD_SCAN_MAX = 1_000
_FILTER_CACHE_SIZE = 256
_TERM_CACHE_SIZE = 4096
#: How long a term's hit count that reached ``PER_TERM_LIMIT`` is cached, in seconds. Its
#: document frequency is that cap whatever the namespace's new thoughts add, so only deletions
#: and text edits can make it stale (and then by the few hits they take below the cap);
#: counting such a term again read a thousand hits (2-3 ms of Lucene at 100,000 thoughts) to
#: learn the same number.
_SATURATED_TERM_TTL_SECONDS = 600.0


def _term_read(known: int | None, documents: int) -> dict[str, int | None]:
    """How far ``search/fulltext`` reads one term's hits: all of them (up to
    ``PER_TERM_LIMIT``), which counts them, unless its count is ``known`` and it is not common;
    then none (it matches more than ``MATCH_LIMIT``: the statement reads the index's best for
    all such terms at once). A common term is read as before: the index breaks its many score
    ties differently for another limit, and its best hits are the ones kept."""
    if known is None or (2 * known >= documents and known >= COMMON_TERM_MIN_HITS):
        return {"limit": PER_TERM_LIMIT, "hits": None}
    return {"limit": 0, "hits": known}


def index_fetch_k(k: int, in_namespace: int, in_database: int, overfetch: int) -> int:
    """How many neighbours to ask the HNSW index for so that about ``k`` of them belong to the
    namespace: ``k`` times the database/namespace size ratio (at least ``overfetch``), capped at
    10,000 nodes per query and never below ``k``."""
    ratio = max(1, -(-in_database // max(in_namespace, 1)))
    return max(min(k * max(overfetch, ratio), _MAX_FETCH_K), k)


@dataclass(frozen=True)
class VectorPlan:
    """How the vector arm ran: ``"exact"`` (cosine over every candidate), ``"filtered"`` (the
    index filtered by namespace, Neo4j 2026.x) or ``"index"`` (the unfiltered index over-fetched,
    5.26), how many neighbours the index was asked for (``fetch_k``) and, for ``"filtered"``,
    whether the index also filtered the lifecycle statuses (else they are tested after it)."""

    strategy: str
    fetch_k: int
    lifecycle_in_index: bool = True


class NamespaceStats(NamedTuple):
    """One namespace's statistics for the arms (``search/namespace_stats``): ``thoughts`` in it
    (BM25's N), their ``mean_length`` in characters (BM25's avgdl), how many are ``unarchived``,
    and the thoughts ``in_database``."""

    thoughts: int
    mean_length: float
    unarchived: int
    in_database: int


#: The filtered index holds the lifecycle statuses as a filter too, but a second filter
#: predicate costs it more the more thoughts it holds (Neo4j 2026.08, one namespace of 1,000,000:
#: 14 ms instead of 6 ms per search for 50 neighbours; 3 instead of 2 at 100,000), while asking
#: for twice the neighbours costs 7-9 ms at 1,000,000. So the statuses are tested after the
#: index, which is over-fetched by the namespace's archived share, unless that would ask for
#: more than this many times the neighbours.
LIFECYCLE_OVERFETCH_MAX = 2


def lifecycle_plan(k: int, stats: NamespaceStats, include_archived: bool) -> VectorPlan:
    """The filtered index's plan without a metadata filter: ``k`` neighbours of the namespace,
    the lifecycle statuses tested afterwards and ``fetch_k`` raised by the share of the
    namespace they leave out (none with ``include_archived``), unless more than
    ``1 / LIFECYCLE_OVERFETCH_MAX`` of it is archived: then the index filters them too.

    Examples:
        >>> lifecycle_plan(50, NamespaceStats(1000, 40.0, 800, 5000), False)
        VectorPlan(strategy='filtered', fetch_k=63, lifecycle_in_index=False)
        >>> lifecycle_plan(50, NamespaceStats(1000, 40.0, 400, 5000), False)
        VectorPlan(strategy='filtered', fetch_k=50, lifecycle_in_index=True)
        >>> lifecycle_plan(50, NamespaceStats(1000, 40.0, 400, 5000), True).fetch_k
        50
    """
    searched = stats.thoughts if include_archived else stats.unarchived
    if searched * LIFECYCLE_OVERFETCH_MAX < stats.thoughts:
        return VectorPlan("filtered", k)
    fetch_k = -(-k * stats.thoughts // max(searched, 1))
    return VectorPlan("filtered", min(max(fetch_k, k), _MAX_FETCH_K), lifecycle_in_index=False)


class SearchArms:
    """Runs the keyword and vector arms for one namespace.

    Args:
        executor: the connection.
        namespace: the validated namespace.
        config: thresholds for the exact/index choice.
    """

    def __init__(self, executor: GraphExecutor, namespace: str, config: SearchConfig) -> None:
        self._executor = executor
        self._namespace = namespace
        self._ns_token = fulltext_namespace_token(namespace)
        self._config = config
        self._stats: tuple[float, NamespaceStats] | None = None
        self._stats_ttl = _STATS_TTL_SECONDS
        self._stats_refresh: asyncio.Task[None] | None = None
        self._reading: dict[str, asyncio.Future[Any]] = {}
        self._filtered: dict[str, tuple[float, int]] = {}
        self._term_hits: dict[str, tuple[float, int]] = {}

    async def fulltext(
        self, text: str, top_k: int, scope: dict[str, Any]
    ) -> list[tuple[str, float]]:
        """Keyword arm: ``(thought_id, BM25 score > 0)``, best first; [] when ``text`` has no
        informative term (only stop words or punctuation).

        The score uses only this namespace's statistics (its thought count, mean text length and
        each term's document frequency), so it is the same whatever other namespaces hold.

        Args:
            text: user text (analysed here, never parsed as Lucene syntax; at most 32 distinct
                terms are searched, see :func:`~engrava_graph.search.lucene.query_terms`).
            top_k: results wanted.
            scope: the ``search/_retrievable`` parameters (namespace, include_archived, now,
                meta_filters).
        """
        terms = query_terms(text)
        if not terms or top_k <= 0:
            return []
        filtered = await self._filtered_count(scope)
        scan = filtered is not None and filtered <= KEYWORD_SCAN_MAX
        stats = await self._namespace_stats()
        documents, mean_length = stats.thoughts, stats.mean_length
        known = {} if scan else self._known_term_hits(terms)
        try:
            rows = await self._executor.read(
                _FULLTEXT_SCAN if scan else _FULLTEXT,
                term_queries=[
                    {
                        "term": t,
                        "query": term_query(t, self._ns_token),
                        "clause": term_clause(t),
                        **_term_read(known.get(t), documents),
                    }
                    for t in terms
                ],
                ns_token=self._ns_token,
                sole_namespace=stats.thoughts == stats.in_database,
                documents=documents,
                common_min_hits=COMMON_TERM_MIN_HITS,
                common_keep=top_k,
                match_limit=MATCH_LIMIT,
                **({"per_term_limit": PER_TERM_LIMIT} if scan else {}),
                **scope,
            )
        except ClientError as exc:  # a query the index refuses: no keyword signal, not a 500
            log.warning(
                "full-text query refused (%s) for %d terms; keyword arm empty", exc.code, len(terms)
            )
            return []
        row = rows[0]
        if not scan:
            self._remember_term_hits(row["hits"], known)
        matched = [_candidate(d, terms) for d in row["matched"]]
        if scan:
            df = bm25.document_frequencies(matched, terms)
            candidates = [_candidate(d, terms) for d in row["docs"]]
        else:
            df = _document_frequencies(row, matched, terms)
            candidates = [
                c
                for c, (_, _, retrievable) in zip(matched, row["matched"], strict=True)
                if retrievable
            ]
        return bm25.score(candidates, terms, df, bm25.CorpusStats(documents, mean_length))[:top_k]

    async def vector(
        self, vector: Sequence[float], top_k: int, scope: dict[str, Any], *, threshold: float = 0.0
    ) -> tuple[list[tuple[str, float]], VectorPlan]:
        """Vector arm: ``(thought_id, cosine in [0, 1])``, best first, and how it ran.

        Args:
            vector: the query embedding (its length must match the index dimensions).
            top_k: results wanted.
            scope: the ``search/_retrievable`` parameters.
            threshold: minimum cosine similarity in [0, 1].
        """
        plan, params = await self.vector_plan(top_k, scope, threshold=threshold)
        dialect = (await server_line(self._executor)).dialect
        rows = await self._executor.read(
            _VECTOR_STATEMENTS[plan.strategy][dialect],
            vector=vector_param(vector),
            **params,
            **scope,
        )
        return [(r["thought_id"], index_score_to_cosine(float(r["score"]))) for r in rows], plan

    async def vector_plan(
        self, top_k: int, scope: dict[str, Any], *, threshold: float = 0.0
    ) -> tuple[VectorPlan, dict[str, Any]]:
        """How the vector arm runs for ``scope`` and the parameters of its fragment
        (``search/_vector_<strategy>``: ``fetch_k``, ``top_k``, ``min_score``,
        ``lifecycle_in_index``, ``statuses``),
        for :meth:`vector` and for statements that compose the arm (the retrieval cycle's).

        Args:
            top_k: results wanted.
            scope: the ``search/_retrievable`` parameters.
            threshold: minimum cosine similarity in [0, 1].
        """
        plan = await self._plan(top_k, await self._filtered_count(scope), scope["include_archived"])
        return plan, {
            "fetch_k": plan.fetch_k,
            "lifecycle_in_index": plan.lifecycle_in_index,
            "top_k": top_k,
            # A cosine clipped to 0 passes a threshold of 0: negative cosines are kept.
            "min_score": cosine_to_index_score(threshold) if threshold > 0 else 0.0,
            "statuses": _EVERY_STATUS if scope["include_archived"] else _UNARCHIVED,
        }

    async def _plan(self, top_k: int, filtered: int | None, include_archived: bool) -> VectorPlan:
        """On 2026.x without a metadata filter, the index filtered to the namespace at any size
        (Lucene searches a small filtered set exactly; see :func:`lifecycle_plan` for the
        lifecycle). Otherwise exact cosine when the namespace (or the part of it passing the
        metadata filter) is small; else on 2026.x the index filtered to the namespace and
        lifecycle, over-fetched by the namespace/candidates ratio of the metadata filter (which
        the index cannot hold), and on 5.26 the index over-fetched by the database/candidates
        ratio."""
        k = max(top_k, INDEX_FLOOR_K)
        filtered_index = (await server_line(self._executor)).filtered_vector_index
        stats = await self._namespace_stats()
        if filtered_index and filtered is None:
            return lifecycle_plan(k, stats, include_archived)
        candidates = stats.thoughts if filtered is None else filtered
        if candidates <= self._config.exact_vector_max_thoughts:
            return VectorPlan("exact", top_k)
        if filtered_index:
            return VectorPlan("filtered", index_fetch_k(k, candidates, stats.thoughts, 1))
        return VectorPlan(
            "index", index_fetch_k(k, candidates, stats.in_database, self._config.vector_overfetch)
        )

    def _known_term_hits(self, terms: Sequence[str]) -> dict[str, int]:
        """The cached index hit counts of those of ``terms`` that match more than
        ``MATCH_LIMIT`` thoughts (within the statistics' 30 s; a count at ``PER_TERM_LIMIT``,
        which only deletions and text edits lower, for 10 minutes): their document frequency is
        their hit count, so they need not be counted again."""
        now = time.monotonic()
        known = {}
        for term in terms:
            cached = self._term_hits.get(term)
            if cached is None:
                continue
            saturated = cached[1] >= PER_TERM_LIMIT
            ttl = _SATURATED_TERM_TTL_SECONDS if saturated else _STATS_TTL_SECONDS
            if now - cached[0] <= ttl:
                known[term] = cached[1]
        return known

    def _remember_term_hits(self, hits: Sequence[dict[str, Any]], known: dict[str, int]) -> None:
        """Cache the freshly counted hits of the terms that match more than ``MATCH_LIMIT`` and
        are not common (a common term is read as far as ever: :func:`_term_read`)."""
        now = time.monotonic()
        for h in hits:
            if h["term"] not in known and not h["common"] and int(h["hits"]) > MATCH_LIMIT:
                if len(self._term_hits) >= _TERM_CACHE_SIZE:
                    self._term_hits.clear()
                self._term_hits[h["term"]] = (now, int(h["hits"]))

    async def _filtered_count(self, scope: dict[str, Any]) -> int | None:
        """How many thoughts pass the scope's metadata filter (cached 30 s per filter), or None
        without a filter."""
        if not scope.get("meta_filters"):
            return None
        key = json.dumps(
            [scope["meta_filters"], scope["include_archived"]], sort_keys=True, default=str
        )
        cached = self._filtered.get(key)
        if cached is None or time.monotonic() - cached[0] > _STATS_TTL_SECONDS:

            async def count() -> tuple[float, int]:
                rows = await self._executor.read(_COUNT_FILTERED, **scope)
                if len(self._filtered) >= _FILTER_CACHE_SIZE:
                    self._filtered.clear()
                self._filtered[key] = (time.monotonic(), int(rows[0]["matching"]))
                return self._filtered[key]

            cached = await self._once(f"filter:{key}", count)
        return cached[1]

    async def _once(self, key: str, read: Callable[[], Awaitable[T]]) -> T:
        """``read()``, one at a time per ``key``: a caller arriving while it runs (the keyword
        arm and the cycle's composed read ask at once, on a cold cache) awaits the same read. A
        cancelled caller leaves it running for the others."""
        pending = self._reading.get(key)
        if pending is None:
            pending = self._reading[key] = asyncio.ensure_future(read())
            pending.add_done_callback(lambda done: self._finished(key, done))
        return await asyncio.shield(pending)

    def _finished(self, key: str, done: asyncio.Future[Any]) -> None:
        self._reading.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved: the callers that awaited it raise it themselves

    async def _namespace_stats(self) -> NamespaceStats:
        """The namespace's statistics (:class:`NamespaceStats`). Read on the first call; once
        older than their lifetime (30 s, longer when they are slow to read), served as they are
        while a background read refreshes them, so no request waits for the read (3 s at
        1,000,000 thoughts)."""
        if self._stats is None:
            await self._once("stats", self._read_stats)
        elif time.monotonic() - self._stats[0] > self._stats_ttl and self._stats_refresh is None:
            self._stats_refresh = asyncio.create_task(self._refresh_stats())
        assert self._stats is not None
        return self._stats[1]

    async def _read_stats(self) -> None:
        began = time.monotonic()
        row = (await self._executor.read(_STATS, namespace=self._namespace))[0]
        done = time.monotonic()
        self._stats = (
            done,
            NamespaceStats(
                int(row["in_namespace"]),
                float(row["mean_length"]),
                int(row["unarchived"]),
                int(row["in_database"]),
            ),
        )
        self._stats_ttl = max(_STATS_TTL_SECONDS, _STATS_COST_FACTOR * (done - began))

    async def _refresh_stats(self) -> None:
        try:
            await self._read_stats()
        except Exception as exc:  # noqa: BLE001 - the stale statistics serve; the next call retries
            log.warning("namespace statistics not refreshed (%s); the previous ones serve", exc)
        finally:
            self._stats_refresh = None


def _candidate(row: Sequence[Any], terms: Sequence[str]) -> bm25.Candidate:
    """A matched thought (``[thought_id, text, …]``, the text as ``search/_keyword_text`` gives
    it) as BM25 scores it for the query ``terms``."""
    return bm25.Candidate.of_text(row[0], row[1], terms)


def _document_frequencies(
    row: dict[str, Any], matched: Sequence[bm25.Candidate], terms: Sequence[str]
) -> dict[str, int]:
    """Each query term's document frequency in the namespace from a ``search/fulltext`` row:
    counted on the matched texts when they are all the matches (``complete``) and the term is
    not common, else the index's hit count."""
    hits = {h["term"]: int(h["hits"]) for h in row["hits"]}
    if not row["complete"]:
        return hits
    df = bm25.document_frequencies(matched, terms)
    df.update({h["term"]: hits[h["term"]] for h in row["hits"] if h["common"]})
    return df
