"""Read-your-writes through ``neo4j://`` routing (issue 15, item 11), on the real Neo4j.

With a routing URI the driver sends reads to readers and writes to the leader; every session of
one executor shares a bookmark manager, so a read right after a write sees it, also across REST
requests served by one process. Against the local single server the routing table names that
server for both roles, which exercises the same driver path a cluster takes (docs/operations.md,
"Clusters and `neo4j://`", says what a cluster deployment needs besides).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.model import ValidTimeFilter
from tests.factories import thought
from tests.integration.api.conftest import api_settings, drop_namespace, headers

ROUNDS = 10


def _routing(uri: str) -> str:
    """The ``neo4j://`` (routing) form of a ``bolt://`` URI."""
    scheme, _, rest = uri.partition("://")
    return f"{scheme.replace('bolt', 'neo4j', 1)}://{rest}"


@pytest.fixture
async def routed_store(
    connection: ConnectionInfo, provider: Any, schema_ready: None
) -> AsyncIterator[Neo4jEngravaCore]:
    executor = GraphExecutor.connect(
        _routing(connection.uri), (connection.user, connection.password), connection.database
    )
    store = Neo4jEngravaCore(
        executor, namespace=f"ryw-{uuid.uuid4().hex[:12]}", embedding_provider=provider
    )
    await executor.verify()
    yield store
    await store.delete_namespace()
    await store.close()


async def test_a_read_right_after_a_write_sees_it_through_routing(routed_store):
    store = routed_store
    assert store.executor.driver.__class__.__name__ == "AsyncNeo4jDriver"  # routing driver
    for i in range(ROUNDS):
        created = await store.create_thought(thought(f"routed fact {i}", valid_from="2024-01-01"))
        assert (await store.get_thought(created.thought_id)).essence == f"routed fact {i}"
        await store.update_thought(created.thought_id, essence=f"routed fact {i} (revised)")
        assert (await store.get_thought(created.thought_id)).essence.endswith("(revised)")
        assert await store.count_thoughts(valid_time=ValidTimeFilter.at("2024-06-01")) == i + 1
        assert await store.delete_thought(created.thought_id)
        assert await store.get_thought(created.thought_id) is None
        await store.create_thought(thought(f"kept {i}", valid_from="2024-01-01"))


@pytest.fixture
def routed_client(connection: ConnectionInfo, provider: Any) -> Iterator[TestClient]:
    settings = api_settings(connection, neo4j_uri=_routing(connection.uri))
    with TestClient(create_app(settings, embedding_provider=provider)) as client:
        yield client


def test_rest_requests_read_the_previous_request_s_write_through_routing(routed_client):
    namespace = f"ryw-api-{uuid.uuid4().hex[:12]}"
    sent = headers(namespace)
    try:
        for i in range(ROUNDS):
            created = routed_client.post(
                "/v1/thoughts",
                headers=sent,
                json={
                    "thought_type": "NOTE",
                    "essence": f"note {i}",
                    "content": f"note {i}",
                    "source": "ryw",
                },
            )
            assert created.status_code == 201, created.text
            thought_id = created.json()["thought_id"]
            read = routed_client.get(f"/v1/thoughts/{thought_id}", headers=sent)
            assert read.status_code == 200 and read.json()["essence"] == f"note {i}"
            patched = routed_client.patch(
                f"/v1/thoughts/{thought_id}", headers=sent, json={"essence": f"note {i} v2"}
            )
            assert patched.status_code == 200, patched.text
            listed = routed_client.get("/v1/thoughts", headers=sent, params={"limit": 500})
            essences = {t["essence"] for t in listed.json()["thoughts"]}
            assert f"note {i} v2" in essences and len(essences) == i + 1
    finally:
        drop_namespace(routed_client, namespace)
