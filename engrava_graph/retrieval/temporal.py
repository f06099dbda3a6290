"""Temporal marker resolution (the Encode phase of the retrieval cycle).

``dateparser`` does the parsing: ``search.search_dates`` finds date phrases and
``DateDataParser.get_date_data`` tells a phrase's granularity (day, week, month, year).
Our code only guards the call, filters dateparser's noise, and turns a point plus a
granularity into a half-open UTC range. The request's ``now`` is the only clock.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal, NamedTuple

from dateparser.date import DateDataParser
from dateparser.search import search_dates

from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.entities import STOPWORDS
from engrava_graph.retrieval.lexicon import (
    DATE_CUE,
    DIRECTION_WORDS,
    EVENT_ANCHOR,
    MONTH_ABBREVIATIONS,
    MONTHS,
)
from engrava_graph.retrieval.types import Direction, TemporalRange

LANGUAGES: Final = ("en",)

_LEADING_DIRECTION = re.compile(rf"^(?P<word>{DIRECTION_WORDS})\b", re.IGNORECASE)
_TRAILING_DIRECTION = re.compile(rf"\b(?P<word>{DIRECTION_WORDS})\s+(?:the\s+)?$", re.IGNORECASE)
_FILLER = re.compile(rf"^(?:(?:{DIRECTION_WORDS}|from|in|on|at|during|of|the)\s+)+", re.IGNORECASE)
_PREVIOUS_WORD = re.compile(r"(\w+)\W*$")
_TRAILING_FILLER = re.compile(
    r"(?:[\s,]+(?:about|regarding|concerning|re|the|a|an|of|for|with|and|or|to|in|on|at|from|"
    r"by|that|this|we|i|you|they))+[\s,]*$",
    re.IGNORECASE,
)
"""Words dateparser lets a match run on into ("last week about the deploy" matches "last week
about the"); they are cut off the end of a span."""
_MERGEABLE_GAP = re.compile(r"[\s,]*")
_DATE_PIECE = re.compile(
    rf"\d|{DATE_CUE.pattern}|\b(?:{'|'.join(MONTHS + MONTH_ABBREVIATIONS)})\b", re.IGNORECASE
)
_ODD_TOKEN = re.compile(r"\b(?=\w*\d)(?=\w*[a-z])(?!\d+(?:st|nd|rd|th|am|pm)\b)\w+", re.IGNORECASE)

_BOUND_DIRECTION: Final[dict[str, tuple[Direction, Literal["start", "end"]]]] = {
    "before": ("before", "start"),
    "prior to": ("before", "start"),
    "until": ("before", "end"),
    "till": ("before", "end"),
    "after": ("after", "end"),
    "since": ("after", "start"),
}
"""Direction word -> (direction, which edge of the referenced period becomes the bound).
"before May 2023" ends at 1 May; "until Friday" includes Friday; "after Monday" starts on
Tuesday; "since last week" includes last week."""


class _Span(NamedTuple):
    start: int
    end: int


def resolve_temporal(text: str, now: datetime) -> TemporalRange | None:
    """Find and resolve the first time reference in a query.

    A calendar reference becomes a whole period in UTC by the granularity dateparser
    reports: "last Tuesday", "yesterday", "on 8 May, 2023" and "3 days ago" give one day;
    "last week"/"this week" an ISO week (Monday 00:00 to the next Monday); "last month",
    "in May 2023" a calendar month; "last year", "in 2022" a calendar year. A preceding
    "before"/"after"/"since"/"until" turns the period into a one-sided bound. With no
    calendar reference, an event anchor such as "before the deploy" gives a range with a
    direction and no dates. Only the first reference counts; "between X and Y" is not
    understood as a span.

    dateparser runs only when :data:`~engrava_graph.retrieval.lexicon.DATE_CUE` occurs in
    the text, and each match it returns must itself contain such a cue (so "we", "May I",
    "now", "at 3pm" are ignored).

    Args:
        text: The query text.
        now: The request time; must be timezone-aware. Relative phrases resolve against it.

    Returns:
        The resolved :class:`TemporalRange`, or None when the query has no time reference.

    Raises:
        InvalidQueryError: If ``now`` is naive.

    Examples:
        >>> from datetime import datetime, UTC
        >>> r = resolve_temporal("What caused the outage last Tuesday?",
        ...                      datetime(2024, 5, 16, 15, 30, tzinfo=UTC))
        >>> (r.reference, r.direction, r.start.date().isoformat(), r.end.date().isoformat())
        ('last Tuesday', 'within', '2024-05-14', '2024-05-15')
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise InvalidQueryError("now must be timezone-aware", field="now")
    if DATE_CUE.search(text):
        resolved = _calendar_reference(text, now)
        if resolved is not None:
            return resolved
    return _event_anchor(text)


def _calendar_reference(text: str, now: datetime) -> TemporalRange | None:
    """The first calendar reference dateparser resolves, or None.

    A phrase that resolves outside ``datetime``'s range (years 1..9999), such as "last
    Tuesday" with ``now`` on 0001-01-01 or "next Tuesday" on 9999-12-31, is no reference:
    dateparser's own date arithmetic raises OverflowError (or ValueError from
    ``datetime.replace``) there, and the query runs without a temporal range.
    """
    settings = _settings(now)
    try:
        for span in _date_spans(text, settings):
            resolved = _calendar_range(text, span, settings)
            if resolved is not None:
                return resolved
    except (OverflowError, ValueError):
        return None
    return None


def _settings(now: datetime) -> dict[str, Any]:
    return {
        "RELATIVE_BASE": now.astimezone(UTC).replace(tzinfo=None),
        "PREFER_DATES_FROM": "past",
        "TIMEZONE": "UTC",
        "TO_TIMEZONE": "UTC",
        "RETURN_AS_TIMEZONE_AWARE": True,
    }


def _date_spans(text: str, settings: dict[str, Any]) -> list[_Span]:
    """dateparser's matches located in ``text``, noise dropped, adjacent ones merged.

    A match survives if it has a date cue, a digit or a month name ("we", "Sun", "now" do
    not); survivors separated only by spaces or commas are merged, which repairs splits
    such as "before May 2023" -> "May", "2023". A merged span must have a date cue and no
    token that mixes letters and digits other than an ordinal or a clock time ("Q3").
    """
    found = search_dates(text, languages=list(LANGUAGES), settings=settings) or []
    spans: list[_Span] = []
    cursor = 0
    for phrase, _ in found:
        start = text.find(phrase, cursor)
        if start < 0:
            continue
        cursor = start + len(phrase)
        phrase = _TRAILING_FILLER.sub("", phrase)
        if not _DATE_PIECE.search(phrase):
            continue
        end = start + len(phrase)
        if spans and _MERGEABLE_GAP.fullmatch(text[spans[-1].end : start]):
            spans[-1] = _Span(spans[-1].start, end)
        else:
            spans.append(_Span(start, end))
    return [
        span
        for span in spans
        if DATE_CUE.search(_with_previous_word(text, span))
        and not _ODD_TOKEN.search(text[span.start : span.end])
    ]


def _with_previous_word(text: str, span: _Span) -> str:
    previous = _PREVIOUS_WORD.search(text[: span.start])
    return (previous[1] + " " if previous else "") + text[span.start : span.end]


def _calendar_range(text: str, span: _Span, settings: dict[str, Any]) -> TemporalRange | None:
    phrase = text[span.start : span.end]
    parsed = DateDataParser(languages=list(LANGUAGES), settings=settings).get_date_data(
        _FILLER.sub("", phrase)
    )
    if parsed.date_obj is None:
        return None
    start, end = period_bounds(parsed.date_obj, parsed.period or "day")

    leading = _LEADING_DIRECTION.match(phrase)
    trailing = None if leading else _TRAILING_DIRECTION.search(text[: span.start])
    marker = leading or trailing
    reference = text[trailing.start("word") if trailing else span.start : span.end].strip()
    if marker is None:
        return TemporalRange(reference=reference, direction="within", start=start, end=end)
    direction, edge = _BOUND_DIRECTION[_canonical(marker["word"])]
    bound = start if edge == "start" else end
    if direction == "before":
        return TemporalRange(reference=reference, direction=direction, end=bound)
    return TemporalRange(reference=reference, direction=direction, start=bound)


def period_bounds(point: datetime, period: str) -> tuple[datetime, datetime]:
    """The half-open UTC period of a given granularity that contains a point.

    Args:
        point: Any timezone-aware instant.
        period: dateparser's granularity: ``"year"``, ``"month"``, ``"week"`` (ISO,
            Monday first) or ``"day"``; anything finer (``"time"``) counts as the day.

    Returns:
        ``(start, end)`` in UTC with ``start <= point < end``; a period that runs past the
        last representable instant (a ``now`` in late 9999) ends at ``datetime.max`` (UTC).

    Examples:
        >>> from datetime import datetime, UTC
        >>> period_bounds(datetime(2023, 5, 16, 9, tzinfo=UTC), "month")[1].isoformat()
        '2023-06-01T00:00:00+00:00'
        >>> period_bounds(datetime(9999, 5, 16, tzinfo=UTC), "year")[1].year
        9999
    """
    day = point.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "year":
        start = day.replace(month=1, day=1)
    elif period == "month":
        start = day.replace(day=1)
    elif period == "week":
        start = day - timedelta(days=day.weekday())  # 0001-01-01 is a Monday: never underflows
    else:
        start = day
    try:
        return start, _period_end(start, period)
    except (OverflowError, ValueError):  # the next period would start in year 10000
        return start, datetime.max.replace(tzinfo=UTC)


def _period_end(start: datetime, period: str) -> datetime:
    """The start of the period after the one beginning at ``start`` (may leave the calendar)."""
    if period == "year":
        return start.replace(year=start.year + 1)
    if period == "month":
        carry, month_index = divmod(start.month, 12)  # 0-based index of the next month
        return start.replace(year=start.year + carry, month=month_index + 1)
    return start + timedelta(days=7 if period == "week" else 1)


def _event_anchor(text: str) -> TemporalRange | None:
    """ "before the deploy" -> direction "before", no dates; None when there is no anchor."""
    match = EVENT_ANCHOR.search(text)
    if match is None:
        return None
    words = list(re.finditer(r"\S+", match["rest"]))
    kept = next((i for i, w in enumerate(words) if w[0].lower() in STOPWORDS), len(words))
    if kept == 0:
        return None
    end = match.start("rest") + words[kept - 1].end()
    direction, _ = _BOUND_DIRECTION[_canonical(match["direction"])]
    return TemporalRange(reference=text[match.start() : end], direction=direction)


def _canonical(direction_word: str) -> str:
    return " ".join(direction_word.lower().split())
