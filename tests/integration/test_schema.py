"""Schema: idempotent migrations, the recorded version, the dimension check."""

from __future__ import annotations

import numpy as np
import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph import schema
from engrava_graph.graph.registry import cypher
from engrava_graph.model import EmbeddingDimensionMismatchError
from engrava_graph.search.keyword_backfill import backfill_keyword_terms
from tests.factories import thought


class TinyProvider:
    dimensions = 8
    model_name = "tiny-8"

    def embed(self, texts):
        return np.ones((len(texts), 8), dtype=np.float32)


async def test_ensure_schema_is_idempotent_and_versioned(executor, schema_ready):
    assert await schema.ensure_schema(executor, dimensions=384) == schema.SCHEMA_VERSION
    assert await schema.schema_version(executor) == schema.SCHEMA_VERSION
    assert await schema.vector_dimensions(executor) == 384


async def test_dimension_mismatch_names_both_numbers(executor, schema_ready):
    store = Neo4jEngravaCore(executor, embedding_provider=TinyProvider())
    with pytest.raises(EmbeddingDimensionMismatchError, match="384 dimensions.*produces 8"):
        await store.ensure_schema()


async def test_the_migration_from_version_3_stores_keyword_terms_once(executor, store):
    (note,) = await store.bulk_store([thought("The deployment window is Tuesday 2-4pm UTC")])
    async with executor.driver.session(database=executor.database) as session:
        await (
            await session.run(
                "MATCH (t:Thought {namespace: $ns}) REMOVE t.keyword_terms, t.keyword_length "
                "WITH count(*) AS n MATCH (s:SchemaVersion {id: 'engrava-graph'}) "
                "SET s.version = 3",
                ns=store.namespace,
            )
        ).consume()
    filled: list[int] = []

    async def backfill(ex):
        filled.append(await backfill_keyword_terms(ex))
        return filled[-1]

    assert await schema.ensure_schema(executor, dimensions=384, backfill=backfill) == 4
    assert await schema.ensure_schema(executor, dimensions=384, backfill=backfill) == 4
    assert len(filled) == 1 and filled[0] >= 1  # only the first run migrates
    rows = await executor.read(
        cypher("thoughts/get"), namespace=store.namespace, thought_id=note.thought_id
    )
    assert rows[0]["thought"]["keyword_terms"] == "deploy window tuesday 2 4pm utc"
