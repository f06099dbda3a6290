"""What docs/api.md promises is what the service does (issue 15, item 8), on the real Neo4j:
unparsable bodies are a 422 naming ``body`` and where it breaks, an edge to a missing thought is a
422 ``unknown_endpoint`` naming the endpoint field, and both probes report one schema version."""

from __future__ import annotations

import pytest

from engrava_graph.graph.schema import SCHEMA_VERSION

JSON = {"Content-Type": "application/json"}
LATIN_1 = '{"thought_type": "NOTE", "essence": "café", "content": "c", "source": "s"}'.encode(
    "latin-1"
)


@pytest.mark.parametrize(
    "body, says",
    [
        (LATIN_1, f"byte 0xe9 at position {LATIN_1.index(0xE9)}"),
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        (b'{"essence": "x",', "malformed JSON at character"),
    ],
    ids=["latin-1", "nested-5000", "truncated"],
)
def test_an_unparsable_body_is_a_422_naming_the_body_and_where(api, body, says) -> None:
    before = api.footprint()
    response = api.post("/v1/thoughts", content=body, headers=JSON)

    assert response.status_code == 422, response.text
    error = response.json()
    assert (error["error"], error["field"]) == ("invalid_request", "body")
    assert error["message"].startswith("body: ") and says in error["message"], error
    assert api.footprint() == before


@pytest.mark.parametrize("endpoint", ["from_thought_id", "to_thought_id"])
def test_an_edge_to_a_missing_thought_is_a_422_naming_the_endpoint(api, endpoint) -> None:
    present = api.thought("present")["thought_id"]
    ends = {"from_thought_id": present, "to_thought_id": present, endpoint: "absent"}
    before = api.footprint()

    response = api.post("/v1/edges", json={**ends, "edge_type": "ASSOCIATED"})

    assert response.status_code == 422, response.text
    error = response.json()
    assert (error["error"], error["field"]) == ("unknown_endpoint", endpoint)
    assert "'absent'" in error["message"]
    assert api.footprint() == before


def test_liveness_and_readiness_report_the_same_schema_version(client) -> None:
    live, ready = client.get("/healthz"), client.get("/readyz")
    assert (live.status_code, ready.status_code) == (200, 200)
    assert live.json() == {"status": "ok", "schema_version": SCHEMA_VERSION}
    assert ready.json() == {"status": "ready", "schema_version": SCHEMA_VERSION}
