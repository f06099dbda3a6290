"""Neo4j stopped and started again under the running service: 503 with Retry-After while it is
down, recovery without restarting the service, and no acknowledged write lost.

Runs on a private Neo4j instance (``LocalNeo4jServer("api-restart-<instance>")`` on its own
ports), never on the shared server. Slow: two server starts, about 30-60 s.
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.server import LocalNeo4jServer, ServerSettings
from tests.integration.api.conftest import api_settings, headers

pytestmark = pytest.mark.slow

START_TIMEOUT = 240.0  # seconds for one server start on a busy 2-core machine
RECOVERY_TIMEOUT = 120.0  # seconds for the service to answer again once Neo4j is back
WRITER_PAUSE = 0.05  # seconds between the background writer's requests


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def private_neo4j() -> Iterator[tuple[LocalNeo4jServer, ConnectionInfo]]:
    """A Neo4j of our own, on fixed free ports so that a restart keeps its URI."""
    settings = dataclasses.replace(
        ServerSettings.from_env(),
        bolt_port=_free_port(),
        http_port=_free_port(),
        heap="512m",
        pagecache="128m",
    )
    # One per instance of the run (CI runs the 2026.x and the 5.26 line one after the other, and
    # 5.26 cannot open a store 2026.x wrote).
    server = LocalNeo4jServer(f"api-restart-{settings.instance}", settings)
    server.stop()  # a run killed half-way may have left it running on other ports
    try:
        info = server.start(timeout=START_TIMEOUT)
        yield server, info
    finally:
        server.stop()


def _thought(text: str) -> dict[str, Any]:
    return {"thought_type": "NOTE", "essence": text, "content": text, "source": "restart"}


class Writer(threading.Thread):
    """Posts thoughts until stopped, remembering which ones were acknowledged (201)."""

    def __init__(self, client: TestClient, namespace: str) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.namespace = namespace
        self.acknowledged: list[str] = []
        self.statuses: set[int] = set()
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            tid = f"w-{uuid.uuid4().hex}"
            response = self.client.post(
                "/v1/thoughts",
                json={**_thought(tid), "thought_id": tid},
                headers=headers(self.namespace),
            )
            self.statuses.add(response.status_code)
            if response.status_code == 201:
                self.acknowledged.append(tid)
            time.sleep(WRITER_PAUSE)


def _wait_ready(client: TestClient) -> float:
    began = time.monotonic()
    while time.monotonic() - began < RECOVERY_TIMEOUT:
        if client.get("/readyz").status_code == 200:
            return time.monotonic() - began
        time.sleep(0.5)
    raise AssertionError(f"the service did not recover within {RECOVERY_TIMEOUT} s")


def test_service_survives_a_neo4j_restart(private_neo4j: Any, provider: Any) -> None:
    server, info = private_neo4j
    settings = api_settings(
        info,
        neo4j_max_transaction_retry_time=2.0,
        neo4j_connection_timeout=2.0,
        retry_after_seconds=3,
    )
    namespace = f"apir-{uuid.uuid4().hex[:8]}"
    with TestClient(create_app(settings, embedding_provider=provider)) as client:
        first = client.post(
            "/v1/thoughts", json=_thought("before the outage"), headers=headers(namespace)
        )
        assert first.status_code == 201
        writer = Writer(client, namespace)
        writer.start()
        time.sleep(1.0)
        server.stop()

        down = client.post("/v1/retrieve", json={"query": "outage"}, headers=headers(namespace))
        assert down.status_code == 503, down.text
        assert down.headers["Retry-After"] == "3"
        assert down.json()["error"] == "neo4j_unavailable"
        write = client.post("/v1/thoughts", json=_thought("during"), headers=headers(namespace))
        assert write.status_code == 503
        assert client.get("/readyz").status_code == 503
        assert (client.head("/readyz").status_code, client.head("/readyz").content) == (503, b"")
        assert client.get("/healthz").status_code == 200

        assert server.start(timeout=START_TIMEOUT).uri == info.uri
        _wait_ready(client)
        time.sleep(1.0)
        writer.halt.set()
        writer.join()
        assert 201 in writer.statuses and writer.statuses <= {201, 503}

        after = client.post(
            "/v1/thoughts", json=_thought("after the outage"), headers=headers(namespace)
        )
        assert after.status_code == 201
        acknowledged = [
            first.json()["thought_id"],
            after.json()["thought_id"],
            *writer.acknowledged,
        ]
        stored: set[str] = set()
        cursor = None
        while True:
            page = client.get(
                "/v1/thoughts",
                params={"limit": 500, **({"cursor": cursor} if cursor else {})},
                headers=headers(namespace),
            ).json()
            stored |= {t["thought_id"] for t in page["thoughts"]}
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert set(acknowledged) <= stored
        assert (
            client.post(
                "/v1/retrieve", json={"query": "outage"}, headers=headers(namespace)
            ).status_code
            == 200
        )
        client.portal.call(client.app.state.api.store(namespace).delete_namespace)
