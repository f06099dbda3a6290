"""Schema: idempotent migrations, the recorded version, the dimension check."""

from __future__ import annotations

import numpy as np
import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph import schema
from engrava_graph.model import EmbeddingDimensionMismatchError


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
