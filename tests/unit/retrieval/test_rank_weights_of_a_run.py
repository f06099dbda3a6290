"""Which Rank weights a run gets: recency is a tie-breaker without a named time range."""

from datetime import UTC, datetime

from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.encode import encode_query
from engrava_graph.retrieval.orchestrator import CycleRun, RetrievalCycle
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.types import Pathway

NOW = datetime(2024, 6, 12, tzinfo=UTC)


def _weights(query: str, **params: object) -> dict[str, float]:
    request = RetrieveRequest.build(query=query, now=NOW, **params)
    run = CycleRun(request, encoding=encode_query(query, now=NOW), pathway=Pathway.EXACT)
    run.decay_axis = "access"
    run.skipped["cause"] = "intent is factual"
    return RetrievalCycle._weights(run, request).as_dict()


def test_without_a_named_range_recency_weighs_the_configured_share() -> None:
    weights = _weights("what does Ann grow in the garden")
    assert abs(weights["temporal"] - RetrievalConfig().recency_weight) < 1e-9
    assert weights["causal"] == 0.0


def test_a_named_range_keeps_the_pathway_temporal_weight() -> None:
    assert _weights("what happened last week in the garden")["temporal"] > 0.1


def test_the_request_knob_wins() -> None:
    assert _weights("what does Ann grow", temporal_weight=0.4)["temporal"] == 0.4
