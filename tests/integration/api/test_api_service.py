"""The service around the routes: probes, OpenAPI, request ids, body limit, error shape."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
from fastapi import Depends
from fastapi.testclient import TestClient

from api.app import create_app
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.schema import SCHEMA_VERSION
from tests.integration.api.conftest import ADMIN, Api, api_settings, headers
from tests.integration.client_service import serving

ERROR_KEYS = {"error", "message", "field"}


def test_probes_need_no_key(client: TestClient) -> None:
    assert client.get("/healthz").json()["status"] == "ok"
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "schema_version": SCHEMA_VERSION}
    for probe in ("/healthz", "/readyz"):  # uptime monitors send HEAD
        head = client.head(probe)
        assert (head.status_code, head.content) == (200, b"")


def test_openapi_and_docs_are_served(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert {
        "/v1/retrieve",
        "/v1/explain",
        "/v1/thoughts",
        "/v1/thoughts:bulk",
        "/v1/thoughts/{thought_id}",
        "/v1/thoughts/{thought_id}/restore",
        "/v1/edges",
        "/v1/edges/{edge_id}",
        "/v1/thoughts/{thought_id}/edges",
        "/v1/dream",
        "/v1/dream/{job_id}",
        "/healthz",
        "/readyz",
    } <= set(spec["paths"])
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert "swagger" in client.get("/docs").text.lower()


def test_request_id_is_echoed_or_made(api: Api) -> None:
    given = api.get("/healthz", headers={"X-Request-ID": "trace-123"})
    assert given.headers["X-Request-ID"] == "trace-123"
    made = api.get("/healthz", headers={"X-Request-ID": "bad id with spaces"})
    assert len(made.headers["X-Request-ID"]) == 32


def test_body_size_limit_is_413(connection: ConnectionInfo) -> None:
    app = create_app(api_settings(connection, max_body_bytes=2048), embedding_provider=None)
    body = {"thought_type": "NOTE", "essence": "big", "content": "x" * 4096, "source": "t"}
    with TestClient(app) as small:
        declared = small.post("/v1/thoughts", json=body, headers=headers("apit-big"))
        assert declared.status_code == 413
        assert declared.json()["error"] == "body_too_large"

        def chunks() -> Any:
            yield b'{"thought_type": "NOTE", "essence": "big", "source": "t", "content": "'
            for _ in range(8):
                yield b"x" * 512
            yield b'"}'

        streamed = small.post(
            "/v1/thoughts",
            content=chunks(),
            headers={**headers("apit-big"), "Content-Type": "application/json"},
        )
        assert streamed.status_code == 413
        assert set(streamed.json()) == ERROR_KEYS
        assert small.get("/v1/thoughts", headers=headers("apit-big")).status_code == 404


def test_unknown_routes_and_methods_answer_in_the_error_shape(client: TestClient) -> None:
    missing = client.get("/v2/nothing")
    assert missing.status_code == 404 and set(missing.json()) == ERROR_KEYS
    wrong = client.put("/v1/retrieve", headers=headers("default"))
    assert wrong.status_code == 405 and wrong.json()["error"] == "method_not_allowed"


class _BrokenProvider:
    """An embedding provider that fails: a server-side fault, not the client's."""

    dimensions = 384
    model_name = "broken"

    def embed(self, texts: Any) -> np.ndarray:
        if texts == ["warm-up"]:
            return np.eye(1, 384, dtype=np.float32)  # a valid unit vector: start-up succeeds
        raise RuntimeError("GPU on fire /secret/path/model.bin")


def test_server_faults_are_500_without_internals(connection: ConnectionInfo) -> None:
    app = create_app(api_settings(connection), embedding_provider=_BrokenProvider())
    with TestClient(app, raise_server_exceptions=False) as broken:
        response = broken.post(
            "/v1/retrieve", json={"query": "tea"}, headers={"Authorization": f"Bearer {ADMIN}"}
        )
    assert response.status_code == 500
    body = response.json()
    assert set(body) == ERROR_KEYS
    assert "Traceback" not in body["message"] and "/secret/path" not in body["message"]


def _boom() -> None:
    raise RuntimeError("bug in a dependency /secret/path")


def test_unexpected_500_keeps_the_request_id_and_the_keep_alive_connection(
    connection: ConnectionInfo,
) -> None:
    """A bug (here a route dependency that raises) is the documented 500 with the request id
    in the header and the body, and the same keep-alive connection serves the next request."""
    app = create_app(api_settings(connection), embedding_provider=None)
    app.add_api_route("/test-only/boom", lambda: None, dependencies=[Depends(_boom)])
    with serving(app) as base_url, httpx.Client(base_url=base_url) as http:
        failed = http.get("/test-only/boom", headers={"X-Request-ID": "trace-500"})
        assert failed.status_code == 500
        assert failed.headers["X-Request-ID"] == "trace-500"
        body = failed.json()
        assert body["error"] == "internal" and "trace-500" in body["message"]
        assert "/secret/path" not in failed.text and "Traceback" not in failed.text
        assert failed.headers.get("connection", "").lower() != "close"
        after = http.get("/healthz")  # same pooled connection: no ConnectionResetError
        assert after.status_code == 200 and len(after.headers["X-Request-ID"]) == 32


def test_bad_bodies_name_the_body_and_say_what_to_send(api: Api) -> None:
    malformed = api.post(
        "/v1/thoughts", content=b'{"essence": "x",,}', headers={"Content-Type": "application/json"}
    )
    assert malformed.status_code == 422
    assert malformed.json()["field"] == "body"
    assert malformed.json()["message"].startswith("body: malformed JSON at character 16")
    untyped = api.post("/v1/thoughts", content=b'{"essence": "x"}')
    assert untyped.status_code == 422 and untyped.json()["field"] == "body"
    assert untyped.json()["message"] == (
        "body: sent without Content-Type, so not read as JSON; send a JSON object with "
        "Content-Type: application/json"
    )
    text = api.post(
        "/v1/thoughts", content=b'{"essence": "x"}', headers={"Content-Type": "text/plain"}
    )
    assert text.json()["message"] == (
        "body: sent as text/plain, so not read as JSON; send a JSON object with "
        "Content-Type: application/json"
    )
    # The header is right: the hint is about the body only.
    for content, kind in ((b"[1, 2]", "an array"), (b'"x"', "a string"), (b"3", "a number")):
        typed = api.post(
            "/v1/thoughts",
            content=content,
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
        assert typed.status_code == 422 and typed.json()["field"] == "body", typed.text
        assert typed.json()["message"] == f"body: {kind}, not a JSON object; send a JSON object"
    empty = api.post("/v1/thoughts", content=b"", headers={"Content-Type": "application/json"})
    assert empty.status_code == 422 and empty.json()["field"] == "body", empty.text
    assert empty.json()["message"] == "body: the request has none; send a JSON object"
    bare = api.post("/v1/thoughts", content=b"")
    assert bare.json()["message"] == (
        "body: the request has none; send a JSON object with Content-Type: application/json"
    )


def test_an_unknown_body_field_is_named_with_the_fields_taken_there(api: Api) -> None:
    """The 422 names the unknown field, the closest field when it looks like a typo, and every
    field the body (or the nested object) takes at that place."""
    api.thought("the namespace exists")
    typo = api.post("/v1/retrieve", json={"query": "x", "topk": 3})
    assert typo.status_code == 422 and typo.json()["field"] == "topk", typo.text
    message = typo.json()["message"]
    assert message.startswith("topk: unknown field (did you mean 'top_k'?); it takes "), message
    assert "query, recency_now, spread_depth, temporal_weight, top_k" in message, message
    assert "errors.pydantic.dev" not in message
    one = {"thought_type": "NOTE", "essence": "x", "content": "x", "bogus": 1}
    nested = api.post("/v1/thoughts:bulk", json={"thoughts": [one]})
    assert nested.json()["field"] == "thoughts.0.bogus", nested.text
    said = nested.json()["message"]
    assert said.startswith("thoughts.0.bogus: unknown field; it takes access_count, "), said
    assert "essence" in said and "deduplicate" not in said, said  # a record's, not a create's
    patch = api.patch("/v1/thoughts/any", json={"essenc": "y"})
    assert patch.json()["message"].startswith("essenc: unknown field (did you mean 'essence'?)")


def test_a_missing_thought_or_edge_names_its_path_parameter(api: Api) -> None:
    """``thought_not_found`` and ``edge_not_found`` name the path parameter in ``field``, as
    ``job_not_found`` does."""
    api.thought("the namespace exists")
    for method, path, field in (
        ("GET", "/v1/thoughts/nope", "thought_id"),
        ("PATCH", "/v1/thoughts/nope", "thought_id"),
        ("DELETE", "/v1/thoughts/nope", "thought_id"),
        ("POST", "/v1/thoughts/nope/restore", "thought_id"),
        ("GET", "/v1/thoughts/nope/edges", "thought_id"),
        ("GET", "/v1/edges/nope", "edge_id"),
        ("DELETE", "/v1/edges/nope", "edge_id"),
        ("GET", "/v1/dream/nope", "job_id"),
    ):
        body = {"json": {"essence": "y"}} if method == "PATCH" else {}
        answer = api.request(method, path, **body)
        assert answer.status_code == 404, (path, answer.text)
        assert answer.json()["field"] == field, (path, answer.json())


def test_library_validation_failures_name_the_field_briefly(api: Api) -> None:
    thought = api.thought("patch me")
    response = api.patch(f"/v1/thoughts/{thought['thought_id']}", json={"essence": None})
    assert response.status_code == 422
    assert response.json() == {
        "error": "validation_failed",
        "field": "essence",
        "message": "essence: Input should be a valid string",
    }
