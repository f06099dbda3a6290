"""The plans of the statements that look memories up by id: index seeks, never scans.

Community's slotted planner, in a small database, preferred scanning the ``namespace`` index and
filtering to seeking ``(namespace, thought_id)`` for ids coming from an ``UNWIND`` (18,870 rows
read for 30 keyword hits in the retrieval cycle's main read); the statements name their index
with ``USING INDEX``. This checks the plan each statement gets on the server of the run (CI runs
it on 2026.x and on 5.26), rendered for that server's dialect, whatever the database holds.
"""

from __future__ import annotations

import pytest

from engrava_graph.graph.dialect import server_line
from engrava_graph.graph.registry import cypher

# Statements that look thoughts up by an id from a list (per retrieve, search or write batch).
BY_ID = [
    "retrieval/activate_exact",
    "retrieval/activate_index",
    "retrieval/causal_chains",
    "retrieval/rank",
    "thoughts/embeddings",
    "search/fusion_signals",
    "thoughts/get_many",
    "thoughts/existing_ids",
    "thoughts/record_access",
    "edges/bulk_create",
    "edges/bulk_preflight",
    "dreaming/members",
    "dreaming/covered",
]
# Seeks are fine (the exact vector arm seeks the namespace on purpose); these read everything.
SCANS = ("NodeIndexScan", "NodeByLabelScan", "AllNodesScan", "DirectedRelationshipTypeScan")


def _operators(plan: dict) -> list[str]:
    found = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        found.extend(_operators(child))
    return found


# The same, in the form only Neo4j 2026.01+ runs (the vector index filtered inside the index).
FILTERED = ["retrieval/activate_filtered", "dreaming/neighbours_filtered"]


@pytest.mark.parametrize("name", [*BY_ID, *FILTERED])
async def test_lookups_by_id_seek_an_index(executor, schema_ready, name):
    line = await server_line(executor)
    if name in FILTERED and not line.filtered_vector_index:
        pytest.skip(f"Neo4j {line.version}: no filtered vector index (2026.01+)")
    async with executor.driver.session(database=executor.database) as session:
        result = await session.run(f"EXPLAIN {cypher(name, line.dialect).text}")
        summary = await result.consume()
    operators = _operators(summary.plan)
    assert not [op for op in operators if op in SCANS], (name, operators)
    assert any("Seek" in op for op in operators), (name, operators)
