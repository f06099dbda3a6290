"""Fixtures on a real Neo4j, resolved as graph/connection.py does: NEO4J_URI, else
testcontainers where a Docker engine answers, else the local server the project starts. Never a
fake.

Each test gets its own namespace (so tests never see each other's data) that is deleted after.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable

import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import ConnectionInfo, resolve_connection
from engrava_graph.graph.executor import GraphExecutor


@pytest.fixture(scope="session")
def connection() -> ConnectionInfo:
    return resolve_connection()


@pytest.fixture(scope="session")
def provider() -> SentenceTransformerProvider:
    return SentenceTransformerProvider()


@pytest.fixture(scope="session")
async def executor(connection: ConnectionInfo) -> AsyncIterator[GraphExecutor]:
    ex = GraphExecutor.connect(
        connection.uri, (connection.user, connection.password), connection.database
    )
    await ex.verify()
    yield ex
    await ex.close()


@pytest.fixture(scope="session")
async def schema_ready(executor: GraphExecutor, provider: SentenceTransformerProvider) -> None:
    await Neo4jEngravaCore(executor, embedding_provider=provider).ensure_schema()


@pytest.fixture
async def make_store(
    executor: GraphExecutor, provider: SentenceTransformerProvider, schema_ready: None
) -> AsyncIterator[Callable[..., Neo4jEngravaCore]]:
    """A factory of stores on fresh namespaces (deleted after the test)."""
    made: list[Neo4jEngravaCore] = []

    def make(**options: object) -> Neo4jEngravaCore:
        options.setdefault("embedding_provider", provider)
        namespace = str(options.pop("namespace", f"t-{uuid.uuid4().hex[:12]}"))
        store = Neo4jEngravaCore(executor, namespace=namespace, **options)  # type: ignore[arg-type]
        made.append(store)
        return store

    yield make
    for store in made:
        await store.delete_namespace()


@pytest.fixture
async def store(make_store: Callable[..., Neo4jEngravaCore]) -> Neo4jEngravaCore:
    s = make_store()
    await s.ensure_namespace()
    return s
