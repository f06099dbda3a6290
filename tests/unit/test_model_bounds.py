"""What the models refuse before anything reaches Neo4j (no database): integers outside signed
64 bits, NaN and infinities, instants outside the calendar; see engrava_graph/model/bounds.py."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from engrava_graph.dreaming.config import DreamingConfig, DreamingGates, HygienePolicy
from engrava_graph.model import (
    CycleProviderError,
    EdgeRecord,
    InvalidFilterError,
    MetadataFilter,
    ThoughtRecord,
    ValidationFailedError,
)
from engrava_graph.model.bounds import INT64_MAX, INT64_MIN, scalar_problem
from engrava_graph.model.cycles import validate_cycle
from engrava_graph.model.temporal import from_epoch_millis, from_epoch_parts, to_utc
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.temporal import period_bounds
from engrava_graph.search.fusion import SearchConfig, TimeConfig
from engrava_graph.wire import (
    BulkThoughts,
    DreamRequest,
    RestoreRequest,
    ThoughtCreate,
    ThoughtPatch,
)

THOUGHT = {"thought_type": "NOTE", "essence": "e", "content": "c", "source": "unit"}
EDGE = {"from_thought_id": "a", "to_thought_id": "b", "edge_type": "ASSOCIATED"}
OFF_CALENDAR = "0001-01-01T00:00:00+00:01"  # UTC: 31 Dec of year 0


def _refused(model: type[BaseModel], data: dict[str, Any]) -> list[dict[str, Any]]:
    """Validate ``data`` as JSON text (``NaN``/``Infinity`` literals allowed, as the API's
    ``json.loads`` does) and return pydantic's errors; fail if it validates."""
    with pytest.raises(ValidationError) as caught:
        model.model_validate(json.loads(json.dumps(data)))
    return caught.value.errors()


def _field(errors: list[dict[str, Any]]) -> str:
    return ".".join(str(p) for p in errors[0]["loc"])


@pytest.mark.parametrize(
    "field",
    ["access_count", "confirmation_count", "created_cycle", "updated_cycle", "archived_at_cycle"],
)
def test_thought_counts_and_cycles_stop_at_int64_max(field: str) -> None:
    errors = _refused(ThoughtRecord, {**THOUGHT, field: 2**63})
    assert _field(errors) == field
    assert errors[0]["msg"] == f"Input should be less than or equal to {INT64_MAX}"
    assert _field(_refused(ThoughtRecord, {**THOUGHT, field: -1})) == field
    top = {field: INT64_MAX} | ({"updated_cycle": INT64_MAX} if field == "created_cycle" else {})
    assert getattr(ThoughtRecord(**THOUGHT, **top), field) == INT64_MAX


@pytest.mark.parametrize("value", [2**64, 2**63, INT64_MIN - 1])
def test_metadata_integers_outside_int64_are_refused_with_their_path(value: int) -> None:
    for metadata, path in (({"n": value}, "'n'"), ({"a": {"b": {"n": value}}}, "'a.b.n'")):
        errors = _refused(ThoughtRecord, {**THOUGHT, "metadata": metadata})
        assert _field(errors) == "metadata"
        assert path in errors[0]["msg"] and "signed 64-bit" in errors[0]["msg"]
    assert _field(_refused(EdgeRecord, {**EDGE, "metadata": {"n": value}})) == "metadata"


def test_metadata_limits_are_inclusive_and_bools_are_not_integers() -> None:
    metadata = {"lo": INT64_MIN, "hi": INT64_MAX, "flag": True, "x": {"f": 1e308}}
    assert ThoughtRecord(**THOUGHT, metadata=metadata).metadata == metadata


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_floats_are_refused_everywhere(value: float) -> None:
    cases: list[tuple[type[BaseModel], dict[str, Any], str]] = [
        (ThoughtRecord, {**THOUGHT, "confidence": value}, "confidence"),
        (ThoughtRecord, {**THOUGHT, "metadata": {"a": {"f": value}}}, "metadata"),
        (EdgeRecord, {**EDGE, "weight": value}, "weight"),
        (EdgeRecord, {**EDGE, "confidence": value}, "confidence"),
        (EdgeRecord, {**EDGE, "decay_multiplier": value}, "decay_multiplier"),
        (ThoughtCreate, {**THOUGHT, "expires_after_seconds": value}, "expires_after_seconds"),
        (ThoughtCreate, {**THOUGHT, "embedding": [0.5, value]}, "embedding.1"),
        (BulkThoughts, {"thoughts": [THOUGHT], "embeddings": [[value]]}, "embeddings.0.0"),
        (ThoughtPatch, {"confidence": value}, "confidence"),
        (RetrieveRequest, {"query": "q", "min_confidence": value}, "min_confidence"),
        (RetrieveRequest, {"query": "q", "temporal_weight": value}, "temporal_weight"),
        (RetrieveRequest, {"query": "q", "causal_weight": value}, "causal_weight"),
    ]
    for model, data, field in cases:
        errors = _refused(model, data)
        assert _field(errors) == field, (model.__name__, errors)
        if field != "metadata":
            assert errors[0]["msg"] == "Input should be a finite number"


@pytest.mark.parametrize(
    "model,data,field",
    [
        (EdgeRecord, {**EDGE, "created_cycle": 2**63}, "created_cycle"),
        (ThoughtPatch, {"updated_cycle": 2**63}, "updated_cycle"),
        (RestoreRequest, {"current_cycle": 2**63}, "current_cycle"),
        (DreamRequest, {"current_cycle": 2**63}, "current_cycle"),
        (RetrieveRequest, {"query": "q", "current_cycle": 2**63}, "current_cycle"),
        (
            BulkThoughts,
            {"thoughts": [{**THOUGHT, "access_count": 2**63}]},
            "thoughts.0.access_count",
        ),
    ],
)
def test_request_models_bound_their_cycles(
    model: type[BaseModel], data: dict[str, Any], field: str
) -> None:
    assert _field(_refused(model, data)) == field


@pytest.mark.parametrize("field", ["expires_at", "valid_from", "valid_until", "last_accessed_at"])
def test_an_instant_outside_the_calendar_in_utc_is_a_validation_error(field: str) -> None:
    errors = _refused(ThoughtRecord, {**THOUGHT, field: OFF_CALENDAR})
    assert _field(errors) == field and "outside the representable instants" in errors[0]["msg"]
    late = datetime(9999, 12, 31, 23, 59, tzinfo=timezone(-timedelta(minutes=1)))
    with pytest.raises(ValueError, match="representable"):
        to_utc(late)
    assert _field(_refused(BulkThoughts, {"thoughts": [{**THOUGHT, field: OFF_CALENDAR}]})) == (
        f"thoughts.0.{field}"
    )


def test_calendar_edges_and_naive_instants_are_accepted_as_utc() -> None:
    first, last = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
    t = ThoughtRecord(
        **THOUGHT,
        valid_from="0001-01-01T00:00:00Z",
        valid_until=last,
        expires_at=datetime(2030, 1, 1),
    )
    assert t.valid_from == first and t.valid_until == last
    assert t.expires_at == datetime(2030, 1, 1, tzinfo=UTC)  # naive = UTC


def test_retrieve_request_instants_and_filters_fail_typed() -> None:
    with pytest.raises(ValidationFailedError) as caught:
        RetrieveRequest.build(query="q", recency_now=OFF_CALENDAR)
    assert caught.value.errors[0]["loc"] == ("recency_now",)
    with pytest.raises(InvalidFilterError, match="signed 64-bit"):
        RetrieveRequest.build(query="q", metadata_filter={"n": 2**64})
    with pytest.raises(InvalidFilterError, match="finite"):
        MetadataFilter.from_mapping({"n": [1, float("nan")]})


def test_epoch_millis_are_exact_and_out_of_range_reads_as_missing() -> None:
    assert from_epoch_millis(1_700_000_000_123) == datetime(
        2023, 11, 14, 22, 13, 20, 123000, tzinfo=UTC
    )
    assert from_epoch_millis(-62_135_596_800_000) == datetime.min.replace(tzinfo=UTC)
    assert from_epoch_millis(253_402_300_799_999).year == 9999
    for out in (-62_135_596_800_001, 253_402_300_800_000, INT64_MAX, INT64_MIN):
        assert from_epoch_millis(out) is None
    assert from_epoch_millis(None) is None


def test_epoch_parts_are_exact_to_the_microsecond_and_out_of_range_reads_as_missing() -> None:
    assert from_epoch_parts([1_700_000_000, 123_456]) == datetime(
        2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC
    )
    assert from_epoch_parts([-62_135_596_800, 0]) == datetime.min.replace(tzinfo=UTC)
    assert from_epoch_parts([253_402_300_799, 999_999]) == datetime.max.replace(tzinfo=UTC)
    for out in ([253_402_300_800, 0], [-62_135_596_801, 0], [INT64_MAX, 0], [INT64_MIN, 0]):
        assert from_epoch_parts(out) is None
    assert from_epoch_parts(None) is None
    assert from_epoch_parts([None, None]) is None


def test_a_period_past_year_9999_ends_at_the_last_instant() -> None:
    last = datetime.max.replace(tzinfo=UTC)
    for period in ("year", "month", "week", "day"):
        start, end = period_bounds(datetime(9999, 12, 31, 12, tzinfo=UTC), period)
        assert start <= datetime(9999, 12, 31, 12, tzinfo=UTC) < end == last


def test_cycles_given_to_the_library_stop_at_int64_max() -> None:
    assert validate_cycle(INT64_MAX) == INT64_MAX
    with pytest.raises(CycleProviderError, match="2\\*\\*63-1"):
        validate_cycle(2**63)


@pytest.mark.parametrize(
    "model,data",
    [
        (SearchConfig, {"fts_weight": float("inf")}),
        (SearchConfig, {"vector_overfetch": 2**63}),
        (TimeConfig, {"access_decay_rate": float("nan")}),
        (RetrievalConfig, {"max_entity_degree": 2**63}),
        (DreamingConfig, {"signals": {"recency": float("inf")}}),
        (DreamingGates, {"max_cluster_size": 2**63}),
        (HygienePolicy, {"max_access_count": 2**63}),
    ],
)
def test_configuration_reaching_cypher_is_bounded_too(
    model: type[BaseModel], data: dict[str, Any]
) -> None:
    _refused(model, data)


def test_scalar_problem_names_each_kind() -> None:
    assert scalar_problem(None) is None and scalar_problem(INT64_MIN) is None
    assert "64-bit" in (scalar_problem(INT64_MAX + 1) or "")
    assert scalar_problem(float("inf")) == "is not a finite number"
    assert "not a scalar" in (scalar_problem([1]) or "")


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("top_k", True, "not a boolean"),
        ("top_k", "3", "not a string"),
        ("top_k", 5.0, "not a float"),
        ("min_confidence", False, "not a boolean"),
        ("min_confidence", "0.5", "not a string"),
        ("spread_depth", True, "not a boolean"),
    ],
)
def test_numeric_fields_refuse_what_lax_parsing_would_convert(
    field: str, value: Any, says: str
) -> None:
    with pytest.raises(ValidationError, match=says):
        RetrieveRequest(query="q", **{field: value})


def test_numeric_fields_take_plain_and_numpy_numbers() -> None:
    import numpy as np

    request = RetrieveRequest(
        query="q", top_k=np.int64(4), min_confidence=1, temporal_weight=np.float32(0.5)
    )
    assert (request.top_k, request.min_confidence, request.temporal_weight) == (4, 1.0, 0.5)
    assert RetrieveRequest.model_validate_json('{"query": "q", "top_k": 7}').top_k == 7
