"""The thought-graph model without a database: records, enums, errors, metadata, time, cycles."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from engrava_graph.model import (
    CallableCycleProvider,
    CycleProviderError,
    EdgeRecord,
    EdgeType,
    FieldOp,
    FieldPredicate,
    InvalidFilterError,
    InvalidNamespaceError,
    InvalidTransitionError,
    LifecycleStatus,
    MetadataFilter,
    Priority,
    StaticCycleProvider,
    ThoughtRecord,
    ThoughtType,
    ValidTimeFilter,
)
from engrava_graph.model.bounds import STORED
from engrava_graph.model.cycles import resolve_cycle
from engrava_graph.model.metadata import MAX_METADATA_KEYS, flatten_metadata
from engrava_graph.model.namespace import fulltext_namespace_token, validate_namespace
from tests.factories import thought


def test_thought_types_are_exactly_the_six():
    assert [t.value for t in ThoughtType] == [
        "TASK",
        "OBSERVATION",
        "BELIEF",
        "REFLECTION",
        "OUTPUT_DRAFT",
        "NOTE",
    ]
    assert ThoughtType.OUTPUT_DRAFT.label == "OutputDraft"


def test_edge_types_include_the_causal_pair():
    assert {"CAUSED_BY", "LEADS_TO", "CONSOLIDATED_FROM", "MESSAGE_OF"} <= {
        e.value for e in EdgeType
    }


def test_priority_orders_p1_first():
    assert sorted([Priority.P3, Priority.P1, Priority.P4]) == [
        Priority.P1,
        Priority.P3,
        Priority.P4,
    ]


def test_essence_of_201_characters_is_rejected_with_a_clear_message():
    with pytest.raises(ValidationError, match="at most 200 characters"):
        thought("x" * 201)
    assert len(thought("x" * 200).essence) == 200


@pytest.mark.parametrize(
    "field,value",
    [
        ("content", ""),
        ("source", ""),
        ("confidence", 1.5),
        ("created_cycle", -1),
        ("thought_type", "IDEA"),
    ],
)
def test_bad_fields(field, value):
    with pytest.raises(ValidationError):
        thought("ok", **{field: value})
    with pytest.raises(ValidationError, match="visible character"):
        thought("   ")


@pytest.mark.parametrize("field", ["essence", "content", "source"])
@pytest.mark.parametrize("text", ["", "   ", "\u200b", " \u2060\ufeff\u00ad\t"])
def test_a_required_text_that_shows_nothing_is_refused_as_an_empty_one(field, text):
    """Only whitespace and invisible characters is blank, by the rule of a blank query."""
    with pytest.raises(ValidationError, match=field):
        thought(**{"essence": "ok", field: text})
    assert getattr(thought(**{"essence": "ok", field: f"{text}x"}), field) == f"{text}x"


def test_cycle_order_and_valid_interval():
    with pytest.raises(ValidationError, match="updated_cycle"):
        thought("x", created_cycle=5, updated_cycle=4)
    with pytest.raises(ValidationError, match="valid_from"):
        thought("x", valid_from="2024-02-01", valid_until="2024-01-01")


def test_lifecycle_transitions():
    t = thought("x", lifecycle_status=LifecycleStatus.CREATED)
    with pytest.raises(InvalidTransitionError, match="CREATED to DONE"):
        t.evolve(lifecycle_status=LifecycleStatus.DONE)
    active = t.evolve(lifecycle_status=LifecycleStatus.ACTIVE)
    archived = active.evolve(lifecycle_status=LifecycleStatus.ARCHIVED)
    assert archived.evolve(lifecycle_status=LifecycleStatus.ACTIVE).is_active()
    # a plain string is a status too: the same check, then coerced
    with pytest.raises(InvalidTransitionError, match="CREATED to DONE"):
        t.evolve(lifecycle_status="DONE")
    assert t.evolve(lifecycle_status="ACTIVE").lifecycle_status is LifecycleStatus.ACTIVE


def test_created_at_is_immutable_but_restating_is_fine():
    t = thought("x", created_at="2024-01-01T00:00:00+00:00")
    assert t.evolve(created_at="2024-01-01T01:00:00+01:00").created_at == t.created_at
    with pytest.raises(ValueError, match="immutable"):
        t.evolve(created_at="2024-01-02T00:00:00Z")


def test_instants_are_normalised_to_utc():
    t = thought(
        "x",
        valid_from=datetime(2024, 1, 1, 2, tzinfo=timezone(timedelta(hours=2))),
        valid_until="2024-01-02T00:00:00",
    )
    assert t.valid_from == datetime(2024, 1, 1, tzinfo=UTC)
    assert t.valid_until.tzinfo is UTC


def test_an_instant_that_is_not_iso_8601_says_what_was_expected():
    with pytest.raises(ValidationError) as caught:
        thought("x", valid_from="garbage")
    message = caught.value.errors()[0]["msg"]
    assert "expected an ISO-8601 instant such as 2025-06-13T18:00:00Z, got 'garbage'" in message
    assert "isoformat" not in message


def test_metadata_rules_and_flattening():
    with pytest.raises(ValidationError, match="leaves must be"):
        thought("x", metadata={"l": [1, 2]})
    with pytest.raises(ValidationError, match="invalid"):
        thought("x", metadata={"a.b": 1})
    assert flatten_metadata({"a": {"b": 1, "c": None}, "d": "e"}) == {"meta.a.b": 1, "meta.d": "e"}


def test_metadata_holds_at_most_max_metadata_keys_nested_ones_counted():
    """Every leaf is a property of the node: a body of 280,000 keys kept Neo4j busy for minutes."""
    flat = {f"k{i}": i for i in range(MAX_METADATA_KEYS)}
    assert thought("x", metadata=flat).metadata == flat
    nested = {f"k{i}": {"a": i} for i in range(MAX_METADATA_KEYS // 2)}  # 256 keys in all
    assert thought("x", metadata=nested).metadata == nested
    for wide in ({**flat, "one_more": 1}, {**nested, "one_more": {}}, {"a": {"b": flat, "c": 1}}):
        with pytest.raises(ValidationError, match=f"more than {MAX_METADATA_KEYS} keys"):
            thought("x", metadata=wide)
    # a thought stored before the cap stays readable
    stored = thought("x").model_dump() | {"metadata": {**flat, "one_more": 1}}
    assert len(ThoughtRecord.model_validate(stored, context=STORED).metadata) == 257


def test_metadata_filter_compiles_to_parameters():
    f = MetadataFilter((FieldPredicate("$.speaker", FieldOp.IN, ["A", None]),))
    assert f.to_params() == [{"key": "meta.speaker", "values": ["A"], "match_null": True}]
    for bad in ("a..b", "x'}) DETACH DELETE n //", ""):
        with pytest.raises(InvalidFilterError):
            FieldPredicate(bad, FieldOp.EQ, 1)
    with pytest.raises(InvalidFilterError):
        FieldPredicate("a", FieldOp.EQ, [1])
    with pytest.raises(InvalidFilterError):
        FieldPredicate("a", "LIKE", 1)


def test_a_filters_argument_is_a_filter_or_a_mapping_by_the_rule_of_retrieve():
    """Every ``filters`` argument goes through ``MetadataFilter.of``: a mapping gets the rule
    of ``retrieve``'s ``metadata_filter``, anything else a typed error naming the argument."""
    given = MetadataFilter.equals(speaker="Ann")
    assert MetadataFilter.of(given) is given
    assert MetadataFilter.of(None) == MetadataFilter()
    assert MetadataFilter.of({"speaker": "Ann", "session": [1, 2]}).to_params() == [
        {"key": "meta.speaker", "values": ["Ann"], "match_null": False},
        {"key": "meta.session", "values": [1, 2], "match_null": False},
    ]
    with pytest.raises(InvalidFilterError, match="filter path 'a..b' is invalid"):
        MetadataFilter.of({"a..b": 1})
    for empty in ([], ()):  # it would silently match nothing
        with pytest.raises(InvalidFilterError, match="'topic': an empty list matches nothing"):
            MetadataFilter.of({"speaker": "Ann", "topic": empty})
    with pytest.raises(InvalidFilterError, match="filters must be a MetadataFilter .* got list"):
        MetadataFilter.of([("speaker", "Ann")])  # type: ignore[arg-type]


def test_bi_temporal_predicates():
    jan, feb, mar = (datetime(2024, m, 1, tzinfo=UTC) for m in (1, 2, 3))
    assert ValidTimeFilter.at(feb).matches(jan, mar)
    assert ValidTimeFilter.at(feb).matches(None, None)
    assert not ValidTimeFilter.at(mar).matches(jan, mar)  # valid_until is exclusive
    assert ValidTimeFilter.within(feb, mar).matches(jan, None)
    assert not ValidTimeFilter.between(jan, mar).matches(None, feb)  # open bound excluded
    assert ValidTimeFilter.between(jan, mar).matches(jan, feb)
    with pytest.raises(ValidationError):
        ValidTimeFilter.within(mar, jan)


def test_edge_record_rules():
    with pytest.raises(ValidationError, match="itself"):
        EdgeRecord(from_thought_id="a", to_thought_id="a", edge_type=EdgeType.ASSOCIATED)
    e = EdgeRecord(from_thought_id="a", to_thought_id="b", edge_type="LEADS_TO", weight=0.4)
    assert e.link_confidence == 0.4
    with pytest.raises(ValueError, match="cannot change"):
        e.evolve(edge_type=EdgeType.ASSOCIATED)


def test_cycle_providers():
    assert resolve_cycle(0, StaticCycleProvider(9)) == 0  # explicit 0 wins
    assert resolve_cycle(None, StaticCycleProvider(9)) == 9
    assert resolve_cycle(None, None) is None
    for bad in (True, -1, 1.5, "3"):
        with pytest.raises(CycleProviderError, match="^the cycle provider gave"):
            CallableCycleProvider(lambda b=bad: b).current_cycle()


def test_cycle_error_names_where_the_cycle_came_from():
    with pytest.raises(CycleProviderError, match="^the current_cycle argument gave -1 "):
        resolve_cycle(-1, StaticCycleProvider(9))
    with pytest.raises(CycleProviderError, match="^the cycle provider gave -1 "):
        resolve_cycle(None, CallableCycleProvider(lambda: -1))
    with pytest.raises(CycleProviderError, match="^StaticCycleProvider's value gave -1 "):
        StaticCycleProvider(-1)


def test_transition_error_reason_replaces_the_generic_steps():
    error = InvalidTransitionError(
        entity_type="LifecycleStatus",
        current_state="DONE",
        target_state="ACTIVE",
        reason="needs ARCHIVED; it is DONE",
    )
    assert str(error) == "needs ARCHIVED; it is DONE"
    assert (error.current_state, error.target_state) == ("DONE", "ACTIVE")


def test_namespaces():
    assert validate_namespace("conv-26_a") == "conv-26_a"
    for bad in ("", "a b", "x" * 65, "a/b", None):
        with pytest.raises(InvalidNamespaceError):
            validate_namespace(bad)
    assert fulltext_namespace_token("a") == "ns61"


def test_record_is_frozen():
    t = thought("x")
    with pytest.raises(ValidationError):
        t.essence = "y"  # type: ignore[misc]
    assert isinstance(t, ThoughtRecord)


@pytest.mark.parametrize(
    "bad", ["notes/today", "../x", ".", "..", "a\\b", "tab\tid", " ", "x" * 129]
)
def test_ids_that_no_url_path_can_address_are_refused(bad: str) -> None:
    with pytest.raises(ValidationError, match="thought_id"):
        ThoughtRecord(
            thought_id=bad, thought_type="OBSERVATION", essence="e", content="c", source="s"
        )
    with pytest.raises(ValidationError, match="edge_id"):
        EdgeRecord(edge_id=bad, from_thought_id="a", to_thought_id="b", edge_type="LEADS_TO")
    with pytest.raises(ValidationError, match="to_thought_id"):
        EdgeRecord(from_thought_id="a", to_thought_id=bad, edge_type="LEADS_TO")


@pytest.mark.parametrize("fine", ["D1:3", "O1:Caroline:0", "a..b", "..x", "note 7?", "café#1"])
def test_ids_the_peer_uses_and_url_paths_carry_are_kept(fine: str) -> None:
    record = ThoughtRecord(
        thought_id=fine, thought_type="OBSERVATION", essence="e", content="c", source="s"
    )
    assert record.thought_id == fine


def test_a_stored_id_from_before_the_rule_stays_readable() -> None:
    data = {
        "thought_id": "legacy/1",
        "thought_type": "OBSERVATION",
        "essence": "e",
        "content": "c",
        "source": "s",
    }
    assert ThoughtRecord.model_validate(data, context=STORED).thought_id == "legacy/1"


def test_a_property_set_in_neo4j_browser_does_not_break_reading_the_record():
    """Properties other than the record's fields (ours, such as ``embedding``, or one a person
    set by hand, ``SET t.reviewed = true``) stay on the node and out of the record."""
    from engrava_graph.graph.mapping import record_properties, thought_from_properties

    record = thought("Deploy window is Tuesday", metadata={"team": "ops"})
    props = {
        **record_properties(record),
        "namespace": "default",
        "embedding": [0.1, 0.2],
        "reviewed": True,
        "metadata": "by hand",
    }
    assert thought_from_properties(props) == record
