"""The REST service on the real Neo4j, through FastAPI's test client.

One app per test session (its lifespan connects, migrates and warms the shared embedding model);
each test works in a fresh namespace that is deleted after it. The keys:

- ``ADMIN``: every namespace, read and write;
- ``READER``: every namespace, read-only;
- ``SCOPED``: only :data:`SCOPED_NS`, read and write;
- ``HASHED``: every namespace, configured by its SHA-256 digest only.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import ApiSettings
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.registry import cypher

ADMIN = "admin-" + uuid.uuid4().hex
READER = "reader-" + uuid.uuid4().hex
SCOPED = "scoped-" + uuid.uuid4().hex
HASHED = "hashed-" + uuid.uuid4().hex
SCOPED_NS = f"apis-{uuid.uuid4().hex[:12]}"

_FOOTPRINT = cypher("namespaces/footprint")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: starts a private Neo4j or runs many requests (tens of seconds)"
    )


def api_settings(connection: ConnectionInfo, **overrides: Any) -> ApiSettings:
    """Settings for ``connection`` with the test keys (no ``.env`` is read)."""
    values: dict[str, Any] = {
        "neo4j_uri": connection.uri,
        "neo4j_user": connection.user,
        "neo4j_password": connection.password,
        "neo4j_database": connection.database,
        "api_keys": [
            {"name": "admin", "key": ADMIN, "namespaces": ["*"]},
            {"name": "reader", "key": READER, "namespaces": ["*"], "read_only": True},
            {"name": "scoped", "key": SCOPED, "namespaces": [SCOPED_NS]},
            {
                "name": "hashed",
                "key_sha256": hashlib.sha256(HASHED.encode()).hexdigest(),
                "namespaces": ["*"],
            },
        ],
    }
    values.update(overrides)
    return ApiSettings(_env_file=None, **values)  # type: ignore[call-arg]


def new_namespace() -> str:
    """A fresh namespace name for one test."""
    return f"apit-{uuid.uuid4().hex[:12]}"


def headers(namespace: str, key: str | None = ADMIN) -> dict[str, str]:
    """Request headers: the namespace and (unless None) the bearer key."""
    out = {"X-Namespace": namespace}
    if key is not None:
        out["Authorization"] = f"Bearer {key}"
    return out


class Api:
    """The test client bound to one namespace and key: ``api.post("/v1/thoughts", json=…)``."""

    def __init__(self, client: TestClient, namespace: str, key: str | None = ADMIN) -> None:
        self.client = client
        self.namespace = namespace
        self.key = key

    def as_key(self, key: str | None) -> Api:
        """The same namespace with another key (None = no Authorization header)."""
        return Api(self.client, self.namespace, key)

    def in_namespace(self, namespace: str) -> Api:
        """The same key in another namespace."""
        return Api(self.client, namespace, self.key)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        kwargs["headers"] = {**headers(self.namespace, self.key), **kwargs.get("headers", {})}
        return self.client.request(method, path, **kwargs)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> Any:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self.request("DELETE", path, **kwargs)

    def thought(self, essence: str, **fields: Any) -> dict[str, Any]:
        """POST an OBSERVATION (content = essence unless given) and return the stored record."""
        body = {
            "thought_type": "OBSERVATION",
            "essence": essence,
            "content": essence,
            "source": "api-test",
            **fields,
        }
        response = self.post("/v1/thoughts", json=body)
        assert response.status_code == 201, response.text
        return response.json()

    def footprint(self, namespace: str | None = None) -> tuple[int, int]:
        """``(nodes, relationships)`` of a namespace, counted in Neo4j."""
        return footprint(self.client, namespace or self.namespace)

    def drop(self, namespace: str | None = None) -> None:
        """Delete a namespace (through the app's own connection and event loop)."""
        drop_namespace(self.client, namespace or self.namespace)


def footprint(client: TestClient, namespace: str) -> tuple[int, int]:
    """``(nodes, relationships)`` of ``namespace``, read through the app's connection."""
    executor = client.app.state.api.base.executor  # type: ignore[attr-defined]
    rows = client.portal.call(functools.partial(executor.read, _FOOTPRINT, namespace=namespace))
    return int(rows[0]["nodes"]), int(rows[0]["relationships"])


def drop_namespace(client: TestClient, namespace: str) -> None:
    """Delete ``namespace`` and everything in it."""
    client.portal.call(client.app.state.api.store(namespace).delete_namespace)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def client(connection: ConnectionInfo, provider: Any) -> Iterator[TestClient]:
    """The service on the test Neo4j (lifespan run once for the session)."""
    app = create_app(api_settings(connection), embedding_provider=provider)
    with TestClient(app) as test_client:
        yield test_client
        drop_namespace(test_client, SCOPED_NS)


@pytest.fixture
def make_api(client: TestClient) -> Iterator[Callable[..., Api]]:
    """A factory of :class:`Api` on fresh namespaces (deleted after the test)."""
    made: list[str] = []

    def make(key: str | None = ADMIN, namespace: str | None = None) -> Api:
        name = namespace or new_namespace()
        made.append(name)
        return Api(client, name, key)

    yield make
    for name in made:
        drop_namespace(client, name)


@pytest.fixture
def api(make_api: Callable[..., Api]) -> Api:
    """The admin key on a fresh namespace (created by the first write)."""
    return make_api()
