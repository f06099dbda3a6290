"""search_fts, search_similar, search_hybrid/recall: signals, recency axes, archived rule,
access."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engrava_graph.model import (
    CycleProviderError,
    HybridSearchResult,
    InvalidFilterError,
    InvalidRecencyArgumentError,
    LifecycleStatus,
    MetadataFilter,
    RecencyModeConflictError,
    StaticCycleProvider,
    ValidationFailedError,
)
from engrava_graph.model.cycles import CallableCycleProvider
from engrava_graph.model.errors import InvalidQueryError
from tests.factories import thought

PETS = [
    "Caroline adopted a golden retriever puppy named Max",
    "Melanie painted a sunrise over the lake last summer",
    "The quarterly budget review is scheduled for Friday",
]


@pytest.fixture
async def pets(store):
    return await store.bulk_store([thought(text) for text in PETS])


async def test_fulltext_finds_keywords_and_escapes_operators(store, pets):
    hits = await store.search_fts("retriever")
    assert hits and hits[0][0] == pets[0].thought_id
    # Lucene syntax in user text is data, not syntax
    assert await store.search_fts('budget AND ") OR *:* (') != []
    assert await store.search_fts("!!! ???") == []


async def test_bad_search_arguments_get_typed_errors_naming_them(store, pets):
    """A wrong type, filter path or top_k is the error retrieve gives, not an AttributeError
    or a silent []; a mapping filter is read by retrieve's rule."""
    with pytest.raises(InvalidQueryError, match="query must be a string, got NoneType"):
        await store.search_fts(None)
    with pytest.raises(InvalidQueryError, match="query_text must be a string") as caught:
        await store.search_hybrid(None)
    assert caught.value.field == "query_text"
    for top_k in (-1, 0, 1001, True):
        with pytest.raises(ValidationFailedError, match="top_k must be 1..1000"):
            await store.search_fts("retriever", top_k)
        with pytest.raises(ValidationFailedError, match="top_k must be 1..1000"):
            await store.search_hybrid("retriever", top_k=top_k)
    with pytest.raises(InvalidFilterError, match="filter path 'a..b' is invalid"):
        await store.search_hybrid("retriever", filters={"a..b": 1})
    with pytest.raises(InvalidFilterError, match="filters must be"):
        await store.search_hybrid("retriever", filters="speaker=Ann")
    empty = "filter 'topic': an empty list matches nothing; give at least one value"
    with pytest.raises(InvalidFilterError, match=empty):
        await store.search_hybrid("retriever", filters={"topic": []})
    with pytest.raises(InvalidFilterError, match=empty):
        await store.retrieve("retriever", metadata_filter={"topic": []})
    with pytest.raises(InvalidFilterError, match=empty):
        await store.list_thoughts(filters={"topic": []})
    assert (await store.search_hybrid("retriever", filters={"speaker": "Ann"})).results == []
    ranked = await store.search_hybrid("retriever", filters={})
    assert ranked.results[0][0] == pets[0].thought_id


async def test_similar_ranks_by_meaning(store, pets):
    vector = await store.embed_query("a dog as a new pet")
    hits = await store.search_similar(vector, top_k=3)
    assert hits[0][0] == pets[0].thought_id
    assert all(0.0 <= s <= 1.0 for _, s in hits)
    assert await store.search_similar(vector, threshold=0.99) == []
    assert await store.search_similar(vector, top_k=0) == []  # as the peer's
    with pytest.raises(ValidationFailedError, match="top_k must be 0..1000"):
        await store.search_similar(vector, top_k=-1)


async def test_hybrid_fuses_and_reports_backends(store, pets):
    result = await store.search_hybrid("puppy dog", top_k=2)
    assert result.results[0][0] == pets[0].thought_id
    assert result.backends_used == {"fulltext", "vector", "priority"}
    assert result.recency_axis is None
    scores = [s for _, s in result.results]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)


async def test_archived_excluded_then_readmitted(store, pets):
    await store.update_thought(pets[0].thought_id, lifecycle_status=LifecycleStatus.ARCHIVED)
    ids = [i for i, _ in (await store.recall("golden retriever puppy")).results]
    assert pets[0].thought_id not in ids
    assert pets[0].thought_id not in [i for i, _ in await store.search_fts("retriever")]
    again = await store.recall("golden retriever puppy", include_archived=True)
    assert again.results[0][0] == pets[0].thought_id


async def test_cycle_recency_prefers_fresh(make_store):
    store = make_store()
    old = thought("weekly standup notes about the release", created_cycle=0, updated_cycle=0)
    new = thought("weekly standup notes about the release.", created_cycle=100, updated_cycle=100)
    await store.bulk_store([old, new])
    ranked = await store.search_hybrid(
        "weekly standup notes", current_cycle=100, recency_weight=0.5
    )
    assert ranked.recency_axis == "cycle" and "recency" in ranked.backends_used
    assert ranked.results[0][0] == new.thought_id


async def test_transaction_recency_axis(make_store):
    ticks = iter([datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC)])
    current = {"now": next(ticks)}
    store = make_store(clock=lambda: current["now"])
    old = await store.create_thought(thought("quarterly planning meeting summary"))
    current["now"] = next(ticks)
    new = await store.create_thought(thought("quarterly planning meeting summary!"))
    ranked = await store.search_hybrid(
        "quarterly planning", recency_now="2024-03-02T00:00:00", recency_weight=0.5
    )
    assert ranked.recency_axis == "transaction"
    assert ranked.results[0][0] == new.thought_id and old.thought_id in dict(ranked.results)


async def test_recency_argument_errors(store, pets):
    with pytest.raises(RecencyModeConflictError):
        await store.search_hybrid("x", current_cycle=1, recency_now="2024-01-01T00:00:00Z")
    with pytest.raises(InvalidRecencyArgumentError):
        await store.search_hybrid("x", recency_now="last tuesday")
    with pytest.raises(InvalidRecencyArgumentError):
        await store.search_hybrid("x", recency_now="2024-01-01", recency_now_half_life=0)


async def test_cycle_provider_feeds_recency_and_is_validated(make_store):
    store = make_store(cycle_provider=StaticCycleProvider(7))
    await store.create_thought(thought("provider driven recency"))
    assert (await store.recall("provider driven")).recency_axis == "cycle"
    # an explicit recency_now wins over the provider without conflict
    assert (
        await store.recall("provider", recency_now="2024-01-01T00:00:00Z")
    ).recency_axis == "transaction"
    bad = make_store(cycle_provider=CallableCycleProvider(lambda: True))
    with pytest.raises(CycleProviderError, match="^the cycle provider gave True"):
        await bad.recall("anything")
    with pytest.raises(CycleProviderError, match="^the current_cycle argument gave -1"):
        await bad.consolidate(current_cycle=-1)  # the argument, not the provider, is wrong


@pytest.mark.parametrize("value", [0.0, 1e-300, 1e38])
async def test_a_query_vector_without_a_usable_norm_is_refused(store, pets, value):
    vector = [value] * store.vector_dimensions
    for search in (
        store.search_similar(vector),
        store.search_hybrid("golden retriever", query_vector=vector),
    ):
        with pytest.raises(ValidationFailedError, match="non-zero, finite length"):
            await search


async def test_without_provider_search_is_keyword_only(make_store):
    store = make_store(embedding_provider=None)
    t = await store.create_thought(thought("keyword only retrieval works"))
    result = await store.search_hybrid("retrieval")
    assert result.results[0][0] == t.thought_id and "vector" not in result.backends_used


async def test_a_query_of_invisible_characters_is_blank_text(store, pets):
    """Only whitespace and invisible characters (U+200B, U+2060, a BOM) is blank text, as
    empty text: with no vector there is nothing to match, so hybrid finds nothing, as the
    keyword search does (not every thought at score 0); a vector still ranks alone."""
    for blank in ("", "\u200b", " \u2060\ufeff\u200d "):
        assert await store.search_hybrid(blank) == HybridSearchResult()
        assert (await store.recall(blank)).results == []
        assert await store.search_fts(blank) == []
    vector = await store.get_embedding(pets[0].thought_id)
    by_vector = await store.search_hybrid("\u200b", query_vector=vector)
    assert by_vector.results[0][0] == pets[0].thought_id and "vector" in by_vector.backends_used


async def test_metadata_filter_in_hybrid(store):
    a = await store.create_thought(thought("shared topic", metadata={"speaker": "A"}))
    await store.create_thought(thought("shared topic too", metadata={"speaker": "B"}))
    result = await store.recall("shared topic", filters=MetadataFilter.equals(speaker="A"))
    assert [i for i, _ in result.results] == [a.thought_id]


async def test_access_tracking_buffer_and_flush(make_store):
    store = make_store(access_tracking_enabled=True)
    t = await store.create_thought(thought("tracked memory about sailing"))
    await store.get_thought(t.thought_id)
    await store.recall("sailing")
    assert (await store.get_thoughts([t.thought_id]))[t.thought_id].access_count == 0
    assert await store.flush_access_buffer() == 1
    got = (await store.get_thoughts([t.thought_id]))[t.thought_id]
    assert got.access_count == 2 and got.last_accessed_at is not None
    await store.record_access(t.thought_id)
    assert (await store.get_thoughts([t.thought_id]))[t.thought_id].access_count == 3


async def test_expired_thoughts_are_not_retrieved(store):
    gone = thought("ephemeral reminder about parking", expires_at=datetime.now(UTC) - timedelta(1))
    await store.create_thought(gone)
    assert await store.search_fts("parking") == []
