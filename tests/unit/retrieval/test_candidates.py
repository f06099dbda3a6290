"""Reading candidates back from the cycle's row lists (retrieval/_ranking_fields and
retrieval/_display_fields): instants from their two parts, and values a hand edit left that no
write produces."""

import logging
from datetime import UTC, datetime

import pytest

from engrava_graph.retrieval.candidates import (
    DISPLAY_FIELDS,
    RANKING_FIELDS,
    Candidate,
    MemoryFields,
    warn_hand_edited,
)


def row(**values: object) -> list[object]:
    """A ranking-fields row with defaults for what the test does not set."""
    fields = dict.fromkeys(RANKING_FIELDS)
    fields.update(thought_id="a", element_id="4:x:1", thought_type="OBSERVATION", priority="P3")
    fields.update(pinned=False, access_count=0)  # coalesced by the fragment
    fields.update(values)
    return list(fields.values())


def test_an_instant_is_read_from_its_seconds_and_microsecond() -> None:
    fields = MemoryFields.from_row(row(created_s=1_767_225_600, created_us=250_000))
    assert fields.created_at == datetime(2026, 1, 1, 0, 0, 0, 250_000, tzinfo=UTC)
    assert fields.updated_at is None and fields.valid_from is None


def test_hand_edited_ranking_values_rank_as_the_defaults() -> None:
    fields = MemoryFields.from_row(row(priority="URGENT", confidence=7, access_count=None))
    assert (fields.priority, fields.confidence, fields.access_count) == ("P3", None, 0)
    assert fields.fixed == ("priority", "confidence", "access_count")
    assert MemoryFields.from_row(row()).fixed == ()


@pytest.mark.parametrize(
    "values",
    [{"access_count": "many"}, {"access_count": True}, {"access_count": -3}, {"updated_cycle": "x"},
     {"updated_cycle": 1.5}, {"pinned": "yes"}, {"position": "abc"}, {"position": 1.5}],
)  # fmt: skip
def test_counts_cycles_positions_and_flags_of_another_type_rank_as_the_defaults(
    values: dict[str, object],
) -> None:
    fields = MemoryFields.from_row(row(**values))
    assert (fields.access_count, fields.updated_cycle, fields.pinned) == (0, 0, False)
    assert fields.position is None
    assert fields.fixed == tuple(values)


@pytest.mark.parametrize("values", [{"thought_type": 5}, {"thought_type": "IDEA"},
                                    {"thought_type": None}, {"priority": ["P1"]}])  # fmt: skip
def test_a_thought_type_or_priority_of_another_type_ranks_as_the_default(
    values: dict[str, object],
) -> None:
    fields = MemoryFields.from_row(row(**values))
    assert (fields.thought_type, fields.priority) == ("OBSERVATION", "P3")
    assert fields.fixed == tuple(values)


def test_display_fields_are_added_and_bad_ones_shown_as_defaults() -> None:
    assert len(DISPLAY_FIELDS) == 3
    bare = MemoryFields.from_row(row())
    assert bare.essence is None and bare.metadata is None
    shown = bare.with_display(["a", "The deploy window", '{"team": "ops"}'])
    assert (shown.essence, shown.metadata) == ("The deploy window", {"team": "ops"})
    odd = MemoryFields.from_row(row(priority="URGENT")).with_display(["a", 42, "not json"])
    assert (odd.essence, odd.metadata) == ("42", {})
    assert odd.fixed == ("priority", "essence", "metadata_json")
    assert bare.with_display(["a", "x", "[1, 2]"]).metadata == {}


def test_each_memory_read_with_defaults_is_warned_of_once_with_all_its_fields(
    caplog: pytest.LogCaptureFixture,
) -> None:
    edited = MemoryFields.from_row(row(priority="URGENT")).with_display(["a", 42, "{}"])
    plain = MemoryFields.from_row(row(thought_id="b")).with_display(["b", "x", "{}"])
    with caplog.at_level(logging.WARNING):
        warn_hand_edited([Candidate("a", fields=edited), Candidate("b", fields=plain),
                          Candidate("c")])  # fmt: skip
    assert [r.getMessage() for r in caplog.records] == [
        "thought 'a' has invalid priority, essence in Neo4j (edited by hand?); ranked with defaults"
    ]
