"""API keys and namespaces: 401 without or with a wrong key, 403 for read-only keys on writes
and for keys outside their namespaces (without revealing existence), 404 for unknown namespaces,
keys given as SHA-256 digests, and keys never logged."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from engrava_graph.graph.connection import ConnectionInfo
from tests.integration.api.conftest import (
    ADMIN,
    HASHED,
    READER,
    SCOPED,
    SCOPED_NS,
    Api,
    api_settings,
    new_namespace,
)

WRITES = [
    (
        "POST",
        "/v1/thoughts",
        {"thought_type": "NOTE", "essence": "e", "content": "c", "source": "s"},
    ),
    (
        "POST",
        "/v1/thoughts:bulk",
        {"thoughts": [{"thought_type": "NOTE", "essence": "e", "content": "c", "source": "s"}]},
    ),
    ("PATCH", "/v1/thoughts/some-id", {"essence": "x"}),
    ("DELETE", "/v1/thoughts/some-id", None),
    ("POST", "/v1/thoughts/some-id/restore", None),
    (
        "POST",
        "/v1/edges",
        {"from_thought_id": "a", "to_thought_id": "b", "edge_type": "ASSOCIATED"},
    ),
    ("DELETE", "/v1/edges/some-id", None),
    ("POST", "/v1/dream", {"current_cycle": 1}),
]
READS = [
    ("POST", "/v1/retrieve", {"query": "tea"}),
    ("POST", "/v1/explain", {"query": "tea"}),
    ("GET", "/v1/thoughts", None),
    ("GET", "/v1/thoughts/some-id", None),
    ("GET", "/v1/thoughts/some-id/edges", None),
    ("GET", "/v1/edges/some-id", None),
    ("GET", "/v1/dream/some-id", None),
]


def _call(api: Api, method: str, path: str, body: object) -> object:
    return api.request(method, path, json=body) if body is not None else api.request(method, path)


@pytest.mark.parametrize(("method", "path", "body"), WRITES + READS)
def test_every_v1_route_needs_a_key(api: Api, method: str, path: str, body: object) -> None:
    for key in (None, "not-a-configured-key", ADMIN + "x"):
        response = _call(api.as_key(key), method, path, body)
        assert response.status_code == 401, (key, response.text)
        assert response.json()["error"] == "unauthenticated"
        assert response.headers["WWW-Authenticate"] == "Bearer"
    basic = api.request(method, path, headers={"Authorization": f"Basic {ADMIN}"})
    assert basic.status_code == 401


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_read_only_key_gets_403_on_every_write(
    api: Api, method: str, path: str, body: object
) -> None:
    api.thought("the namespace exists")
    before = api.footprint()
    response = _call(api.as_key(READER), method, path, body)
    assert response.status_code == 403, response.text
    assert response.json()["error"] == "read_only_key"
    assert api.footprint() == before


def test_read_only_key_reads(api: Api) -> None:
    made = api.thought("readable")
    reader = api.as_key(READER)
    assert reader.get(f"/v1/thoughts/{made['thought_id']}").status_code == 200
    assert reader.post("/v1/retrieve", json={"query": "readable"}).status_code == 200


def test_key_given_as_sha256_digest_works(api: Api) -> None:
    made = api.as_key(HASHED).thought("written with a hashed key")
    assert api.get(f"/v1/thoughts/{made['thought_id']}").status_code == 200


def test_scoped_key_stays_in_its_namespaces(
    client: TestClient, make_api: Callable[..., Api]
) -> None:
    mine = Api(client, SCOPED_NS, SCOPED)
    assert mine.thought("in my namespace")["essence"] == "in my namespace"
    existing = make_api()
    existing.thought("someone else's memory")
    missing_name = new_namespace()
    forbidden = [mine.in_namespace(existing.namespace), mine.in_namespace(missing_name)]
    bodies = []
    for other in forbidden:
        for method, path, body in READS + WRITES:
            response = _call(other, method, path, body)
            assert response.status_code == 403, (other.namespace, method, path, response.text)
            bodies.append(response.json()["error"])
    assert set(bodies) == {"namespace_forbidden"}  # the same answer whether it exists or not
    assert existing.footprint(missing_name) == (0, 0)


def test_unknown_namespace_is_404_for_a_key_that_may_see_it(api: Api) -> None:
    for method, path, body in READS + [
        w for w in WRITES if w[1] not in ("/v1/thoughts", "/v1/thoughts:bulk")
    ]:
        response = _call(api, method, path, body)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["error"] == "namespace_not_found"
        assert response.json()["field"] == "X-Namespace"
    assert api.footprint() == (0, 0)


def test_reads_take_a_namespace_seen_existing_for_a_few_seconds(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A namespace found to exist is not read again by reads for SEEN_EXISTING_SECONDS: one
    deleted meanwhile answers reads as empty until then; writes always read it afresh."""
    from api import state

    memory = api.thought("the deployment window is Tuesday")
    assert api.post("/v1/retrieve", json={"query": "deployment"}).status_code == 200
    api.drop()
    stale = api.post("/v1/retrieve", json={"query": "deployment"})
    assert stale.status_code == 200 and stale.json()["results"] == []
    changed = api.patch(f"/v1/thoughts/{memory['thought_id']}", json={"essence": "changed"})
    assert changed.json()["error"] == "namespace_not_found"
    monkeypatch.setattr(state, "SEEN_EXISTING_SECONDS", 0.0)
    assert api.get("/v1/thoughts").json()["error"] == "namespace_not_found"


def test_first_write_creates_the_namespace(api: Api) -> None:
    assert api.get("/v1/thoughts").status_code == 404
    api.thought("hello")
    assert api.get("/v1/thoughts").status_code == 200


def test_malformed_namespace_is_422(api: Api) -> None:
    for bad in ("has space", "x" * 65, "semi;colon", "dot.ted", "ünïcode".encode(), "", " "):
        response = api.client.get(
            "/v1/thoughts", headers={"Authorization": f"Bearer {ADMIN}", "X-Namespace": bad}
        )
        assert response.status_code == 422, bad
        assert response.json()["error"] == "invalid_namespace"
        assert response.json()["field"] == "X-Namespace"


def test_a_utf8_namespace_is_named_as_sent_in_its_422(api: Api) -> None:
    """Header bytes reach the app as Latin-1; the error names the UTF-8 text that was sent."""
    response = api.client.get(
        "/v1/thoughts", headers={"Authorization": f"Bearer {ADMIN}", "X-Namespace": "café".encode()}
    )
    assert response.status_code == 422
    assert "'café'" in response.json()["message"], response.json()["message"]
    latin_1 = api.client.get(  # not UTF-8: shown as it arrived, still refused
        "/v1/thoughts", headers={"Authorization": f"Bearer {ADMIN}", "X-Namespace": b"caf\xe9"}
    )
    assert latin_1.status_code == 422 and "'café'" in latin_1.json()["message"]


def test_an_authorization_header_sent_twice_is_422(api: Api) -> None:
    """Even when both keys are valid: which one was meant cannot be told."""
    api.thought("hello")
    twice = [("Authorization", f"Bearer {ADMIN}")] * 2 + [("X-Namespace", api.namespace)]
    response = api.client.get("/v1/thoughts", headers=twice)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "Authorization"
    assert "more than once" in response.json()["message"]


def test_a_namespace_header_sent_twice_is_422(api: Api) -> None:
    api.thought("hello")
    twice = [("Authorization", f"Bearer {ADMIN}")] + [("X-Namespace", api.namespace)] * 2
    response = api.client.get("/v1/thoughts", headers=twice)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "X-Namespace"
    assert "more than once" in response.json()["message"]


def test_default_namespace_when_no_header(client: TestClient) -> None:
    response = client.get(
        "/v1/thoughts", params={"limit": 1}, headers={"Authorization": f"Bearer {READER}"}
    )
    assert response.status_code == 200  # "default" is registered by the schema migration


def test_keys_and_content_are_never_logged(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    secret_text = "my very private memory 7f3a"
    with caplog.at_level(logging.DEBUG, logger="api"):
        api.thought(secret_text)
        api.as_key(ADMIN + "wrong").get("/v1/thoughts")
        api.post("/v1/retrieve", json={"query": secret_text})
    ours = [r for r in caplog.records if r.name.startswith("api")]
    logged = "\n".join(f"{r.getMessage()} {vars(r)}" for r in ours)
    assert "request" in logged and "/v1/thoughts" in logged
    for secret in (ADMIN, secret_text):
        assert secret not in logged
    access = [r for r in ours if r.name == "api.access"]
    assert {"request_id", "route", "status", "ms", "namespace", "caller"} <= set(vars(access[0]))


def test_no_key_refuses_to_start_unless_insecure_dev(connection: ConnectionInfo) -> None:
    with pytest.raises(ValueError, match="insecure-dev"):
        create_app(api_settings(connection, api_keys=[]), embedding_provider=None)
    app = create_app(
        api_settings(connection, api_keys=[], insecure_dev=True), embedding_provider=None
    )
    with TestClient(app) as dev:
        response = dev.get("/v1/thoughts", params={"limit": 1})
        assert response.status_code == 200


def test_bad_key_configuration_is_refused() -> None:
    from pydantic import ValidationError

    from api.settings import ApiKey

    for bad in (
        {"key": "short", "namespaces": ["*"]},
        {"key": "k" * 20, "key_sha256": "0" * 64, "namespaces": ["*"]},
        {"namespaces": ["*"]},
        {"key": "k" * 20, "namespaces": ["bad name"]},
    ):
        with pytest.raises(ValidationError):
            ApiKey.model_validate(bad)
