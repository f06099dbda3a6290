"""/v1/retrieve and /v1/explain: the 10-phase cycle over HTTP, its bounds and its clock."""

from __future__ import annotations

import pytest

from engrava_graph.retrieval.results import PHASES
from tests.integration.api.conftest import Api
from tests.integration.test_hand_edited_nodes import RANKING_EDITS, STANDUP, _in_browser


@pytest.fixture
def memories(api: Api) -> dict[str, str]:
    outage = api.thought("The checkout outage on Friday took the shop offline")
    cause = api.thought("An expired TLS certificate on the payment gateway")
    tea = api.thought("Ann prefers green tea in the morning", metadata={"speaker": "ann"})
    api.thought("Bob likes espresso after lunch", metadata={"speaker": "bob"})
    edge = {
        "from_thought_id": outage["thought_id"],
        "to_thought_id": cause["thought_id"],
        "edge_type": "CAUSED_BY",
        "confidence": 0.9,
    }
    assert api.post("/v1/edges", json=edge).status_code == 201
    return {"outage": outage["thought_id"], "cause": cause["thought_id"], "tea": tea["thought_id"]}


def test_retrieve_returns_results_with_confidence_pathway_and_timings(
    api: Api, memories: dict[str, str]
) -> None:
    response = api.post("/v1/retrieve", json={"query": "What does Ann drink?", "top_k": 2})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["results"][0]["thought_id"] == memories["tea"]
    assert len(body["results"]) <= 2
    assert all(0.0 <= r["confidence"] <= 1.0 for r in body["results"])
    assert body["pathway"] in ("exact", "energy", "attention")
    assert set(body["phase_timings"]) == set(PHASES)
    assert body["candidates_activated"] >= body["candidates_final"]


def test_causal_query_returns_the_chain(api: Api, memories: dict[str, str]) -> None:
    body = api.post(
        "/v1/retrieve", json={"query": "What caused the checkout outage?", "causal_weight": 1.0}
    ).json()
    assert body["intent"] == "causal"
    links = {(link["from_thought_id"], link["to_thought_id"]) for link in body["causal_links"]}
    assert (memories["outage"], memories["cause"]) in links


def test_metadata_filter_and_pathway_override(api: Api, memories: dict[str, str]) -> None:
    body = api.post(
        "/v1/retrieve",
        json={"query": "drinks", "pathway": "energy", "metadata_filter": {"speaker": "bob"}},
    ).json()
    assert body["pathway"] == "energy"
    assert body["results"] and all(r["metadata"]["speaker"] == "bob" for r in body["results"])


def test_request_time_is_the_clock_unless_given(api: Api, memories: dict[str, str]) -> None:
    filled = api.post("/v1/explain", json={"query": "tea"}).json()
    assert filled["decay_axis"] == "access"  # the API passed now = the request time
    given = api.post(
        "/v1/explain", json={"query": "what happened last Friday?", "now": "2024-05-15T12:00:00Z"}
    ).json()
    assert given["temporal"] is not None
    assert given["temporal"]["start"].startswith("2024-05-10")


def test_explain_summary_and_debug(api: Api, memories: dict[str, str]) -> None:
    summary = api.post("/v1/explain", json={"query": "What caused the outage?"})
    assert summary.status_code == 200, summary.text
    assert summary.json()["level"] == "summary" and summary.json()["candidates"] is None
    assert summary.json()["intent"] == "causal"
    debug = api.post("/v1/explain", json={"query": "tea", "level": "debug"}).json()
    assert debug["candidates"] and {"composite", "dropped_in"} <= set(debug["candidates"][0])
    bad = api.post("/v1/explain", json={"query": "tea", "level": "verbose"})
    assert bad.status_code == 422 and bad.json()["field"] == "level"


def test_explain_as_html_is_the_page_that_draws_the_run(api: Api, memories: dict[str, str]) -> None:
    query = {"query": "What does Ann drink?"}
    top = api.post("/v1/explain", json=query).json()["results"][0]
    assert top["thought_id"] == memories["tea"]
    page = api.post("/v1/explain", params={"format": "html"}, json=query)
    assert page.status_code == 200, page.text[:500]
    assert page.headers["content-type"].startswith("text/html")
    assert page.text.lstrip().lower().startswith("<!doctype html")
    assert top["text"] in page.text  # the top thought's essence
    assert "engrava-explain-summary" in page.text
    as_json = api.post("/v1/explain", params={"format": "json"}, json=query)
    assert as_json.headers["content-type"] == "application/json"
    assert as_json.json()["results"][0]["thought_id"] == memories["tea"]


def test_explain_in_an_unknown_format_is_422(api: Api, memories: dict[str, str]) -> None:
    bad = api.post("/v1/explain", params={"format": "pdf"}, json={"query": "tea"})
    assert bad.status_code == 422, bad.text
    assert bad.json()["error"] == "invalid_request" and bad.json()["field"] == "format"
    assert bad.json()["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": " \t\n"}, "query"),
        ({"query": "\u200b"}, "query"),  # invisible characters only: blank too
        ({"query": "\u2060\ufeff\u200d\u00ad"}, "query"),
        ({"query": "x" * 2001}, "query"),
        ({"query": "tea", "top_k": 0}, "top_k"),
        ({"query": "tea", "top_k": 101}, "top_k"),
        ({"query": "tea", "top_k": True}, "top_k"),
        ({"query": "tea", "top_k": "3"}, "top_k"),
        ({"query": "tea", "top_k": 5.0}, "top_k"),
        ({"query": "tea", "temporal_weight": 1.5}, "temporal_weight"),
        ({"query": "tea", "causal_weight": -0.1}, "causal_weight"),
        ({"query": "tea", "min_confidence": 2}, "min_confidence"),
        ({"query": "tea", "pathway": "fastest"}, "pathway"),
        ({"query": "tea", "now": "yesterday-ish"}, "now"),
        ({"query": "tea", "metadata_filter": {"a b": 1}}, "metadata_filter"),
        ({"query": "tea", "metadata_filter": {"topic": []}}, "metadata_filter"),
        (
            {"query": "tea", "current_cycle": 3, "recency_now": "2024-01-01T00:00:00Z"},
            "recency_now",
        ),
        ({"query": "tea", "spread_depth": 9}, "spread_depth"),
        ({"query": "tea", "colour": "red"}, "colour"),
    ],
)
def test_bad_parameters_are_422_naming_the_field(
    api: Api, memories: dict[str, str], body: dict[str, object], field: str
) -> None:
    response = api.post("/v1/retrieve", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == field
    assert response.json()["message"]
    if field == "pathway":  # one message naming every choice, "auto" too
        assert "'auto', 'exact', 'energy' or 'attention'" in response.json()["message"]


def test_retrieve_on_an_empty_namespace_returns_nothing(api: Api) -> None:
    api.thought("only one")
    api.delete("/v1/thoughts/" + api.get("/v1/thoughts").json()["thoughts"][0]["thought_id"])
    body = api.post("/v1/retrieve", json={"query": "anything"}).json()
    assert body["results"] == []


@pytest.mark.parametrize("edit", ["SET t.embedding = [1.0, 2.0, 3.0]", *RANKING_EDITS])
def test_retrieve_and_explain_rank_a_thought_edited_by_hand(
    api: Api, memories: dict[str, str], edit: str
) -> None:
    """A thought edited by hand in Neo4j Browser into values no write produces (an embedding of
    3 floats where the index holds 384, ``access_count = 'many'`` …) is ranked with the
    defaults by /v1/retrieve and /v1/explain, not a 500."""
    store = api.client.app.state.api.store(api.namespace)  # type: ignore[attr-defined]
    api.client.portal.call(_in_browser, store, edit, memories["tea"])
    for path in ("/v1/retrieve", "/v1/explain"):
        response = api.post(path, json={"query": "Does Ann drink green tea?"})
        assert response.status_code == 200, (path, response.text)
        assert memories["tea"] in [r["thought_id"] for r in response.json()["results"]], path
    page = api.post("/v1/explain", params={"format": "html"}, json={"query": "green tea"})
    assert page.status_code == 200, page.text


def test_retrieve_and_explain_rank_a_message_whose_position_was_edited_by_hand(api: Api) -> None:
    """A message whose position was set by hand to a string is ranked as one without a position
    by /v1/retrieve and /v1/explain, not a 500."""
    stored = api.post("/v1/conversations/standup/messages", json={"messages": STANDUP})
    assert stored.status_code == 201, stored.text
    edited = stored.json()["messages"][1]["thought_id"]
    store = api.client.app.state.api.store(api.namespace)  # type: ignore[attr-defined]
    api.client.portal.call(_in_browser, store, "SET t.position = 'abc'", edited)
    for path in ("/v1/retrieve", "/v1/explain"):
        response = api.post(path, json={"query": "When is the deploy window?"})
        assert response.status_code == 200, (path, response.text)
        assert edited in [r["thought_id"] for r in response.json()["results"]], path
