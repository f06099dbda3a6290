"""The keyword arm on the real Neo4j: namespace-local BM25, stop words, long and CJK text."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime

import numpy as np
import pytest

from engrava_graph.model import MetadataFilter, ThoughtType
from engrava_graph.search.fusion import SearchConfig, TimeConfig
from tests.factories import thought

TEAM = [
    "The deployment window is Tuesday 2-4pm UTC",
    "Deploy schedule: staging deploys happen every night",
    "Melanie painted a sunrise over the lake last summer",
    "Caroline adopted a golden retriever puppy named Max",
    "The quarterly budget review is scheduled for Friday",
    "Budget owners must approve every deployment of the billing service",
    "Max the puppy chewed the lake house sofa",
    "The lake trip is scheduled for the summer holidays",
    "Friday deployments are frozen during the budget review",
    "Caroline paints on Tuesdays; Melanie deploys on Fridays",
]
QUERIES = [
    "deploy schedule",
    "budget review on Friday",
    "lake summer painting",
    "puppy named Max",
    "who deploys on Tuesday",
]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


async def _rankings(store) -> list[list[str]]:
    out = []
    for query in QUERIES:
        out.append([tid for tid, _ in await store.search_fts(query, top_k=10)])
        hybrid = await store.search_hybrid(query, top_k=10, recency_now=NOW)
        out.append([tid for tid, _ in hybrid.results])
        response = await store.retrieve(query, top_k=10, now=NOW)
        out.append([r.thought_id for r in response.results])
    return out


async def test_rankings_do_not_depend_on_another_namespace(make_store):
    """Writing and deleting a second namespace between two identical queries changes nothing:
    keyword scores use only the searched namespace's statistics."""
    store = make_store()
    await store.bulk_store([thought(text) for text in TEAM])
    before = await _rankings(store)
    assert await _rankings(store) == before  # repeatable on its own
    other = make_store()
    # Skew database-wide term statistics: the query words everywhere, in long and short texts.
    await other.bulk_store(
        [
            thought(f"deploy budget lake puppy {i} " + "Friday schedule " * (i % 7))
            for i in range(300)
        ]
    )
    assert await _rankings(store) == before
    await other.delete_namespace()
    assert await _rankings(store) == before


async def test_stop_word_only_queries_give_no_keyword_signal(store):
    await store.bulk_store([thought(text) for text in TEAM])
    for query in ("NOT", "Is it on?", "the and of"):
        assert await store.search_fts(query) == []
        result = await store.search_hybrid(query, top_k=5)
        assert "fulltext" not in result.backends_used


async def test_long_cjk_text_is_searched(store):
    await store.bulk_store([thought("北京的天气很好，我们去公园散步"), thought("Lunch at noon")])
    question = "北京天气" * 270 + "".join(chr(0x4E00 + i) for i in range(1025))
    hits = await store.search_fts(question)
    assert hits and hits[0][0] is not None
    assert (await store.search_hybrid(question, top_k=3)).results
    assert (await store.retrieve(question[:1000], top_k=3)).results is not None


async def test_reflections_take_at_most_one_of_a_top_five(store):
    notes = [thought(f"Hiking trip {i}: we hiked the mountain trail at dawn") for i in range(6)]
    reflections = [
        thought(
            f"Reflection {i}: hiking the mountain trail is a habit",
            thought_type=ThoughtType.REFLECTION,
        )
        for i in range(3)
    ]
    await store.bulk_store(notes + reflections)
    reflection_ids = {r.thought_id for r in reflections}
    result = await store.search_hybrid("hiking mountain trail habit", top_k=5)
    assert len(result.results) == 5
    assert sum(tid in reflection_ids for tid, _ in result.results) == 1
    assert result.reflections_evicted >= 1


def _unit(seed: int, dims: int = 384) -> list[float]:
    vector = np.random.default_rng(seed).normal(size=dims)
    return [float(x) for x in vector / np.linalg.norm(vector)]


@pytest.mark.parametrize("size", [200, 3_010])
async def test_a_selective_filter_narrows_before_ranking(make_store, size):
    """10 of ``size`` thoughts carry team=x, far from the query: both arms, search_hybrid and
    every retrieve pathway still return top_k of them (3,010 is past the exact-cosine size)."""
    store = make_store()
    records = [
        thought(
            f"Note {i} about the harbour crane maintenance log",
            metadata={"team": "x" if i % (size // 10) == 0 else "y"},
        )
        for i in range(size)
    ]
    for start in range(0, size, 1_000):
        chunk = records[start : start + 1_000]
        await store.bulk_store(chunk, embeddings=[_unit(start + i) for i in range(len(chunk))])
    team_x = {r.thought_id for r in records if r.metadata["team"] == "x"}
    assert len(team_x) == 10
    only_x = MetadataFilter.equals(team="x")
    hybrid = await store.search_hybrid("crane maintenance", _unit(99_999), top_k=5, filters=only_x)
    assert len(hybrid.results) == 5 and {t for t, _ in hybrid.results} <= team_x
    assert len(await store._arms.fulltext("crane", 5, store.retrievable_scope(filters=only_x))) == 5
    for pathway in ("exact", "attention", "energy"):
        response = await store.retrieve(
            "quarterly revenue forecast", top_k=5, pathway=pathway, metadata_filter={"team": "x"}
        )
        assert len(response.results) == 5, pathway
        assert {r.thought_id for r in response.results} <= team_x


async def test_the_first_index_hit_does_not_depend_on_top_k(make_store):
    store = make_store(search_config=SearchConfig(exact_vector_max_thoughts=0))  # index path
    await store.bulk_store(
        [thought(f"Point {i}") for i in range(300)], embeddings=[_unit(i) for i in range(300)]
    )
    for seed in range(1_000, 1_030):
        query = _unit(seed)
        first = (await store.search_similar(query, top_k=1))[0][0]
        for top_k in (2, 5, 10, 50):
            assert (await store.search_similar(query, top_k=top_k))[0][0] == first


async def test_one_time_config_steers_every_ranked_path(make_store):
    """The same TimeConfig half-life moves search_hybrid and retrieve alike."""
    namespace = f"t-time-{uuid.uuid4().hex[:8]}"
    slow = make_store(namespace=namespace, time_config=TimeConfig(half_life_cycles=10_000))
    fast = make_store(namespace=namespace, time_config=TimeConfig(half_life_cycles=1))
    old = await slow.create_thought(
        thought("Kickoff meeting notes for the harbour project", created_cycle=0, updated_cycle=0)
    )
    await slow.create_thought(
        thought("Weekly meeting notes about catering", created_cycle=9, updated_cycle=9)
    )

    def score_of(pairs):
        return dict(pairs)[old.thought_id]

    hybrid = [
        score_of(
            (await s.search_hybrid("kickoff meeting notes", top_k=2, current_cycle=10)).results
        )
        for s in (slow, fast)
    ]
    assert hybrid[0] > hybrid[1]
    retrieved = []
    for s in (slow, fast):
        response = await s.retrieve("kickoff meeting notes", top_k=2, current_cycle=10)
        retrieved.append({r.thought_id: r.confidence for r in response.results}[old.thought_id])
    assert retrieved[0] > retrieved[1]


async def test_a_common_term_reads_only_its_best_hits(make_store):
    """A speaker's name on every turn (a common term: in half the namespace or more) weighs
    almost nothing: the rare terms decide, and a query of only the name still has hits."""
    store = make_store()
    turns = [f"Nate: turn {i} about the weather and the garden" for i in range(150)]
    turns += ["Nate: my laptop crashed during the tournament", "Joanna: the laptop is fixed"]
    await store.bulk_store([thought(text) for text in turns])
    scope = store.retrievable_scope()
    hits = await store._arms.fulltext("Did Nate's laptop crash?", 10, scope)
    texts = {t.thought_id: t.essence for t in await store.list_thoughts(limit=200)}
    assert [texts[tid] for tid, _ in hits[:2]] == [turns[150], turns[151]]
    assert len(await store._arms.fulltext("Nate", 10, scope)) == 10


async def _harbour_and_crane(make_store):
    """A store where "harbour" and "crane" match 21 thoughts each, one of them both."""
    store = make_store()
    texts = [f"Harbour note {i}" for i in range(20)] + [f"Crane note {i}" for i in range(20)]
    texts += ["The harbour crane was serviced", *(f"Weather {i}" for i in range(60))]
    await store.bulk_store([thought(text) for text in texts])
    return store


def _sent(store, monkeypatch, name: str = "search/fulltext") -> list[dict]:
    """The parameters of every ``name`` statement ``store`` sends from now on."""
    sent: list[dict] = []
    read = store.executor.read

    async def spy(stmt, **params):
        if stmt.name == name:
            sent.append(params)
        return await read(stmt, **params)

    monkeypatch.setattr(store.executor, "read", spy)
    return sent


def _limits(sent: list[dict]) -> list[list[int]]:
    """The per-term read limits of the keyword statements in ``sent``."""
    return [[q["limit"] for q in params["term_queries"]] for params in sent]


async def test_known_hit_counts_are_not_counted_again(make_store, monkeypatch):
    """A term matching more than the arm reads has its hit count cached with the namespace's
    statistics: the next query does not count it again, and ranks the same."""
    from engrava_graph.search import arms

    store = await _harbour_and_crane(make_store)
    monkeypatch.setattr(arms, "MATCH_LIMIT", 8)
    sent = _sent(store, monkeypatch)
    scope = store.retrievable_scope()
    counted = await store._arms.fulltext("harbour crane", 10, scope)
    cached = await store._arms.fulltext("harbour crane", 10, scope)
    monkeypatch.setattr(arms, "_STATS_TTL_SECONDS", -1.0)  # expired: counted again
    recounted = await store._arms.fulltext("harbour crane", 10, scope)
    assert counted == cached == recounted and counted
    assert _limits(sent) == [[arms.PER_TERM_LIMIT] * 2, [0, 0], [arms.PER_TERM_LIMIT] * 2]


async def test_a_hit_count_at_the_cap_outlives_the_statistics(make_store, monkeypatch):
    """A term whose hits fill ``PER_TERM_LIMIT`` (lowered here) has that cap as its document
    frequency whatever is added, so its count is cached past the statistics' lifetime (counted
    again only after ``_SATURATED_TERM_TTL_SECONDS``), and ranks the same."""
    from engrava_graph.search import arms

    store = await _harbour_and_crane(make_store)
    monkeypatch.setattr(arms, "MATCH_LIMIT", 8)
    monkeypatch.setattr(arms, "PER_TERM_LIMIT", 16)  # both terms match 21 thoughts
    sent = _sent(store, monkeypatch)
    scope = store.retrievable_scope()
    counted = await store._arms.fulltext("harbour crane", 10, scope)
    monkeypatch.setattr(arms, "_STATS_TTL_SECONDS", -1.0)  # the statistics' lifetime is over
    cached = await store._arms.fulltext("harbour crane", 10, scope)
    monkeypatch.setattr(arms, "_SATURATED_TERM_TTL_SECONDS", -1.0)  # and the cap's too
    recounted = await store._arms.fulltext("harbour crane", 10, scope)
    assert counted == cached == recounted and counted
    assert _limits(sent) == [[16, 16], [0, 0], [16, 16]]


async def test_callers_on_a_cold_cache_share_one_read(make_store, monkeypatch):
    """The keyword arm and the cycle's composed read ask for the namespace's statistics (and a
    metadata filter's count) at once on a fresh store: one read serves both."""
    store = make_store()
    await store.bulk_store([thought("alpha beta", metadata={"topic": "x"})])
    stats = _sent(store, monkeypatch, "search/namespace_stats")
    arms = store._arms
    first, second = await asyncio.gather(arms._namespace_stats(), arms._namespace_stats())
    assert first == second and first.thoughts == 1 and len(stats) == 1
    scope = store.retrievable_scope(filters=MetadataFilter.equals(topic="x"))
    counts = _sent(store, monkeypatch, "search/count_retrievable")
    assert await asyncio.gather(arms._filtered_count(scope), arms._filtered_count(scope)) == [1, 1]
    assert len(counts) == 1


async def test_expired_statistics_serve_while_a_background_read_refreshes_them(make_store):
    """Namespace statistics past their lifetime are returned at once (no request waits for
    their read, seconds on a large namespace) while one background read refreshes them."""
    store = make_store()
    await store.bulk_store([thought("alpha beta")])
    arms = store._arms
    assert (await arms._namespace_stats())[0] == 1
    await store.bulk_store([thought("gamma delta")])
    arms._stats_ttl = -1.0  # expired
    assert (await arms._namespace_stats())[0] == 1  # the previous ones, at once
    refresh = arms._stats_refresh
    assert refresh is not None
    assert (await arms._namespace_stats())[0] == 1 and arms._stats_refresh is refresh  # one read
    await refresh
    assert arms._stats_refresh is None and (await arms._namespace_stats())[0] == 2


async def test_a_sole_namespace_reads_the_index_best_without_the_namespace_clause(
    make_store, monkeypatch
):
    """When the statistics say the namespace holds the whole database, the any-term query runs
    without its ns_token clause and ranks the same; a thought of another namespace written since
    the statistics were read never reaches the results."""
    from engrava_graph.search import arms

    store = make_store()
    texts = [f"Quokka note {i}" for i in range(20)] + [f"Zeppelin note {i}" for i in range(20)]
    texts += ["The quokka zeppelin was serviced", *(f"Weather {i}" for i in range(60))]
    await store.bulk_store([thought(text) for text in texts])
    monkeypatch.setattr(arms, "MATCH_LIMIT", 8)
    scope = store.retrievable_scope()
    shared = await store._arms.fulltext("quokka zeppelin", 10, scope)
    sent = _sent(store, monkeypatch)
    stats = await store._arms._namespace_stats()
    store._arms._stats = (time.monotonic(), stats._replace(in_database=stats.thoughts))
    assert await store._arms.fulltext("quokka zeppelin", 10, scope) == shared
    other = make_store()
    await other.bulk_store([thought("quokka zeppelin quokka zeppelin") for _ in range(4)])
    stale = await store._arms.fulltext("quokka zeppelin", 10, scope)
    assert [params["sole_namespace"] for params in sent] == [True, True]
    mine = {t.thought_id for t in await store.list_thoughts(limit=200)}
    assert stale and {tid for tid, _ in stale} <= mine


async def test_an_update_stores_the_new_text_for_search_and_deduplication(store):
    (note,) = await store.bulk_store([thought("The deployment window is Tuesday 2-4pm UTC")])
    await store.update_thought(
        note.thought_id, essence="Lunch is at noon", content="Lunch is at noon"
    )
    assert [tid for tid, _ in await store.search_fts("lunch noon")] == [note.thought_id]
    assert await store.search_fts("deployment window") == []
    again = await store.create_thought(thought("Lunch is at noon"), deduplicate=True)
    assert again.thought_id == note.thought_id
