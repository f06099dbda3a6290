"""Run from an installed wheel (not the clone): import, no optional extra pulled in, one
store/retrieve on the Neo4j named by NEO4J_URI, on a namespace made for it and deleted after.

Exits non-zero, with the reason, on the first failure. Used by ``.ci/wheel-smoke``.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

import engrava_graph
import engrava_graph.cli  # noqa: F401 - the console script's module imports cleanly
from api.app import create_app
from engrava_graph import Neo4jEngravaCore, ThoughtRecord, ThoughtType
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.graph.connection import connection_from_env
from engrava_graph.graph.registry import cypher_root

OPTIONAL = ("matplotlib", "neo4j_viz", "testcontainers", "engrava")


async def store_and_retrieve() -> None:
    info = connection_from_env()
    assert info is not None, 'set NEO4J_URI (eval "$(engrava-graph neo4j env)")'
    namespace = f"wheel-smoke-{uuid.uuid4().hex[:10]}"
    store = Neo4jEngravaCore.from_uri(
        info.uri,
        auth=(info.user, info.password),
        database=info.database,
        namespace=namespace,
        embedding_provider=SentenceTransformerProvider(),
    )
    async with store:
        try:
            await store.ensure_schema()
            dog = await store.create_thought(
                ThoughtRecord(
                    thought_type=ThoughtType.OBSERVATION,
                    essence="Caroline adopted a dog named Max",
                    content="Caroline adopted a dog named Max",
                    source="wheel-smoke",
                )
            )
            result = await store.retrieve("What is the name of Caroline's dog?", top_k=3)
            assert result and result[0].thought_id == dog.thought_id, result
        finally:
            await store.delete_namespace()


def main() -> None:
    installed = Path(engrava_graph.__file__).resolve()
    assert "site-packages" in installed.parts, f"engrava_graph imported from {installed}"
    package_data = [
        cypher_root() / "thoughts" / "get.cypher",
        cypher_root() / "browser" / "guide.html",
        cypher_root() / "bloom" / "engrava-perspective.json",
        installed.parent / "_docker" / "neo4j-server.pom.xml",
    ]
    missing = [str(p) for p in package_data if not p.is_file()]
    assert not missing, f"package data missing from the wheel: {missing}"
    assert create_app is not None  # the server's module imports without an extra
    pulled = [m for m in OPTIONAL if m in sys.modules]
    assert not pulled, f"importing the library pulled in optional extras: {pulled}"
    asyncio.run(store_and_retrieve())
    print(f"wheel smoke: ok ({installed.parent})")


if __name__ == "__main__":
    main()
