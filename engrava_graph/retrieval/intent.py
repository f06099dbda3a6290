"""Rule-based intent classification (the Encode phase of the retrieval cycle).

The rules are data: a tuple of :class:`IntentRule`. Each rule whose pattern occurs in the
query adds its weight to its intent (once, however often it matches); the totals are
normalised to sum 1. Question words that say what is asked ("why", "when", "who",
"tell me about") weigh 0.8-1.0; modifiers that only qualify the question (a date, "before
the deploy") weigh 0.4, so "What caused the outage last Tuesday?" stays causal.
"""

from __future__ import annotations

import re
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engrava_graph.retrieval.lexicon import ANCHOR_DETERMINERS, DATE_CUE, DIRECTION_WORDS
from engrava_graph.retrieval.types import Intent

DEFAULT_INTENT: Final = Intent.FACTUAL
"""The intent when no rule fires (e.g. a bare keyword query such as "deploy schedule"):
it routes to the exact pathway, which is the precise lookup such a query wants."""

INTENT_TIE_BREAK: Final = (Intent.CAUSAL, Intent.TEMPORAL, Intent.FACTUAL, Intent.EXPLORATORY)
"""Precedence among intents with equal scores: the more specific question wins."""


class IntentRule(BaseModel):
    """One classification rule: if ``pattern`` occurs in the query, ``intent`` gains ``weight``.

    A string pattern is compiled case-insensitively; a compiled pattern is used as given.

    Attributes:
        intent: The intent the rule votes for.
        pattern: A regular expression searched (not matched) in the query.
        weight: The vote, > 0.

    Examples:
        >>> rule = IntentRule(intent=Intent.CAUSAL, pattern=r"\\bwhy\\b", weight=1.0)
        >>> bool(rule.pattern.search("WHY did it fail?"))
        True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: Intent
    pattern: re.Pattern[str]
    weight: float = Field(gt=0.0)

    @field_validator("pattern", mode="before")
    @classmethod
    def _compile(cls, value: object) -> object:
        return re.compile(value, re.IGNORECASE) if isinstance(value, str) else value


_C, _T, _E, _F = Intent.CAUSAL, Intent.TEMPORAL, Intent.EXPLORATORY, Intent.FACTUAL

_RULE_TABLE: Final[tuple[tuple[Intent, str | re.Pattern[str], float], ...]] = (
    # causal: why something happened, or what it led to
    (_C, r"\bwhy\b|\bhow come\b", 1.0),
    (_C, r"\bcaus(?:e|es|ed|ing)\b", 1.0),
    (_C, r"\b(?:led|leads?|leading)\s+to\b", 0.9),
    (_C, r"\bbecause\b|\bdue\s+to\b", 0.8),
    (_C, r"\bresult(?:s|ed)?\s+(?:of|in|from)\b|\bas a result\b", 0.8),
    (_C, r"\breasons?\b|\b(?:effect|consequence|impact)s?\s+of\b", 0.8),
    (_C, r"\btrigger(?:s|ed)?\b", 0.6),
    # temporal: when something happened
    (_T, r"^\W*when\b|\bwhen\s+(?:did|does|do|was|were|is|are|will|has|have|had)\b", 1.0),
    (_T, r"\bhow\s+long\b", 1.0),
    (_T, r"\b(?:what|which)\s+(?:date|day|time|year|month|week)\b", 1.0),
    (_T, r"\b(?:first|last|latest|earliest|most recent)\s+time\b", 0.6),
    (_T, DATE_CUE, 0.4),
    (_T, rf"\b(?:{DIRECTION_WORDS})\s+(?:{ANCHOR_DETERMINERS})\b", 0.4),
    # exploratory: broad recall around a topic
    (_E, r"\btell\s+me\s+(?:about|everything)\b|\bwhat\s+do\s+(?:we|i|you)\s+know\b", 1.0),
    (_E, r"\banything\s+(?:about|on|regarding|related)\b", 1.0),
    (_E, r"\b(?:overview|summar(?:y|ise|ize))\b", 0.8),
    (_E, r"\b(?:likely|probably)\b|\b(?:would|might|could)\b.*\b(?:like|enjoy|prefer)\b", 0.7),
    (_E, r"\banything\b|\brelated\b|\bideas?\b|\bwhat\s+else\b", 0.6),
    (_E, r"\b(?:explore|brainstorm|patterns?|themes?|trends?)\b", 0.5),
    # factual: a specific person, place, thing or quantity
    (_F, r"\bwho(?:m|se)?\b", 1.0),
    (_F, r"\bwhere\b|\bhow\s+(?:many|much|old|often)\b", 0.8),
    (_F, r"\b(?:name|title|number|version|address)\s+of\b", 0.8),
    (_F, r"\bwhat\s+(?:is|are|was|were)\b", 0.6),
    (_F, r"\bwhich\b", 0.7),
    (_F, r"^\W*what\s+(?:did|does|do|has|have|had)\b", 0.6),
    (_F, r"^\W*(?:is|are|was|were|did|does|do|has|have|had|can)\b", 0.5),
)

DEFAULT_INTENT_RULES: Final = tuple(
    IntentRule(intent=intent, pattern=pattern, weight=weight)
    for intent, pattern, weight in _RULE_TABLE
)
"""The shipped rules. Notable choices: "would ... likely ... pursue" (LoCoMo-style
inference questions such as "What fields would Caroline be likely to pursue?") is
exploratory, since the answer is assembled from many related memories; "what did X do on
<date>" is factual with a temporal modifier."""


def classify_intent(
    text: str, rules: tuple[IntentRule, ...] = DEFAULT_INTENT_RULES
) -> tuple[Intent, dict[Intent, float]]:
    """Classify a query's intent with weighted regex rules.

    Score of an intent = sum of the weights of its rules that occur in ``text``, divided by
    the total over all intents. When nothing fires the result is :data:`DEFAULT_INTENT`
    with score 1. Ties go by :data:`INTENT_TIE_BREAK`.

    Args:
        text: The query text.
        rules: The rule table; defaults to :data:`DEFAULT_INTENT_RULES`.

    Returns:
        The winning intent and a score per intent (all four keys, each in [0, 1], sum 1).

    Examples:
        >>> classify_intent("What caused the outage last Tuesday?")[0]
        <Intent.CAUSAL: 'causal'>
    """
    raw = dict.fromkeys(Intent, 0.0)
    for rule in rules:
        if rule.pattern.search(text):
            raw[rule.intent] += rule.weight
    total = sum(raw.values())
    if total == 0.0:
        raw[DEFAULT_INTENT] = total = 1.0
    scores = {intent: value / total for intent, value in raw.items()}
    best = max(scores.values())
    winner = next(intent for intent in INTENT_TIE_BREAK if scores[intent] == best)
    return winner, scores
