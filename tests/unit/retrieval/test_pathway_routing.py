"""Pathway routing and explicit override (retrieval phase 2)."""

import math
from datetime import UTC, datetime

import pytest

from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.encode import encode_query
from engrava_graph.retrieval.route import FEATURE_VOTES, INTENT_VOTES, route, select_pathway
from engrava_graph.retrieval.types import AUTO, Intent, Pathway, PathwayScores, QueryEncoding

NOW = datetime(2024, 5, 16, 15, 30, tzinfo=UTC)


def test_spec_explain_example_scores() -> None:
    scores = route(encode_query("What caused the outage?", now=NOW))
    assert scores.model_dump() == {"exact": 0.2, "energy": 0.3, "attention": 0.5}
    assert scores.selected is Pathway.ATTENTION


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What caused the outage last Tuesday?", Pathway.ATTENTION),
        ("Why did Caroline decide to adopt?", Pathway.ATTENTION),
        ("What caused the outage and who fixed it?", Pathway.ATTENTION),
        ("What happened last week?", Pathway.ATTENTION),
        ("Who is Caroline's mentor?", Pathway.EXACT),
        ("How many children does Melanie have?", Pathway.EXACT),
        ("When did Caroline go to the LGBTQ support group?", Pathway.EXACT),
        ("deploy schedule", Pathway.EXACT),
        ("Tell me about the deploy pipeline", Pathway.ENERGY),
        ("Any ideas related to the onboarding redesign?", Pathway.ENERGY),
        ("What fields would Caroline be likely to pursue in her education?", Pathway.ENERGY),
    ],
)
def test_routing_picks(query: str, expected: Pathway) -> None:
    scores = route(encode_query(query, now=NOW))
    assert scores.selected is expected
    assert math.isclose(scores.exact + scores.energy + scores.attention, 1.0)


def _encoding(intent: Intent, *, entities: int = 0, clauses: int = 1) -> QueryEncoding:
    sub_queries = ["q"] if clauses == 1 else ["q", *(f"part {i}" for i in range(clauses))]
    return QueryEncoding(
        text="q",
        intent=intent,
        intent_scores={i: float(i is intent) for i in Intent},
        entities=[f"e{i}" for i in range(entities)],
        temporal=None,
        sub_queries=sub_queries,
    )


def test_more_entities_favour_exact_up_to_the_cap() -> None:
    exact = [route(_encoding(Intent.TEMPORAL, entities=n)).exact for n in range(6)]
    cap = FEATURE_VOTES["entity"].max_units
    assert exact[: cap + 1] == sorted(set(exact[: cap + 1]))
    assert exact[cap] == exact[cap + 1] == exact[cap + 2]


def test_more_clauses_favour_attention() -> None:
    one = route(_encoding(Intent.FACTUAL, entities=1))
    three = route(_encoding(Intent.FACTUAL, entities=1, clauses=3))
    assert three.attention > one.attention
    assert three.selected is Pathway.ATTENTION


def test_each_intent_alone_prefers_its_pathway() -> None:
    preferred = {
        Intent.FACTUAL: Pathway.EXACT,
        Intent.CAUSAL: Pathway.ATTENTION,
        Intent.EXPLORATORY: Pathway.ENERGY,
    }
    for intent, pathway in preferred.items():
        assert route(_encoding(intent)).selected is pathway
        assert max(INTENT_VOTES[intent], key=INTENT_VOTES[intent].__getitem__) is pathway


def test_auto_takes_the_router_choice() -> None:
    scores = PathwayScores(exact=0.2, energy=0.3, attention=0.5)
    assert select_pathway(scores) is Pathway.ATTENTION
    assert select_pathway(scores, AUTO) is Pathway.ATTENTION


@pytest.mark.parametrize("requested", [Pathway.EXACT, "exact", Pathway.ENERGY, "energy"])
def test_explicit_pathway_overrides_the_router(requested: Pathway | str) -> None:
    scores = PathwayScores(exact=0.2, energy=0.3, attention=0.5)
    assert select_pathway(scores, requested) is Pathway(requested)  # type: ignore[arg-type]


@pytest.mark.parametrize("requested", ["fastest", "AUTO", ""])
def test_unknown_pathway_is_rejected(requested: str) -> None:
    scores = PathwayScores(exact=0.2, energy=0.3, attention=0.5)
    with pytest.raises(InvalidQueryError) as caught:
        select_pathway(scores, requested)  # type: ignore[arg-type]
    assert caught.value.field == "pathway"
