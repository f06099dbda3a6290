"""What docs/api.md promises is what the service does (issue 15, item 8), on the real Neo4j:
unparsable bodies are a 422 naming ``body`` and where it breaks, an edge to a missing thought is a
422 ``unknown_endpoint`` naming the endpoint field, a URL carrying an id no write takes is a 404
(an encoded slash names no route), and both probes report one schema version."""

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


@pytest.mark.parametrize(
    "path, error",
    [
        ("/v1/thoughts/a%2Fb", "not_found"),  # %2F is decoded before routing: no route
        ("/v1/edges/a%2Fb", "not_found"),
        ("/v1/thoughts/a%5Cb", "thought_not_found"),
        ("/v1/thoughts/%2E%2E", "thought_not_found"),
        ("/v1/thoughts/a%01b", "thought_not_found"),
    ],
)
@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_a_url_carrying_an_id_no_write_takes_is_a_404(api, method, path, error) -> None:
    """docs/api.md: an id POST refuses is never stored, so a URL naming one is a 404, not a
    422; an encoded slash splits the path, which then names no route."""
    api.thought("present")
    body = {"json": {"priority": "P2"}} if method == "PATCH" else {}
    response = api.request(method, path, **body)
    assert (response.status_code, response.json()["error"]) == (404, error), response.text


def test_an_encoded_slash_before_edges_reads_the_edges_of_the_thought(api) -> None:
    thought_id = api.thought("present")["thought_id"]
    encoded = api.get(f"/v1/thoughts/{thought_id}%2Fedges")
    assert (encoded.status_code, encoded.json()) == (
        200,
        api.get(f"/v1/thoughts/{thought_id}/edges").json(),
    )


def test_liveness_and_readiness_report_the_same_schema_version(client) -> None:
    live, ready = client.get("/healthz"), client.get("/readyz")
    assert (live.status_code, ready.status_code) == (200, 200)
    assert live.json() == {"status": "ok", "schema_version": SCHEMA_VERSION}
    assert ready.json() == {"status": "ready", "schema_version": SCHEMA_VERSION}
