"""Thoughts edited by hand in Neo4j (as a person would in Neo4j Browser): an extra property is
kept and ignored; a value no write produces is named by a typed error on read (``get_thought``,
``list_thoughts``), named beside the other thoughts by a listing page (``list_page``, ``GET
/v1/thoughts``), ranked with defaults by retrieval, clustered with defaults by dreaming, and
repaired by an update giving its invalid fields valid values, so one such node never fails its
whole namespace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.model import InvalidStoredRecordError, ValidationFailedError
from tests.factories import thought

NOW = datetime(2026, 1, 1, tzinfo=UTC)


async def _in_browser(store, statement: str, thought_id: str) -> None:
    """Run what a person would type in Neo4j Browser against one thought."""
    async with store.executor.driver.session(database=store.executor.database) as session:
        result = await session.run(
            f"MATCH (t:Thought {{namespace: $ns, thought_id: $id}}) {statement}",
            ns=store.namespace,
            id=thought_id,
        )
        await result.consume()


async def test_a_hand_edited_thought_is_named_on_read_and_ranked_by_retrieval(store):
    urgent, plain, extra = await store.bulk_store(
        [
            thought("The deployment window is Tuesday 2-4pm UTC"),
            thought("Lunch is at noon on Fridays"),
            thought("The deploy checklist lives in the wiki"),
        ]
    )
    await _in_browser(store, "SET t.priority = 'URGENT', t.confidence = 7", urgent.thought_id)
    await _in_browser(store, "SET t.reviewed = true", extra.thought_id)

    assert (await store.get_thought(extra.thought_id)).essence == extra.essence
    with pytest.raises(InvalidStoredRecordError) as caught:
        await store.get_thought(urgent.thought_id)
    assert caught.value.record_id == urgent.thought_id
    assert "priority" in str(caught.value) and "Neo4j" in str(caught.value)
    with pytest.raises(InvalidStoredRecordError):
        await store.list_thoughts()

    response = await store.retrieve("deploy schedule", top_k=3, now=NOW)
    assert urgent.thought_id in [r.thought_id for r in response.results]


async def test_a_text_edited_by_hand_is_searched_as_edited(store):
    """An edit in Neo4j Browser is what the keyword arm searches and scores next, even a text
    set to a value that is not a string (read as empty; the essence still counts)."""
    first, second = await store.bulk_store(
        [thought("The deployment window is Tuesday 2-4pm UTC"), thought("Yak shearing in spring")]
    )
    await _in_browser(
        store,
        "SET t.essence = 'Xylophone lessons', t.content = 'Xylophone lessons on Monday'",
        first.thought_id,
    )
    await _in_browser(store, "SET t.essence = 'Xylophone', t.content = 42", second.thought_id)
    found = {tid for tid, _ in await store.search_fts("xylophone")}
    assert found == {first.thought_id, second.thought_id}
    assert await store.search_fts("deployment window") == []
    response = await store.retrieve("xylophone lessons", top_k=5, now=NOW)
    assert {r.thought_id for r in response.results} == found  # no query fails on the 42


async def test_a_text_removed_by_hand_leaves_the_other_searched(store):
    """``REMOVE t.essence`` leaves a thought found by its content (a missing text is empty)."""
    (edited,) = await store.bulk_store([thought("Xylophone lessons on Monday")])
    await _in_browser(store, "REMOVE t.essence", edited.thought_id)
    assert [tid for tid, _ in await store.search_fts("xylophone")] == [edited.thought_id]


async def test_a_listing_names_a_hand_edited_thought_and_lists_the_others(store):
    """A listing page (``list_page``, which ``GET /v1/thoughts`` reads) is not failed by one
    thought edited by hand: the others are listed, the broken one is named with its fields,
    and the page keeps its size and cursor."""
    broken, *others = await store.bulk_store(
        [thought("The deployment window is Tuesday"), thought("Lunch is at noon"), thought("Yak")]
    )
    await _in_browser(store, "SET t.content = 42", broken.thought_id)
    page = await store.list_page()
    assert {t.thought_id for t in page.thoughts} == {t.thought_id for t in others}
    assert [(e.record_id, e.fields) for e in page.invalid] == [(broken.thought_id, ["content"])]
    assert "update_thought" in str(page.invalid[0]) and page.next_cursor is None
    ids = sorted(t.thought_id for t in (broken, *others))
    first = await store.list_page(limit=2)
    assert len(first.thoughts) + len(first.invalid) == 2 and first.next_cursor == ids[1]
    rest = await store.list_page(after_id=first.next_cursor, limit=2)
    assert [t.thought_id for t in rest.thoughts] + [e.record_id for e in rest.invalid] == ids[2:]
    assert rest.next_cursor is None


async def test_an_update_giving_valid_values_repairs_a_hand_edited_thought(store):
    """update_thought (PATCH) reads the values it gives in place of the invalid stored ones, so
    it repairs the thought: text, embedding and content hash follow the new text. An update
    that leaves an invalid field as it is still names it."""
    first, second = await store.bulk_store(
        [thought("The deployment window is Tuesday"), thought("Lunch is at noon on Fridays")]
    )
    before = await store.get_embedding(first.thought_id)
    await _in_browser(store, "SET t.content = 42, t.priority = 'URGENT'", first.thought_id)
    with pytest.raises(InvalidStoredRecordError) as caught:
        await store.update_thought(first.thought_id, content="Deploys happen on Wednesday")
    assert caught.value.fields == ["priority"]  # the content is given, the priority is not
    with pytest.raises(InvalidStoredRecordError):
        await store.update_thought(first.thought_id, confidence=0.5)
    repaired = await store.update_thought(
        first.thought_id, content="Deploys happen on Wednesday", priority="P2"
    )
    assert (repaired.content, repaired.priority.value) == ("Deploys happen on Wednesday", "P2")
    assert await store.get_thought(first.thought_id) == repaired
    assert await store.get_embedding(first.thought_id) != before
    assert [tid for tid, _ in await store.search_fts("wednesday")] == [first.thought_id]
    duplicate = await store.create_thought(
        thought("Another deploy note", content="Deploys happen on Wednesday"), deduplicate=True
    )
    assert duplicate.thought_id == first.thought_id  # the content hash is the new text's
    assert {t.thought_id for t in await store.list_thoughts()} == {
        first.thought_id,
        second.thought_id,
    }


async def test_one_update_repairs_an_unreadable_metadata_and_another_field_together(store):
    """An unreadable ``metadata_json`` fails before the other fields are checked, so its first
    error names only ``metadata``; an update giving both broken fields valid values still
    repairs the thought."""
    (broken,) = await store.bulk_store([thought("The deployment window is Tuesday")])
    await _in_browser(
        store, "SET t.priority = 'URGENT', t.metadata_json = 'oops'", broken.thought_id
    )
    with pytest.raises(InvalidStoredRecordError) as caught:
        await store.get_thought(broken.thought_id)
    assert caught.value.fields == ["metadata"]
    repaired = await store.update_thought(broken.thought_id, priority="P2", metadata={"a": 1})
    assert (repaired.priority.value, repaired.metadata) == ("P2", {"a": 1})
    assert await store.get_thought(broken.thought_id) == repaired


@pytest.mark.parametrize(
    "field", ["valid_from", "valid_until", "created_at", "updated_at", "last_accessed_at"]
)
async def test_a_time_set_to_a_string_by_hand_is_ranked_with_defaults(store, field):
    """``SET t.valid_from = '2026-01-01T00:00:00Z'`` (a string, not a DATETIME, as Neo4j Browser
    stores a quoted time) fails no retrieval: the thought ranks as if it had no such time. A read
    takes an ISO 8601 string as its time and names the field of any other string."""
    edited, other = await store.bulk_store(
        [
            thought("The deployment window is Tuesday 2-4pm UTC", valid_from=NOW),
            thought("The deploy checklist lives in the wiki", valid_from=NOW),
        ]
    )
    for value in ("2026-01-01T00:00:00Z", "last Tuesday"):
        await _in_browser(store, f"SET t.{field} = '{value}'", edited.thought_id)
        for kwargs in ({}, {"recency_now": NOW}, {"pathway": "energy"}, {"pathway": "attention"}):
            response = await store.retrieve("deploy schedule", top_k=3, now=NOW, **kwargs)
            assert other.thought_id in [r.thought_id for r in response.results], kwargs
        response = await store.retrieve("what was the deploy schedule last week", now=NOW)
        assert response.results
        assert (await store.explain("deploy schedule", level="debug", now=NOW)).results
        assert await store.search_hybrid("deploy schedule")
        assert await store.recall("deploy schedule", recency_now=NOW)
        await store.consolidate(current_cycle=10)
    with pytest.raises(InvalidStoredRecordError) as caught:
        await store.get_thought(edited.thought_id)
    assert caught.value.fields == [field]


async def test_a_blank_text_stored_before_the_rule_stays_readable(store):
    """A thought whose essence or content shows nothing (``"\\u200b"``, which writes took before
    they refused blank text) is read and listed as stored; an update must give it a visible
    text, which repairs it."""
    (old,) = await store.bulk_store([thought("The deployment window is Tuesday")])
    await _in_browser(store, "SET t.essence = '\u200b', t.content = ' \u2060 '", old.thought_id)
    read = await store.get_thought(old.thought_id)
    assert (read.essence, read.content) == ("\u200b", " \u2060 ")
    assert [t.thought_id for t in await store.list_thoughts()] == [old.thought_id]
    with pytest.raises(ValidationFailedError, match="essence"):
        await store.update_thought(old.thought_id, priority="P2")
    repaired = await store.update_thought(old.thought_id, essence="Deploys", content="On Tuesday")
    assert (repaired.essence, repaired.content) == ("Deploys", "On Tuesday")


DOGS = [
    "Caroline adopted a golden retriever puppy named Max",
    "Caroline's golden retriever puppy Max loves playing fetch in the park",
    "Caroline walks her golden retriever puppy Max every morning",
    "Max, Caroline's retriever puppy, chewed her new shoes",
]


@pytest.mark.parametrize(
    "edit",
    [
        "SET t.confidence = 'high'",
        "SET t.confidence = 7",
        "SET t.confirmation_count = 'many', t.access_count = 'often'",
        "SET t.created_cycle = 'one', t.updated_cycle = 'one'",
        "SET t.valid_from = 'last Tuesday', t.valid_until = 'never', t.expires_at = 'never'",
        "SET t.essence = 42, t.content = 42",
    ],
)
async def test_dreaming_clusters_a_hand_edited_thought_with_defaults(store, edit):
    """A signal or summary field edited by hand into something no write produces (``SET
    t.confidence = 'high'``) fails no dreaming pass: the thought is clustered with the default
    for that field (an unset confidence, a count or cycle of 0, no time, an empty text)."""
    edited, *others = await store.bulk_store(
        [thought(text, created_cycle=1, updated_cycle=1, confidence=0.8) for text in DOGS]
    )
    await _in_browser(store, edit, edited.thought_id)
    result = await store.consolidate(2, config=DreamingConfig(similarity_threshold=0.6))
    assert result.reflections_created == 1
    (reflection,) = await store.list_thoughts(thought_type="REFLECTION")
    assert set(reflection.consolidated_from) == {t.thought_id for t in (edited, *others)}
    assert reflection.confidence == 0.8  # the members' set confidences; an unusable one is unset


@pytest.mark.parametrize("embedding", ["[1.0, 2.0, 3.0]", "[]", "'not a vector'"])
async def test_an_embedding_of_another_size_is_ranked_with_defaults(store, embedding):
    """``SET t.embedding = [1.0, 2.0, 3.0]`` (3 floats where the index holds 384) fails no
    ranked path: retrieval (every pathway, a causal question, the exact vector arm a metadata
    filter takes), explain, hybrid search and recall rank the thought as one without an
    embedding, found by its words; dreaming leaves it out, and a reflection so edited scores 0
    in ``search_reflections_only``."""
    texts = [
        "The deployment window is Tuesday 2-4pm UTC",
        "The deploy checklist lives in the wiki",
        "The deploy failed because of the schema migration",
    ]
    edited, *_ = await store.bulk_store([thought(t, metadata={"team": "ops"}) for t in texts])
    await _in_browser(store, f"SET t.embedding = {embedding}", edited.thought_id)
    for kwargs in (
        {},
        {"pathway": "energy"},
        {"pathway": "attention"},
        {"metadata_filter": {"team": "ops"}},
    ):
        response = await store.retrieve("deployment window", top_k=3, now=NOW, **kwargs)
        assert edited.thought_id in [r.thought_id for r in response.results], kwargs
    assert (await store.retrieve("why did the deploy fail?", now=NOW)).results
    explained = await store.explain("deployment window", level="debug", now=NOW)
    assert edited.thought_id in [r.thought_id for r in explained.results]
    for filters in (None, {"team": "ops"}):
        hits = await store.search_hybrid("deployment window", filters=filters)
        assert edited.thought_id in [tid for tid, _ in hits.results]
    assert await store.recall("deployment window", recency_now=NOW)

    dogs = await store.bulk_store([thought(t, created_cycle=1, updated_cycle=1) for t in DOGS])
    await _in_browser(store, f"SET t.embedding = {embedding}", dogs[0].thought_id)
    assert (await store.consolidate(2, config=DreamingConfig(similarity_threshold=0.6))).due
    (reflection,) = await store.list_thoughts(thought_type="REFLECTION")
    assert set(reflection.consolidated_from) == {t.thought_id for t in dogs[1:]}
    await _in_browser(store, f"SET t.embedding = {embedding}", reflection.thought_id)
    found = await store.search_reflections_only("golden retriever")
    assert found.results == [(reflection.thought_id, 0.0)]


def _cli(store, connection, command: str, query: str) -> subprocess.CompletedProcess[str]:
    """Run ``engrava-graph <command> <query> --json`` on the store's namespace."""
    return subprocess.run(
        [sys.executable, "-m", "engrava_graph.cli", command, query, "--json"]
        + ["-n", store.namespace, "--uri", connection.uri, "--user", connection.user]
        + ["--password", connection.password],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
        check=False,
    )


async def test_the_retrieve_command_ranks_an_embedding_of_another_size(store, connection):
    """``engrava-graph retrieve`` over a thought whose embedding was set by hand to 3 floats
    prints the memories, that one among them, instead of failing with Neo4j's error."""
    edited, _ = await store.bulk_store(
        [thought("The deployment window is Tuesday 2-4pm UTC"), thought("Lunch is at noon")]
    )
    await _in_browser(store, "SET t.embedding = [1.0, 2.0, 3.0]", edited.thought_id)
    done = _cli(store, connection, "retrieve", "deployment window")
    assert done.returncode == 0, done.stderr
    assert edited.thought_id in [r["thought_id"] for r in json.loads(done.stdout)["results"]]


RANKING_EDITS = [
    "SET t.access_count = 'many'",
    "SET t.updated_cycle = 'x'",
    "SET t.pinned = 'yes', t.access_count = -3, t.updated_cycle = 1.5",
    "SET t.thought_type = 5",
    "SET t.thought_type = 'IDEA', t.priority = ['P1']",
]
"""Hand edits of what ranking reads, each ranked with the defaults (with a warning)."""


async def _hand_edited(store, edit: str):
    """Two deploy notes and a question about them, the first edited by hand with ``edit``."""
    edited, other = await store.bulk_store(
        [
            thought("The deployment window is Tuesday 2-4pm UTC"),
            thought("The deploy checklist lives in the wiki"),
        ]
    )
    await _in_browser(store, edit, edited.thought_id)
    return edited, other


@pytest.mark.parametrize("edit", RANKING_EDITS)
async def test_a_ranking_field_edited_by_hand_is_ranked_with_defaults(store, edit, caplog):
    """``SET t.access_count = 'many'`` (or a cycle, count, flag, thought type or priority of
    another type) fails no retrieval or explain, on every clock and a causal question: the
    thought is ranked with the defaults and one warning per call names it and the field."""
    edited, _ = await _hand_edited(store, edit)
    for kwargs in ({}, {"current_cycle": 3}, {"recency_now": NOW}, {"pathway": "energy"}):
        response = await store.retrieve("deploy schedule", top_k=3, now=NOW, **kwargs)
        assert edited.thought_id in [r.thought_id for r in response.results], kwargs
    warning = f"thought {edited.thought_id!r} has invalid {edit.split()[1][2:]}"  # first field
    for question in ("why did the deploy fail?", "deploy schedule"):  # a causal one ranks twice
        caplog.clear()
        assert (await store.retrieve(question, now=NOW)).results
        assert caplog.text.count(warning) == 1, question
    caplog.clear()
    explained = await store.explain("why did the deploy fail?", level="debug", now=NOW)
    assert edited.thought_id in [r.thought_id for r in explained.results]
    assert caplog.text.count(warning) == 1


@pytest.mark.parametrize("cycle", ["'x'", "1.5", "[1]"])
async def test_hybrid_search_ranks_a_cycle_edited_by_hand_as_cycle_0(store, cycle):
    """``search_hybrid`` and ``recall`` on the cycle axis rank a thought whose updated_cycle was
    set by hand to something that is not an integer as one updated at cycle 0, not a
    ValueError."""
    edited, _ = await _hand_edited(store, f"SET t.updated_cycle = {cycle}")
    hits = await store.search_hybrid("deploy schedule", current_cycle=3)
    assert edited.thought_id in [tid for tid, _ in hits.results]
    recalled = await store.recall("deploy schedule", current_cycle=3)
    assert edited.thought_id in [tid for tid, _ in recalled.results]


STANDUP = [
    {"speaker": "Ann", "content": "When is the deploy window this week?"},
    {"speaker": "Bob", "content": "The deploy window is Tuesday 2-4pm UTC"},
    {"speaker": "Ann", "content": "And who approves the deploy?"},
    {"speaker": "Bob", "content": "Cleo approves every deploy"},
]
"""A conversation about deploys (its messages have positions 0-3)."""


@pytest.mark.parametrize("position", ["'abc'", "1.5", "true"])
async def test_a_position_edited_by_hand_is_no_position(store, connection, position):
    """``SET t.position = 'abc'`` on a message fails no retrieval, explain or command: the
    message is ranked as one without a position (no conversation neighbours), with a warning,
    and the other messages keep theirs."""
    messages = [m.thought for m in await store.add_messages("standup", STANDUP)]
    edited = messages[1]
    await _in_browser(store, f"SET t.position = {position}", edited.thought_id)
    for query in ("when is the deploy window?", "why did the deploy fail?"):
        response = await store.retrieve(query, now=NOW)
        assert edited.thought_id in [r.thought_id for r in response.results], query
    explained = await store.explain("who approves the deploy?", level="debug", now=NOW)
    traces = {c.thought_id: c for c in explained.candidates or []}
    assert not any(v.startswith("CONVERSATION") for v in traces[edited.thought_id].via)
    assert f"CONVERSATION from {messages[2].thought_id}" in traces[messages[3].thought_id].via
    done = _cli(store, connection, "retrieve", "when is the deploy window?")
    assert done.returncode == 0, done.stderr
    assert f"thought {edited.thought_id!r} has invalid position" in done.stderr


async def test_the_commands_rank_a_thought_edited_by_hand(store, connection):
    """``engrava-graph retrieve`` and ``explain`` over thoughts edited by hand print the
    memories, the edited ones among them, and one warning naming each, not an error (a causal
    question too, which ranks its memories twice)."""
    texts = [
        "The deploy window is Tuesday",
        "Deploys need two reviews",
        "Deploy logs go to S3",
        "Deploy rollbacks take ten minutes",
        "Deploy freezes start in December",
    ]
    edited = await store.bulk_store([thought(text) for text in texts])
    for t, edit in zip(edited, RANKING_EDITS, strict=True):
        await _in_browser(store, edit, t.thought_id)
    for command, query in [
        ("retrieve", "deploy schedule"),
        ("explain", "deploy schedule"),
        ("explain", "why did the deploy fail?"),
    ]:
        done = _cli(store, connection, command, query)
        assert done.returncode == 0, done.stderr
        found = [r["thought_id"] for r in json.loads(done.stdout)["results"]]
        for t in edited:
            assert t.thought_id in found, (command, query)
            assert done.stderr.count(f"thought {t.thought_id!r} has invalid") == 1, done.stderr
