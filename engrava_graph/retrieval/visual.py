"""Visual explain: one retrieval drawn as an interactive graph (a standalone HTML page).

The page is rendered by Neo4j's ``neo4j-viz`` (NVL, the library behind Neo4j's own tools; the
JavaScript is inlined, so the file opens offline). What it shows:

* the query as a dark node, linked to every memory that Phase 3 activated (link caption: cosine);
* every candidate, coloured by how it entered the cycle (activation, spread, cause), sized by its
  Phase 9 confidence, captioned ``#rank essence`` when it was returned;
* the relationships among the candidates, ``TYPE weight``, and the Entity/Tag nodes two or more of
  them share: the paths spreading activation (Phase 4) could follow;
* the causal chain of Phase 6 in red, captioned ``TYPE confidence``;
* a panel with the query's intent, pathway scores, candidate counts, time, and the final ranking.

Clicking a node shows its signals (similarity, temporal, causal, importance, access frequency,
activation, composite, confidence) and, for a dropped candidate, the phase that dropped it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from engrava_graph.extras import require
from engrava_graph.retrieval.results import CandidateTrace, CausalLink, Explanation
from engrava_graph.retrieval.subgraph import ExplainSubgraph, SubgraphEdge

if TYPE_CHECKING:  # neo4j-viz is the `viz` extra, imported where a graph is drawn
    from neo4j_viz import Node, Relationship, VisualizationGraph

REACHED_BY_COLOURS = {"activation": "#4C8EDA", "spread": "#F79767", "cause": "#F16667"}
"""Candidate colour by how it entered the cycle (Phase 3, 4 or 6)."""
QUERY_COLOUR = "#2A2C34"
SHARED_COLOURS = {"Entity": "#D9C8AE", "Tag": "#8DCC93"}
EDGE_COLOUR = "#A5ABB6"
ACTIVATION_EDGE_COLOUR = "#9CC3EE"
CAUSAL_EDGE_COLOUR = "#D62728"

MIN_RADIUS, MAX_RADIUS = 10.0, 42.0
"""Node radius in pixels for confidence 0 and 1 (linear in between)."""
QUERY_RADIUS, SHARED_RADIUS = 34.0, 16.0
CAPTION_CHARS = 42
"""Captions longer than this many characters are cut with an ellipsis."""

_QUERY_ID = "query"
_SHARED_REL_TYPE = {"Entity": "MENTIONS", "Tag": "TAGGED"}


@dataclass(frozen=True)
class _Row:
    """One drawn memory, from a debug trace or (at ``level="summary"``) from a result."""

    thought_id: str
    text: str
    reached_by: str
    confidence: float
    rank: int | None
    details: dict[str, Any] = field(default_factory=dict)


def _node_id(thought_id: str) -> str:
    return f"t:{thought_id}"


def _shared_id(label: str, name: str) -> str:
    return f"{label.lower()}:{name}"


def _cut(text: str, limit: int = CAPTION_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"


def _radius(confidence: float) -> float:
    return MIN_RADIUS + (MAX_RADIUS - MIN_RADIUS) * min(max(confidence, 0.0), 1.0)


def _trace_details(trace: CandidateTrace) -> dict[str, Any]:
    return trace.model_dump(exclude={"thought_id", "text", "reached_by"}, exclude_none=True)


def _rows(explanation: Explanation) -> list[_Row]:
    """Every memory to draw with its rank (1-based) when it was returned."""
    ranks = {r.thought_id: i for i, r in enumerate(explanation.results, start=1)}
    if explanation.candidates is not None:
        return [_Row(c.thought_id, c.text, c.reached_by, c.confidence, ranks.get(c.thought_id),
                     _trace_details(c)) for c in explanation.candidates]
    return [_Row(r.thought_id, r.text, r.reached_by, r.confidence, ranks[r.thought_id],
                 {"thought_type": r.thought_type}) for r in explanation.results]


def _memory_node(row: _Row) -> Node:
    from neo4j_viz import Node

    caption = _cut(row.text)
    if row.rank is not None:
        caption = f"#{row.rank} {caption}"
    properties = {"thought_id": row.thought_id, "essence": row.text, "reached_by": row.reached_by,
                  "rank": row.rank if row.rank is not None else "not returned", **row.details}
    return Node(id=_node_id(row.thought_id), caption=caption, size=_radius(row.confidence),
                color=REACHED_BY_COLOURS.get(row.reached_by, EDGE_COLOUR), properties=properties)


def _causal_links(explanation: Explanation) -> dict[str, CausalLink]:
    """The Phase 6 links through the returned memories, one per edge id."""
    return {link.edge_id: link for r in explanation.results for link in r.causal_links}


def _typed_edges(explanation: Explanation,
                 subgraph: ExplainSubgraph) -> list[tuple[SubgraphEdge, bool]]:
    """Relationships to draw, each with whether it is on a causal chain."""
    causal = _causal_links(explanation)
    edges = {e.edge_id: e for e in subgraph.edges}
    for edge_id, link in causal.items():
        edges.setdefault(edge_id, SubgraphEdge(
            edge_id=edge_id, edge_type=link.edge_type, from_thought_id=link.from_thought_id,
            to_thought_id=link.to_thought_id, confidence=link.confidence))
    return [(e, e.edge_id in causal) for e in edges.values()]


def _edge_relationship(edge: SubgraphEdge, on_chain: bool) -> Relationship:
    from neo4j_viz import Relationship

    value = edge.confidence if on_chain and edge.confidence is not None else edge.weight
    caption = edge.edge_type if value is None else f"{edge.edge_type} {value:.2f}"
    width = 5.0 if on_chain else 1.0 + 3.0 * (edge.weight if edge.weight is not None else 0.5)
    return Relationship(
        id=f"r:{edge.edge_id}", source=_node_id(edge.from_thought_id),
        target=_node_id(edge.to_thought_id), caption=caption, width=width,
        color=CAUSAL_EDGE_COLOUR if on_chain else EDGE_COLOUR,
        properties={"edge_id": edge.edge_id, "relationship": edge.edge_type, "weight": edge.weight,
                    "confidence": edge.confidence, "causal_chain": on_chain})


def explanation_graph(explanation: Explanation,
                      subgraph: ExplainSubgraph | None = None) -> VisualizationGraph:
    """The ``neo4j-viz`` graph of one explained retrieval (see the module docstring).

    Args:
        explanation: ``store.explain(query, level=...)``; ``"debug"`` draws every candidate,
            ``"summary"`` only the returned results.
        subgraph: relationships and shared Entity/Tag nodes among them
            (:func:`~engrava_graph.retrieval.subgraph.load_subgraph`); None draws only the query
            links and the causal chain.

    Returns:
        A graph with a legend, ready for ``render()`` (or ``render_widget()`` in a notebook).

    Raises:
        MissingExtraError: the ``viz`` extra (neo4j-viz) is not installed.
    """
    require("viz", "the visual explain")
    from neo4j_viz import Node, Relationship, VisualizationGraph

    subgraph = subgraph or ExplainSubgraph()
    rows = _rows(explanation)
    nodes = [Node(id=_QUERY_ID, caption=_cut(explanation.query), size=QUERY_RADIUS,
                  color=QUERY_COLOUR, properties={"query": explanation.query,
                                                  "intent": explanation.intent.value,
                                                  "pathway": explanation.pathway_selected.value})]
    nodes += [_memory_node(row) for row in rows]
    drawn = {n.id for n in nodes}
    relationships = [
        Relationship(id=f"a:{row.thought_id}", source=_QUERY_ID, target=_node_id(row.thought_id),
                     caption=(f"{row.details['similarity']:.2f}"
                              if "similarity" in row.details else "activated"),
                     color=ACTIVATION_EDGE_COLOUR, width=1.0,
                     properties={"relationship": "ACTIVATED", **{k: row.details[k] for k in (
                         "similarity", "activation") if k in row.details}})
        for row in rows if row.reached_by == "activation"]
    relationships += [_edge_relationship(edge, on_chain)
                      for edge, on_chain in _typed_edges(explanation, subgraph)
                      if _node_id(edge.from_thought_id) in drawn
                      and _node_id(edge.to_thought_id) in drawn]
    for shared in subgraph.shared:
        members = [t for t in shared.thought_ids if _node_id(t) in drawn]
        if len(members) < 2:
            continue
        hub = _shared_id(shared.label, shared.name)
        nodes.append(Node(id=hub, caption=shared.name, size=SHARED_RADIUS,
                          color=SHARED_COLOURS[shared.label],
                          properties={"label": shared.label, "name": shared.name}))
        relationships += [Relationship(id=f"{hub}<-{t}", source=_node_id(t), target=hub,
                                       color=EDGE_COLOUR, width=0.5,
                                       properties={"relationship": _SHARED_REL_TYPE[shared.label]})
                          for t in members]
    graph = VisualizationGraph(nodes=nodes, relationships=relationships)
    graph.set_legend(
        nodes={**{f"reached by {k}": v for k, v in REACHED_BY_COLOURS.items()},
               "query": QUERY_COLOUR, "shared entity": SHARED_COLOURS["Entity"],
               "shared tag": SHARED_COLOURS["Tag"]},
        relationships={"causal chain (Phase 6)": CAUSAL_EDGE_COLOUR,
                       "activated by the query": ACTIVATION_EDGE_COLOUR,
                       "stored relationship": EDGE_COLOUR})
    return graph


def _summary_panel(explanation: Explanation) -> str:
    """The HTML panel (every value escaped) with the run's summary and final ranking."""
    e = html.escape
    scores = explanation.pathway_scores
    total_ms = sum(explanation.phase_timings.values())
    ranking = "".join(
        f"<li>{e(_cut(r.text, 60))} <span style='color:#6b7280'>{r.confidence:.2f}</span></li>"
        for r in explanation.results) or "<li>(nothing returned)</li>"
    skipped = "; ".join(f"{e(k)}: {e(v)}" for k, v in explanation.skipped_phases.items())
    return (
        "<details open id='engrava-explain-summary' style='position:absolute;top:56px;left:12px;"
        "z-index:10;max-width:360px;max-height:calc(100vh - 200px);overflow:auto;"
        "background:rgba(255,255,255,.94);border:1px solid #d1d5db;border-radius:8px;"
        "padding:10px 14px;font:13px/1.4 system-ui,sans-serif;color:#1f2937;"
        "box-shadow:0 1px 4px rgba(0,0,0,.12)'>"
        "<summary style='font-weight:600;font-size:14px;margin-bottom:4px;cursor:pointer'>"
        f"{e(explanation.query)}</summary>"
        f"<div>intent <b>{e(explanation.intent.value)}</b> &middot; pathway "
        f"<b>{e(explanation.pathway_selected.value)}</b> (exact {scores.exact:.2f}, energy "
        f"{scores.energy:.2f}, attention {scores.attention:.2f})</div>"
        f"<div>candidates {explanation.candidates_activated} activated &rarr; "
        f"{explanation.candidates_after_spread} after spread &rarr; "
        f"{explanation.candidates_final} returned &middot; {total_ms:.1f} ms</div>"
        + (f"<div style='color:#6b7280'>skipped: {skipped}</div>" if skipped else "")
        + f"<ol style='margin:6px 0 0;padding-left:22px'>{ranking}</ol></details>"
    )


def render_explanation_html(explanation: Explanation, subgraph: ExplainSubgraph | None = None,
                            *, theme: Literal["light", "dark", "auto"] = "light") -> str:
    """A standalone HTML page drawing one explained retrieval (the module docstring says what).

    It backs ``engrava-graph explain QUERY --html FILE`` and ``POST /v1/explain?format=html``.

    Args:
        explanation: ``store.explain(query, level="debug")`` (or ``"summary"``).
        subgraph: from :func:`~engrava_graph.retrieval.subgraph.load_subgraph` on the same store.
        theme: the page's colour theme.

    Returns:
        The HTML document (about 4.5 MB: the viewer's JavaScript is inlined, no network needed).

    Raises:
        MissingExtraError: the ``viz`` extra (neo4j-viz) is not installed.
    """
    graph = explanation_graph(explanation, subgraph)
    from neo4j_viz import Renderer

    page = graph.render(renderer=Renderer.CANVAS, height="100vh", theme=theme,
                        on_dangling="error").data
    title = html.escape(f"engrava-graph explain: {explanation.query}")
    page = page.replace("<title>neo4j-viz</title>", f"<title>{title}</title>", 1)
    head, body_end, tail = page.rpartition("</body>")
    return f"{head}{_summary_panel(explanation)}\n{body_end}{tail}" if body_end else page
