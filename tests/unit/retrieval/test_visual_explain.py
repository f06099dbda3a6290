"""The visual explain graph and page, from a hand-made explanation (no database)."""

from __future__ import annotations

from typing import Any

from engrava_graph.retrieval.results import Explanation
from engrava_graph.retrieval.subgraph import ExplainSubgraph, explained_ids
from engrava_graph.retrieval.visual import (
    CAUSAL_EDGE_COLOUR,
    MIN_RADIUS,
    REACHED_BY_COLOURS,
    _cut,
    _node_caption,
    explanation_graph,
    render_explanation_html,
)

LINK = {
    "edge_id": "e1",
    "edge_type": "CAUSED_BY",
    "from_thought_id": "a",
    "to_thought_id": "c",
    "confidence": 0.8,
    "hops": 1,
    "direction": "cause",
}


def _trace(tid: str, reached_by: str, confidence: float, **fields: Any) -> dict[str, Any]:
    signals = dict.fromkeys(
        (
            "similarity",
            "temporal",
            "causal",
            "importance",
            "access_frequency",
            "activation",
            "composite",
        ),
        0.5,
    )
    return {
        "thought_id": tid,
        "text": f"memory {tid}",
        "reached_by": reached_by,
        "hops": 0,
        "confidence": confidence,
        **signals,
        **fields,
    }


def _result(tid: str, confidence: float, links: list[dict[str, Any]] = ()) -> dict[str, Any]:
    return {
        "thought_id": tid,
        "text": f"memory {tid}",
        "confidence": confidence,
        "pathway": "attention",
        "thought_type": "OBSERVATION",
        "metadata": {},
        "created_at": None,
        "last_accessed_at": None,
        "causal_links": list(links),
        "reached_by": "activation",
    }


def explanation(query: str = "why did a happen?", level: str = "debug") -> Explanation:
    return Explanation.model_validate(
        {
            "level": level,
            "query": query,
            "intent": "causal",
            "intent_scores": {"causal": 0.7, "factual": 0.1, "temporal": 0.1, "exploratory": 0.1},
            "entities": [],
            "temporal": None,
            "pathway_scores": {"exact": 0.2, "energy": 0.3, "attention": 0.5},
            "pathway_selected": "attention",
            "candidates_activated": 2,
            "candidates_after_spread": 3,
            "candidates_final": 2,
            "phase_timings": {"encode": 1.0, "activate": 2.5},
            "skipped_phases": {},
            "decay_axis": "access",
            "vector_strategy": "exact",
            "weights": {},
            "results": [_result("a", 0.9, [LINK]), _result("c", 0.4)],
            "candidates": None
            if level == "summary"
            else [
                _trace("a", "activation", 0.9),
                _trace("c", "cause", 0.4, hops=1),
                _trace("b", "spread", 0.1, hops=1, dropped_in="filter", reason="near-duplicate"),
            ],
        }
    )


SUBGRAPH = ExplainSubgraph.model_validate(
    {
        "edges": [
            {
                "edge_id": "e2",
                "edge_type": "ASSOCIATED",
                "from_thought_id": "a",
                "to_thought_id": "b",
                "weight": 0.6,
            },
            {
                "edge_id": "e3",
                "edge_type": "ASSOCIATED",
                "from_thought_id": "a",
                "to_thought_id": "not-a-candidate",
                "weight": 0.6,
            },
        ],
        "shared": [
            {"label": "Tag", "name": "billing", "thought_ids": ["a", "b"]},
            {"label": "Entity", "name": "alone", "thought_ids": ["a", "gone"]},
        ],
    }
)


def test_nodes_are_coloured_by_reach_sized_by_confidence_and_captioned_by_rank():
    graph = explanation_graph(explanation(), SUBGRAPH)
    nodes = {n.id: n for n in graph.nodes}
    assert set(nodes) == {"query", "t:a", "t:b", "t:c", "tag:billing"}
    assert nodes["t:a"].color.as_hex() == REACHED_BY_COLOURS["activation"].lower()
    assert nodes["t:b"].color.as_hex() == REACHED_BY_COLOURS["spread"].lower()
    assert nodes["t:a"].size > nodes["t:c"].size > nodes["t:b"].size
    assert nodes["t:a"].caption == "#1 memory a" and nodes["t:c"].caption == "#2 memory c"
    assert nodes["t:b"].caption == "memory b"
    assert nodes["t:b"].properties["dropped_in"] == "filter"


def test_relationships_show_activation_stored_edges_and_the_causal_chain():
    graph = explanation_graph(explanation(), SUBGRAPH)
    rels = {r.id: r for r in graph.relationships}
    assert rels["a:a"].source == "query" and rels["a:a"].target == "t:a"
    assert "a:c" not in rels, "only activated memories hang off the query"
    chain = rels["r:e1"]
    assert chain.color.as_hex() == CAUSAL_EDGE_COLOUR.lower()
    assert chain.caption == "CAUSED_BY 0.80"
    assert rels["r:e2"].caption == "ASSOCIATED 0.60"
    assert "r:e3" not in rels, "an edge to a thought not drawn is left out"
    assert {r.source for r in graph.relationships if r.target == "tag:billing"} == {"t:a", "t:b"}
    assert not any("alone" in r.id for r in graph.relationships)


def test_summary_level_draws_the_results_only():
    summary = explanation(level="summary")
    assert explained_ids(summary) == ["a", "c"]
    graph = explanation_graph(summary)
    assert {n.id for n in graph.nodes} == {"query", "t:a", "t:c"}
    assert "r:e1" in {r.id for r in graph.relationships}


def test_page_is_standalone_and_escapes_the_query():
    page = render_explanation_html(explanation("<script>alert(1)</script> why?"), SUBGRAPH)
    assert page.startswith("<!doctype html>")
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; why?" in page
    assert "id='engrava-explain-summary'" in page and "neo4j-viz-data" in page
    assert "<title>engrava-graph explain: &lt;script&gt;" in page


def test_captions_end_at_a_whole_word_and_small_nodes_stay_legible():
    assert _node_caption("#1 The Friday deploy of billing failed") == "#1 The Friday\u2026"
    assert _node_caption("#2 Health checks timed out") == "#2 Health checks\u2026"
    assert _node_caption("configuration") == "configura\u2026"
    assert _cut("Why did the deploy fail after the config change on Friday? " * 2) == (
        "Why did the deploy fail after the config change on Friday?\u2026"
    )
    graph = explanation_graph(explanation())
    assert min(n.size for n in graph.nodes if n.id.startswith("t:")) >= MIN_RADIUS >= 20


def test_panel_in_plain_words_with_details_per_memory():
    page = render_explanation_html(explanation())
    panel = page[page.index("id='engrava-explain-summary'") :]
    for words in (
        "kind of question",
        "search strategy",
        "found by meaning or keywords",
        "Click a memory",
        "Considered, not returned",
        "similarity to the question",
    ):
        assert words in panel, words
    assert "Phase" not in panel
    assert panel.count("<details title=") == 3  # a, c returned; b dropped
