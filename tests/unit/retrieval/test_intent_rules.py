"""Rule-based intent classification (retrieval phase 1, Encode)."""

import math
import re

import pytest
from pydantic import ValidationError

from engrava_graph.retrieval.intent import (
    DEFAULT_INTENT,
    DEFAULT_INTENT_RULES,
    IntentRule,
    classify_intent,
)
from engrava_graph.retrieval.types import Intent

CASES = [
    # the retrieval cycle document's examples
    ("What caused the outage last Tuesday?", Intent.CAUSAL),
    ("What caused the outage?", Intent.CAUSAL),
    # LoCoMo-style questions
    ("When did Caroline go to the LGBTQ support group?", Intent.TEMPORAL),
    ("What fields would Caroline be likely to pursue in her education?", Intent.EXPLORATORY),
    ("What did Melanie paint on 8 May, 2023?", Intent.FACTUAL),
    ("How many children does Melanie have?", Intent.FACTUAL),
    ("Why did Caroline decide to adopt?", Intent.CAUSAL),
    ("How long ago did Caroline move from Sweden?", Intent.TEMPORAL),
    ("What year did Melanie start running?", Intent.TEMPORAL),
    # agent-memory questions
    ("Who is Caroline's mentor?", Intent.FACTUAL),
    ("What is the name of Caroline's dog?", Intent.FACTUAL),
    ("Which database did we choose before the migration?", Intent.FACTUAL),
    ("What led to the rollback?", Intent.CAUSAL),
    ("The release slipped due to what?", Intent.CAUSAL),
    ("What was the result of the load test because of the cache?", Intent.CAUSAL),
    ("What happened in May 2023?", Intent.TEMPORAL),
    ("What date was the offsite?", Intent.TEMPORAL),
    ("Tell me about the deploy pipeline", Intent.EXPLORATORY),
    ("Anything about Neo4j?", Intent.EXPLORATORY),
    ("Any ideas related to the onboarding redesign?", Intent.EXPLORATORY),
    ("Give me an overview of the auth service", Intent.EXPLORATORY),
]


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_classifies_realistic_queries(query: str, expected: Intent) -> None:
    intent, _ = classify_intent(query)
    assert intent is expected


@pytest.mark.parametrize("query", [q for q, _ in CASES])
def test_scores_cover_all_intents_and_sum_to_one(query: str) -> None:
    intent, scores = classify_intent(query)
    assert set(scores) == set(Intent)
    assert all(0.0 <= s <= 1.0 for s in scores.values())
    assert math.isclose(sum(scores.values()), 1.0)
    assert scores[intent] == max(scores.values())


def test_date_modifier_does_not_override_the_question_word() -> None:
    _, scores = classify_intent("What caused the outage last Tuesday?")
    assert scores[Intent.CAUSAL] > scores[Intent.TEMPORAL] > 0.0


def test_nothing_fires_gives_the_default() -> None:
    assert classify_intent("deploy schedule") == (
        DEFAULT_INTENT,
        {Intent.FACTUAL: 1.0, Intent.CAUSAL: 0.0, Intent.TEMPORAL: 0.0, Intent.EXPLORATORY: 0.0},
    )


def test_ties_go_to_the_more_specific_intent() -> None:
    rules = (
        IntentRule(intent=Intent.FACTUAL, pattern=r"\bx\b", weight=1.0),
        IntentRule(intent=Intent.CAUSAL, pattern=r"\bx\b", weight=1.0),
    )
    assert classify_intent("x", rules)[0] is Intent.CAUSAL


def test_rules_are_data_and_replaceable() -> None:
    rules = (IntentRule(intent=Intent.EXPLORATORY, pattern="brainstorm", weight=2.0),)
    intent, scores = classify_intent("BRAINSTORM names", rules)
    assert intent is Intent.EXPLORATORY and scores[Intent.EXPLORATORY] == 1.0


def test_string_patterns_compile_case_insensitive_and_patterns_are_kept() -> None:
    rule = IntentRule(intent=Intent.CAUSAL, pattern="why", weight=1.0)
    assert rule.pattern.flags & re.IGNORECASE
    compiled = re.compile("why")
    assert IntentRule(intent=Intent.CAUSAL, pattern=compiled, weight=1.0).pattern is compiled


def test_rules_are_frozen_and_need_positive_weight() -> None:
    with pytest.raises(ValidationError):
        IntentRule(intent=Intent.CAUSAL, pattern="why", weight=0.0)
    with pytest.raises(ValidationError):
        DEFAULT_INTENT_RULES[0].weight = 5.0  # type: ignore[misc]
