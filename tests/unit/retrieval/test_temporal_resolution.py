"""Temporal marker resolution against a fixed request time (retrieval phase 1)."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.encode import encode_query
from engrava_graph.retrieval.temporal import period_bounds, resolve_temporal

NOW = datetime(2024, 5, 16, 15, 30, tzinfo=UTC)  # a Thursday


def midnight(iso_date: str) -> datetime:
    """00:00 UTC on an ISO date such as ``"2024-05-14"``."""
    return datetime.fromisoformat(iso_date).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "reference", "start", "end"),
    [
        ("What caused the outage last Tuesday?", "last Tuesday", "2024-05-14", "2024-05-15"),
        ("What happened yesterday?", "yesterday", "2024-05-15", "2024-05-16"),
        ("What did we do last week?", "last week", "2024-05-06", "2024-05-13"),
        ("What happened this week?", "this week", "2024-05-13", "2024-05-20"),
        ("Any news last month?", "last month", "2024-04-01", "2024-05-01"),
        ("Which goals did we set last year?", "last year", "2023-01-01", "2024-01-01"),
        ("What happened in May 2023?", "in May 2023", "2023-05-01", "2023-06-01"),
        ("What did Melanie paint on 8 May, 2023?", "on 8 May, 2023", "2023-05-08", "2023-05-09"),
        ("What did we ship in 2022?", "in 2022", "2022-01-01", "2023-01-01"),
        ("Why did the deploy fail 3 days ago?", "3 days ago", "2024-05-13", "2024-05-14"),
        ("What happened in December 2023?", "in December 2023", "2023-12-01", "2024-01-01"),
        ("Notes from the 2023-05-08 incident", "from the 2023-05-08", "2023-05-08", "2023-05-09"),
        ("What did we last week decide?", "last week", "2024-05-06", "2024-05-13"),  # not "we"
        ("What shipped on Tuesday, May 14?", "on Tuesday, May 14", "2024-05-14", "2024-05-15"),
    ],
)
def test_calendar_references_become_whole_periods(
    query: str, reference: str, start: str, end: str
) -> None:
    resolved = resolve_temporal(query, NOW)
    assert resolved is not None
    assert (resolved.reference, resolved.direction) == (reference, "within")
    assert (resolved.start, resolved.end) == (midnight(start), midnight(end))


def test_last_weekday_on_that_weekday_is_a_week_earlier() -> None:
    tuesday = datetime(2024, 5, 14, 10, tzinfo=UTC)
    resolved = resolve_temporal("last Tuesday", tuesday)
    assert resolved is not None and resolved.start == midnight("2024-05-07")


def test_now_in_another_zone_resolves_in_utc() -> None:
    # 00:30 on 17 May in UTC+2 is still 16 May in UTC
    now = datetime(2024, 5, 17, 0, 30, tzinfo=timezone(timedelta(hours=2)))
    resolved = resolve_temporal("What happened yesterday?", now)
    assert resolved is not None and resolved.start == midnight("2024-05-15")


@pytest.mark.parametrize(
    ("query", "reference", "direction", "bound"),
    [
        ("What shipped before May 2023?", "before May 2023", "before", "2023-05-01"),
        ("Incidents since last week", "since last week", "after", "2024-05-06"),
        ("What broke after the 3rd of June?", "after the 3rd of June", "after", "2023-06-04"),
        ("Open tasks until Friday", "until Friday", "before", "2024-05-11"),
    ],
)
def test_direction_words_make_one_sided_bounds(
    query: str, reference: str, direction: str, bound: str
) -> None:
    resolved = resolve_temporal(query, NOW)
    assert resolved is not None
    assert (resolved.reference, resolved.direction) == (reference, direction)
    bounds = (None, midnight(bound)) if direction == "before" else (midnight(bound), None)
    assert (resolved.start, resolved.end) == bounds


@pytest.mark.parametrize(
    ("query", "reference", "direction"),
    [
        ("What broke before the deploy?", "before the deploy", "before"),
        ("What happened after the migration to Neo4j?", "after the migration", "after"),
        ("What did we change before the big deploy went out", "before the big deploy", "before"),
        ("Errors since our last release", "since our last release", "after"),
    ],
)
def test_event_anchors_have_a_direction_and_no_dates(
    query: str, reference: str, direction: str
) -> None:
    resolved = resolve_temporal(query, NOW)
    assert resolved is not None
    assert (resolved.reference, resolved.direction, resolved.start, resolved.end) == (
        reference,
        direction,
        None,
        None,
    )


@pytest.mark.parametrize(
    "query",
    [
        "When did Caroline go to the LGBTQ support group?",
        "May I ask who Caroline is?",
        "what may have caused it",
        "We met at 3pm",
        "What now?",
        "How long ago did it happen?",
        "Have we seen this before?",
        "top 3 results for version 2",
        "the Q3 2023 roadmap",  # quarters are not understood; better none than a wrong day
        "",
    ],
)
def test_no_time_reference_gives_none(query: str) -> None:
    assert resolve_temporal(query, NOW) is None


def test_naive_now_is_rejected() -> None:
    with pytest.raises(InvalidQueryError) as caught:
        resolve_temporal("What happened yesterday?", datetime(2024, 5, 16, 15, 30))
    assert caught.value.field == "now"


@pytest.mark.parametrize(
    ("period", "start", "end"),
    [
        ("day", "2024-02-29", "2024-03-01"),
        ("time", "2024-02-29", "2024-03-01"),
        ("week", "2024-02-26", "2024-03-04"),
        ("month", "2024-02-01", "2024-03-01"),
        ("year", "2024-01-01", "2025-01-01"),
    ],
)
def test_period_bounds(period: str, start: str, end: str) -> None:
    point = datetime(2024, 2, 29, 13, 5, tzinfo=UTC)
    assert period_bounds(point, period) == (midnight(start), midnight(end))


def test_december_month_rolls_into_next_year() -> None:
    bounds = period_bounds(midnight("2023-12-31"), "month")
    assert bounds == (midnight("2023-12-01"), midnight("2024-01-01"))


@pytest.mark.parametrize(
    ("query", "now"),
    [
        ("what happened last tuesday", datetime(1, 1, 1, tzinfo=UTC)),
        ("next tuesday", datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
    ],
)
def test_phrase_outside_the_calendar_resolves_to_no_range(query: str, now: datetime) -> None:
    # dateparser's arithmetic leaves years 1..9999 (OverflowError inside it): no reference,
    # the query still encodes and runs
    assert resolve_temporal(query, now) is None
    assert encode_query(query, now=now).temporal is None


@pytest.mark.parametrize(
    ("query", "reference"),
    [
        ("what happened last week about the deploy", "last week"),
        ("What did we decide last month about the budget?", "last month"),
        ("since last week about the deploy", "since last week"),
        ("on 8 May, 2023 and the rest", "on 8 May, 2023"),
    ],
)
def test_a_time_phrase_does_not_capture_the_words_after_it(query: str, reference: str) -> None:
    found = resolve_temporal(query, datetime(2024, 5, 15, tzinfo=UTC))
    assert found is not None and found.reference == reference
