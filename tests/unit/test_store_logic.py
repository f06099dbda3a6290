"""Pure parts of the store: access buffer, fusion math, Lucene escaping, the Cypher registry."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from engrava_graph.graph.registry import CypherRegistryError, cypher, list_statements
from engrava_graph.model import InvalidRecencyArgumentError, RecencyModeConflictError
from engrava_graph.model.enums import EdgeType, ThoughtType
from engrava_graph.model.thought_filter import ThoughtFilter
from engrava_graph.search.fusion import (
    RecencyAxis,
    TimeConfig,
    fuse,
    index_score_to_cosine,
    min_max,
    redistribute,
    resolve_recency,
)
from engrava_graph.search.lucene import query_terms, term_query
from engrava_graph.store.access_buffer import AccessBuffer


def test_access_buffer_coalesces_and_evicts_oldest():
    buf = AccessBuffer(capacity=2)
    buf.add(["a", "a", "b"])
    buf.add(["c"])  # evicts "a"
    assert buf.drain() == [{"thought_id": "b", "count": 1}, {"thought_id": "c", "count": 1}]
    assert len(buf) == 0
    buf.restore([{"thought_id": "x", "count": 3}])
    assert buf.drain() == [{"thought_id": "x", "count": 3}]


def test_weights_are_redistributed_over_active_signals():
    w = redistribute(
        {"fulltext": 0.3, "vector": 0.55, "recency": 0.1, "priority": 0.05},
        ["fulltext", "priority"],
    )
    assert math.isclose(w["fulltext"] + w["priority"], 1.0)
    assert w["vector"] == w["recency"] == 0.0
    assert redistribute({"a": 0.0}, ["a"]) == {"a": 0.0}


def test_min_max_and_fuse_order():
    assert min_max({"a": 2.0, "b": 2.0}) == {"a": 1.0, "b": 1.0}
    ranked = fuse(
        {"fulltext": {"a": 1.0, "b": 0.0}, "vector": {"b": 1.0, "c": 0.5}},
        {"fulltext": 0.5, "vector": 0.5},
        top_k=3,
    )
    assert ranked == [("a", 0.5), ("b", 0.5), ("c", 0.25)]  # ties broken by id


def test_recency_axes():
    cfg = TimeConfig()
    cyc = resolve_recency(current_cycle=100, recency_now=None, provider_cycle=None, config=cfg)
    assert cyc.axis is RecencyAxis.CYCLE
    assert math.isclose(cyc.score(50, None, None), 0.5)  # one half-life (50 cycles)
    tx = resolve_recency(
        current_cycle=None, recency_now="2024-01-08T00:00:00", provider_cycle=3, config=cfg
    )
    assert tx.axis is RecencyAxis.TRANSACTION
    assert math.isclose(tx.score(None, None, datetime(2024, 1, 1, tzinfo=UTC)), 0.5)
    assert tx.score(None, None, None) == 0.0  # missing timestamp = maximally old
    assert (
        resolve_recency(current_cycle=None, recency_now=None, provider_cycle=None, config=cfg)
        is None
    )
    with pytest.raises(RecencyModeConflictError):
        resolve_recency(current_cycle=1, recency_now="2024-01-01", provider_cycle=None, config=cfg)
    with pytest.raises(InvalidRecencyArgumentError):
        resolve_recency(
            current_cycle=None, recency_now="yesterday", provider_cycle=None, config=cfg
        )


def test_cosine_conversion():
    assert index_score_to_cosine(1.0) == 1.0 and index_score_to_cosine(0.25) == 0.0


def test_lucene_queries_carry_no_syntax_and_no_stop_words():
    assert query_terms('budget AND ") OR *:* ( REQ-FUNC*') == ["budget", "req", "func"]
    [budget] = [term_query(t, "ns61") for t in query_terms("budgets?")]
    assert budget.startswith("+ns_token:ns61 +(budget ") and "*" not in budget
    assert [term_query(t, "ns61") for t in query_terms("the PR")] == ["+ns_token:ns61 +pr"]
    assert query_terms("?!") == [] and query_terms("NOT") == [] and query_terms("Is it on?") == []


def test_registry_renders_from_enums_only():
    stmt = cypher("schema/edge_triple_key", rel_type=EdgeType.LEADS_TO)
    assert "edge_triple_LEADS_TO" in stmt.text and "{{" not in stmt.text
    with pytest.raises(CypherRegistryError, match="enum member"):
        cypher("schema/edge_triple_key", rel_type="X]->() DETACH DELETE n //")  # type: ignore[arg-type]
    with pytest.raises(CypherRegistryError, match="not filled"):
        cypher("schema/edge_triple_key")
    with pytest.raises(CypherRegistryError, match="not found"):
        cypher("no/such")


def test_every_statement_renders():
    names = list_statements()
    assert len(names) > 30
    for name in names:
        if "{{rel_type}}" in cypher_text(name) or "{{label}}" in cypher_text(name):
            continue
        assert "{{" not in cypher(name).text


def cypher_text(name: str) -> str:
    from engrava_graph.graph.registry import cypher_root

    return (cypher_root() / f"{name}.cypher").read_text()


def test_a_thought_filter_gives_the_fragment_its_parameters() -> None:
    where = ThoughtFilter(thought_type=ThoughtType.NOTE, priority="P1", min_cycle=2)
    params = where.cypher_params()
    assert (params["thought_type"], params["priority"], params["min_cycle"]) == ("NOTE", "P1", 2)
    assert (params["include_expired"], params["include_archived"]) == (False, True)
    assert params["meta_filters"] == [] and params["vt_kind"] is None
    wider = where.with_criteria(include_expired=True)
    assert wider.include_expired and wider.thought_type is ThoughtType.NOTE
    assert where.with_criteria() is where
    with pytest.raises(TypeError):
        where.with_criteria(speaker="A")
