"""Frozen value types of the retrieval cycle."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from engrava_graph.model.errors import EngravaGraphError, InvalidQueryError
from engrava_graph.retrieval.types import Intent, Pathway, PathwayScores, TemporalRange


def test_enum_values_are_lowercase_strings() -> None:
    assert [i.value for i in Intent] == ["factual", "causal", "temporal", "exploratory"]
    assert [p.value for p in Pathway] == ["exact", "energy", "attention"]
    assert "auto" not in {p.value for p in Pathway}


def test_invalid_query_error_is_a_value_error_with_field() -> None:
    error = InvalidQueryError("query must not be empty", field="query")
    assert isinstance(error, ValueError) and isinstance(error, EngravaGraphError)
    assert error.field == "query"


def test_pathway_scores_select_highest() -> None:
    scores = PathwayScores(exact=0.2, energy=0.3, attention=0.5)
    assert scores.selected is Pathway.ATTENTION
    assert scores.model_dump() == {"exact": 0.2, "energy": 0.3, "attention": 0.5}


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ((0.4, 0.4, 0.2), Pathway.EXACT),
        ((0.2, 0.4, 0.4), Pathway.ENERGY),
        ((0.4, 0.2, 0.4), Pathway.EXACT),
        ((1 / 3, 1 / 3, 1 / 3), Pathway.EXACT),
    ],
)
def test_pathway_scores_tie_break_in_declaration_order(
    values: tuple[float, float, float], expected: Pathway
) -> None:
    exact, energy, attention = values
    assert PathwayScores(exact=exact, energy=energy, attention=attention).selected is expected


@pytest.mark.parametrize("values", [(0.5, 0.5, 0.5), (1.2, -0.1, -0.1), (0.0, 0.0, 0.0)])
def test_pathway_scores_reject_non_distributions(values: tuple[float, float, float]) -> None:
    exact, energy, attention = values
    with pytest.raises(ValidationError):
        PathwayScores(exact=exact, energy=energy, attention=attention)


def test_pathway_scores_are_frozen() -> None:
    scores = PathwayScores(exact=0.2, energy=0.3, attention=0.5)
    with pytest.raises(ValidationError):
        scores.exact = 0.9  # type: ignore[misc]


def test_temporal_range_converts_bounds_to_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    r = TemporalRange(
        reference="yesterday",
        direction="within",
        start=datetime(2024, 5, 15, 2, tzinfo=plus_two),
        end=datetime(2024, 5, 16, 2, tzinfo=plus_two),
    )
    assert r.start == datetime(2024, 5, 15, tzinfo=UTC)
    assert r.start is not None and r.start.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"direction": "within"},  # a calendar range needs both bounds
        {"direction": "before", "start": datetime(2024, 1, 1, tzinfo=UTC)},
        {"direction": "after", "end": datetime(2024, 1, 1, tzinfo=UTC)},
        {
            "direction": "within",
            "start": datetime(2024, 1, 2, tzinfo=UTC),
            "end": datetime(2024, 1, 1, tzinfo=UTC),
        },
        {"direction": "within", "start": datetime(2024, 1, 1), "end": datetime(2024, 1, 2)},
        {"direction": "around"},
    ],
)
def test_temporal_range_rejects_inconsistent_bounds(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        TemporalRange(reference="x", **kwargs)  # type: ignore[arg-type]


def test_event_anchor_range_has_no_dates() -> None:
    r = TemporalRange(reference="before the deploy", direction="before")
    assert (r.start, r.end) == (None, None)
