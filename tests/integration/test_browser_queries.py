"""Every Cypher block of the Neo4j Browser guide and every Bloom search phrase runs on a real
Neo4j and finds the memory it is about (a small incident memory after one dreaming pass)."""

from __future__ import annotations

import pytest

from engrava_graph.graph.registry import CypherStatement
from tests.browser_files import bloom_perspective, guide_cypher, guide_slides
from tests.explore_data import load_incident


@pytest.fixture
async def dreamt(store):
    await load_incident(store, dream=True)
    made = [
        t
        for t in await store.list_thoughts(thought_type="REFLECTION")
        if t.thought_id != "old-reflection"
    ]
    assert len(made) == 1, "the pass consolidates the three failed deploys"
    assert set(made[0].consolidated_from or ()) == {"deploy", "deploy-again", "deploy-third"}
    return store, made[0].thought_id


async def test_every_guide_block_runs_and_finds_rows(dreamt):
    store, reflection_id = dreamt
    params = {
        "namespace": store.namespace,
        "text": "deploy",
        "thought_id": "deploy",
        "reflection_id": reflection_id,
    }
    for i, block in enumerate(guide_cypher(guide_slides())):
        rows = await store.executor.read(CypherStatement(f"guide/{i}", block), **params)
        assert rows, f"guide block {i} found nothing:\n{block}"


async def test_causal_chain_block_walks_both_directions(dreamt):
    store, _ = dreamt
    chain = next(b for b in guide_cypher(guide_slides()) if "AS chain_confidence" in b)
    rows = await store.executor.read(
        CypherStatement("guide/causes", chain), namespace=store.namespace, thought_id="deploy"
    )
    assert [(r["links"], r["thought_id"]) for r in rows] == [(1, "timeout"), (2, "migration")]
    assert rows[1]["chain_confidence"] == pytest.approx(0.9 * 0.8)


async def test_bloom_search_phrases_run_and_find_the_memory(dreamt):
    store, _ = dreamt
    values = {"namespace": store.namespace, "thought": "friday deploy", "text": "deploy"}
    for template in bloom_perspective()["templates"]:
        params = {p["name"].lstrip("$"): values[p["name"].lstrip("$")] for p in template["params"]}
        rows = await store.executor.read(
            CypherStatement("bloom/phrase", template["cypher"]), **params
        )
        assert rows, template["text"]
