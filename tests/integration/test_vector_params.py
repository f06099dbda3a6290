"""Embeddings sent as VectorParam: stored and searched as before, and the driver's debug log of
the statement holds no 384-float list (its formatting ran on every statement)."""

from __future__ import annotations

import logging

import pytest

from engrava_graph.core import Neo4jEngravaCore
from tests.factories import thought


async def test_vectors_round_trip_and_the_driver_logs_them_short(
    store: Neo4jEngravaCore, caplog: pytest.LogCaptureFixture
):
    vector = await store.embed_query("the deployment window is Tuesday 2-4pm UTC")
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        stored = await store.create_thought(
            thought("The deployment window is Tuesday 2-4pm UTC"), embedding=vector
        )
        hits = await store.search_similar(vector, top_k=1)
    assert hits[0][0] == stored.thought_id and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert await store.get_embedding(stored.thought_id) == pytest.approx(vector, abs=1e-6)
    runs = [r.getMessage() for r in caplog.records if " C: RUN " in r.getMessage()]
    assert runs and any("<vector of 384 floats>" in m for m in runs)
    assert max(len(m) for m in runs) < 5_000
