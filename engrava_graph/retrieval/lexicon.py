"""Shared English word lists and regexes for the rule-based encoders (the Encode phase).

One place for the calendar vocabulary so intent rules, entity extraction and temporal
resolution agree on what a time word is.
"""

from __future__ import annotations

import re
from typing import Final

WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

MONTHS: Final = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip

MONTH_ABBREVIATIONS: Final = (
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
)  # fmt: skip

AMBIGUOUS_MONTHS: Final = frozenset({"may", "march"})
"""Month names that are also common English verbs; they count only next to a digit or
after a preposition ("in May", "8 May", "May 2023"), never alone ("May I ask ...")."""

RELATIVE_TIME_WORDS: Final = frozenset(
    {
        "today", "yesterday", "tomorrow", "tonight", "now", "ago", "recently", "recent",
        "last", "next", "previous", "past", "earlier", "later",
        "day", "days", "week", "weeks", "weekend", "month", "months", "year", "years",
        "hour", "hours", "minute", "minutes", "morning", "afternoon", "evening", "night",
        "date", "time", "when", "before", "after", "since", "until", "till", "during",
    }
)  # fmt: skip

TEMPORAL_WORDS: Final = (
    frozenset(WEEKDAYS) | frozenset(MONTHS) | frozenset(MONTH_ABBREVIATIONS) | RELATIVE_TIME_WORDS
)
"""Words that carry time, not topic: never entities, never keywords."""

DIRECTION_WORDS: Final = r"before|after|since|until|till|prior\s+to"
"""Regex alternation of the words that turn a time or event into a bound."""

ANCHOR_DETERMINERS: Final = r"the|our|my|your|his|her|their|its"
"""Regex alternation of determiners that introduce an event anchor ("before the deploy")."""


def _alternation(words: tuple[str, ...] | frozenset[str]) -> str:
    return "|".join(sorted(words, key=lambda w: (-len(w), w)))


_ALL_MONTHS = _alternation(MONTHS + MONTH_ABBREVIATIONS)
_PLAIN_MONTHS = _alternation(frozenset(MONTHS) - AMBIGUOUS_MONTHS)
_WEEKDAYS = _alternation(WEEKDAYS)
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"

DATE_CUE: Final = re.compile(
    "|".join(
        (
            r"\b(?:19|20)\d{2}\b",  # a year
            r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",  # numeric dates
            r"\b(?:yesterday|today|tonight|tomorrow|ago)\b",
            rf"\b(?:last|this|next|past|previous)\s+"
            rf"(?:week|month|year|{_WEEKDAYS}|{_ALL_MONTHS})\b",
            rf"\b(?:{_WEEKDAYS})s?\b",
            rf"\b(?:{_PLAIN_MONTHS})\b",
            rf"\b{_ORDINAL}\s+(?:of\s+)?(?:{_ALL_MONTHS})\b",  # "8 May", "3rd of June"
            rf"\b(?:{_ALL_MONTHS})\.?,?\s+\d{{1,4}}\b",  # "May 8", "May 2023"
            r"\b(?:in|during|since|until|of|early|late|mid)[\s-]+(?:may|march)\b",
        )
    ),
    re.IGNORECASE,
)
"""A calendar time cue: a year, a numeric date, a relative day/week/month/year, a weekday,
or a month name in a context that rules out the verbs "may" and "march"."""

EVENT_ANCHOR: Final = re.compile(
    rf"\b(?P<direction>{DIRECTION_WORDS})\s+(?:{ANCHOR_DETERMINERS})\s+"
    r"(?P<rest>[^\W\d][\w'-]*(?:\s+[^\W\d][\w'-]*){0,2})",
    re.IGNORECASE,
)
"""A relative time given by an event, e.g. "before the deploy"; ``rest`` is up to three
words after the determiner, which :mod:`.temporal` trims to the noun phrase."""
