"""``engrava-graph cypher profile``: one retrieve on a real Neo4j with every read under PROFILE,
and the printed ``:params`` blocks run as given."""

from __future__ import annotations

from datetime import UTC, datetime

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.profiling import ProfilingExecutor, cypher_literal
from engrava_graph.graph.registry import CypherStatement
from engrava_graph.model import EdgeType
from tests.factories import edge, thought


async def test_a_profiled_retrieve_reports_db_hits_per_statement_and_pasteable_params(
    store, connection, provider, executor
):
    dog = await store.create_thought(thought("Caroline adopted a golden retriever named Max"))
    pie = await store.create_thought(thought("Grandma's apple pie recipe uses cinnamon"))
    await store.create_edge(edge(dog, pie, EdgeType.ASSOCIATED, weight=1.0))
    profiling = ProfilingExecutor.connect(
        connection.uri, (connection.user, connection.password), connection.database
    )
    try:
        profiled = Neo4jEngravaCore(
            profiling, namespace=store.namespace, embedding_provider=provider
        )
        result = await profiled.retrieve("Caroline's dog", top_k=5, now=datetime.now(UTC))
    finally:
        await profiling.close()
    assert result[0].thought_id == dog.thought_id
    runs = profiling.profiled
    assert runs and sum(r.db_hits for r in runs) > 0
    assert any(r.rows > 0 for r in runs)
    for run in runs:  # the literal a person pastes evaluates to the parameters that ran
        rows = await executor.read(
            CypherStatement("test/params", f"RETURN {cypher_literal(run.params)} AS p")
        )
        again = await executor.read(CypherStatement(run.name, run.text), **rows[0]["p"])
        assert len(again) == run.rows, run.name
