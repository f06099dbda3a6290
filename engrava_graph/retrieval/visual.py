"""Visual explain: one retrieval drawn as an interactive graph (a standalone HTML page).

The page is rendered by Neo4j's ``neo4j-viz`` (NVL, the library behind Neo4j's own tools; the
JavaScript is inlined, so the file opens offline). What it shows:

* the query as a dark node, linked to every memory that Phase 3 activated (link caption: cosine);
* every candidate, coloured by how it entered the cycle (activation, spread, cause), sized by its
  Phase 9 confidence, captioned ``#rank essence`` when it was returned;
* the relationships among the candidates, ``TYPE weight``, and the Entity/Tag nodes two or more of
  them share: the paths spreading activation (Phase 4) could follow;
* the causal chain of Phase 6 in red, captioned ``TYPE confidence``;
* a panel, in plain words, with the kind of question, the search strategy, candidate counts,
  time, and the ranking; each memory in it opens on click (hover shows a one-line summary) to
  tell how it was found, its signals (similarity, time, causal, importance, use, activation,
  score, confidence) and, for one that was not returned, why.

Captions end at a whole word and every memory node is drawn at least :data:`MIN_RADIUS` pixels
wide, so its caption stays legible; the legend says what colours mean without internal terms.
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

MIN_RADIUS, MAX_RADIUS = 24.0, 48.0
"""Node radius in pixels for confidence 0 and 1 (linear in between); 24 keeps a caption legible."""
QUERY_RADIUS, SHARED_RADIUS = 40.0, 20.0
CAPTION_CHARS = 60
"""Texts in the panel longer than this many characters are cut at a word, with an ellipsis."""
CAPTION_LINE_CHARS = 10
"""A node caption is at most two lines of whole words of this many characters: the viewer
(NVL) fits two lines into a node and breaks words mid-way when they do not fit."""

REACHED_BY_WORDS = {
    "activation": "found by meaning or keywords",
    "spread": "reached through a link",
    "cause": "reached as a cause or effect",
}
"""How a memory entered the retrieval, in plain words (legend and panel)."""
PATHWAY_WORDS = {
    "exact": "exact (a narrow, precise search)",
    "energy": "energy (a broad search, more candidates)",
    "attention": "attention (one search per part of the question)",
}
"""The search strategies (retrieval pathways), in plain words."""
SIGNAL_WORDS = {
    "similarity": "similarity to the question",
    "temporal": "fits the time asked",
    "causal": "on a cause-effect chain",
    "importance": "importance",
    "access_frequency": "how often it is used",
    "activation": "activation",
    "composite": "score",
    "confidence": "confidence",
}
"""The signals of a candidate, in plain words, in the order the panel lists them."""

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
    """``text`` up to ``limit`` characters, cut after a whole word (a single longer word is cut
    inside it), with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head.strip():
        head = head.rsplit(" ", 1)[0]
    return head.rstrip() + "\u2026"


def _node_caption(text: str) -> str:
    """``text`` as at most two lines of whole words (:data:`CAPTION_LINE_CHARS` each), an
    ellipsis after the last word that fits; a first word too long for a line is cut."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(f"{lines[-1]} {word}") <= CAPTION_LINE_CHARS:
            lines[-1] = f"{lines[-1]} {word}"
        elif len(lines) < 2 and len(word) <= CAPTION_LINE_CHARS:
            lines.append(word)
        else:
            if lines:
                lines[-1] += "\u2026"
            else:
                lines.append(word[: CAPTION_LINE_CHARS - 1] + "\u2026")
            break
    return " ".join(lines)


def _radius(confidence: float) -> float:
    return MIN_RADIUS + (MAX_RADIUS - MIN_RADIUS) * min(max(confidence, 0.0), 1.0)


def _trace_details(trace: CandidateTrace) -> dict[str, Any]:
    return trace.model_dump(exclude={"thought_id", "text", "reached_by"}, exclude_none=True)


def _rows(explanation: Explanation) -> list[_Row]:
    """Every memory to draw with its rank (1-based) when it was returned."""
    ranks = {r.thought_id: i for i, r in enumerate(explanation.results, start=1)}
    if explanation.candidates is not None:
        return [
            _Row(
                c.thought_id,
                c.text,
                c.reached_by,
                c.confidence,
                ranks.get(c.thought_id),
                _trace_details(c),
            )
            for c in explanation.candidates
        ]
    return [
        _Row(
            r.thought_id,
            r.text,
            r.reached_by,
            r.confidence,
            ranks[r.thought_id],
            {"thought_type": r.thought_type},
        )
        for r in explanation.results
    ]


def _memory_node(row: _Row) -> Node:
    from neo4j_viz import Node

    caption = _node_caption(row.text if row.rank is None else f"#{row.rank} {row.text}")
    properties = {
        "thought_id": row.thought_id,
        "essence": row.text,
        "reached_by": row.reached_by,
        "rank": row.rank if row.rank is not None else "not returned",
        **row.details,
    }
    return Node(
        id=_node_id(row.thought_id),
        caption=caption,
        size=_radius(row.confidence),
        color=REACHED_BY_COLOURS.get(row.reached_by, EDGE_COLOUR),
        properties=properties,
    )


def _causal_links(explanation: Explanation) -> dict[str, CausalLink]:
    """The Phase 6 links through the returned memories, one per edge id."""
    return {link.edge_id: link for r in explanation.results for link in r.causal_links}


def _typed_edges(
    explanation: Explanation, subgraph: ExplainSubgraph
) -> list[tuple[SubgraphEdge, bool]]:
    """Relationships to draw, each with whether it is on a causal chain."""
    causal = _causal_links(explanation)
    edges = {e.edge_id: e for e in subgraph.edges}
    for edge_id, link in causal.items():
        edges.setdefault(
            edge_id,
            SubgraphEdge(
                edge_id=edge_id,
                edge_type=link.edge_type,
                from_thought_id=link.from_thought_id,
                to_thought_id=link.to_thought_id,
                confidence=link.confidence,
            ),
        )
    return [(e, e.edge_id in causal) for e in edges.values()]


def _edge_relationship(edge: SubgraphEdge, on_chain: bool) -> Relationship:
    from neo4j_viz import Relationship

    value = edge.confidence if on_chain and edge.confidence is not None else edge.weight
    caption = edge.edge_type if value is None else f"{edge.edge_type} {value:.2f}"
    width = 5.0 if on_chain else 1.0 + 3.0 * (edge.weight if edge.weight is not None else 0.5)
    return Relationship(
        id=f"r:{edge.edge_id}",
        source=_node_id(edge.from_thought_id),
        target=_node_id(edge.to_thought_id),
        caption=caption,
        width=width,
        color=CAUSAL_EDGE_COLOUR if on_chain else EDGE_COLOUR,
        properties={
            "edge_id": edge.edge_id,
            "relationship": edge.edge_type,
            "weight": edge.weight,
            "confidence": edge.confidence,
            "causal_chain": on_chain,
        },
    )


def explanation_graph(
    explanation: Explanation, subgraph: ExplainSubgraph | None = None
) -> VisualizationGraph:
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
    nodes = [
        Node(
            id=_QUERY_ID,
            caption=_node_caption(explanation.query),
            size=QUERY_RADIUS,
            color=QUERY_COLOUR,
            properties={
                "query": explanation.query,
                "intent": explanation.intent.value,
                "pathway": explanation.pathway_selected.value,
            },
        )
    ]
    nodes += [_memory_node(row) for row in rows]
    drawn = {n.id for n in nodes}
    relationships = [
        Relationship(
            id=f"a:{row.thought_id}",
            source=_QUERY_ID,
            target=_node_id(row.thought_id),
            caption=(
                f"{row.details['similarity']:.2f}" if "similarity" in row.details else "activated"
            ),
            color=ACTIVATION_EDGE_COLOUR,
            width=1.0,
            properties={
                "relationship": "ACTIVATED",
                **{k: row.details[k] for k in ("similarity", "activation") if k in row.details},
            },
        )
        for row in rows
        if row.reached_by == "activation"
    ]
    relationships += [
        _edge_relationship(edge, on_chain)
        for edge, on_chain in _typed_edges(explanation, subgraph)
        if _node_id(edge.from_thought_id) in drawn and _node_id(edge.to_thought_id) in drawn
    ]
    for shared in subgraph.shared:
        members = [t for t in shared.thought_ids if _node_id(t) in drawn]
        if len(members) < 2:
            continue
        hub = _shared_id(shared.label, shared.name)
        nodes.append(
            Node(
                id=hub,
                caption=shared.name,
                size=SHARED_RADIUS,
                color=SHARED_COLOURS[shared.label],
                properties={"label": shared.label, "name": shared.name},
            )
        )
        relationships += [
            Relationship(
                id=f"{hub}<-{t}",
                source=_node_id(t),
                target=hub,
                color=EDGE_COLOUR,
                width=0.5,
                properties={"relationship": _SHARED_REL_TYPE[shared.label]},
            )
            for t in members
        ]
    graph = VisualizationGraph(nodes=nodes, relationships=relationships)
    graph.set_legend(
        nodes={
            **{REACHED_BY_WORDS[k]: v for k, v in REACHED_BY_COLOURS.items()},
            "your question": QUERY_COLOUR,
            "a name they share": SHARED_COLOURS["Entity"],
            "a tag they share": SHARED_COLOURS["Tag"],
        },
        relationships={
            "cause and effect (link confidence)": CAUSAL_EDGE_COLOUR,
            "matches the question (similarity)": ACTIVATION_EDGE_COLOUR,
            "stored link (weight)": EDGE_COLOUR,
        },
    )
    return graph


def _memory_details(row: _Row) -> str:
    """One memory of the panel: a line (hover: how it was found) that opens on click to its
    signals and, when it was not returned, why."""
    e = html.escape
    how = REACHED_BY_WORDS.get(row.reached_by, row.reached_by)
    hops = row.details.get("hops")
    if hops and row.reached_by != "activation":
        how += f" ({hops} link{'s' if hops != 1 else ''} away)"
    rank = f"#{row.rank} " if row.rank is not None else ""
    signals = "".join(
        f"<tr><td>{e(words)}</td><td style='text-align:right'>{row.details[name]:.2f}</td></tr>"
        for name, words in SIGNAL_WORDS.items()
        if isinstance(row.details.get(name), float)
    )
    dropped = row.details.get("dropped_in")
    why = (
        f"<div style='color:#b91c1c'>not returned ({e(str(dropped))}): "
        f"{e(str(row.details.get('reason') or ''))}</div>"
        if dropped
        else ""
    )
    return (
        f"<li><details title='{e(how)}, confidence {row.confidence:.2f}'>"
        f"<summary style='cursor:pointer'>{rank}{e(_cut(row.text))} "
        f"<span style='color:#6b7280'>{row.confidence:.2f}</span></summary>"
        f"<div style='margin:2px 0 6px 4px'><div>{e(row.text)}</div>"
        f"<div style='color:#374151'>{e(how)}</div>{why}"
        f"<table style='font-size:12px;color:#374151'>{signals}</table></div>"
        f"</details></li>"
    )


def _summary_panel(explanation: Explanation) -> str:
    """The HTML panel (every value escaped) with the run's summary in plain words and every drawn
    memory, returned ones first, each opening to its details."""
    e = html.escape
    scores = explanation.pathway_scores
    total_ms = sum(explanation.phase_timings.values())
    rows = sorted(_rows(explanation), key=lambda r: (r.rank is None, r.rank or 0, -r.confidence))
    returned = "".join(_memory_details(r) for r in rows if r.rank is not None)
    others = "".join(_memory_details(r) for r in rows if r.rank is None)
    skipped = "; ".join(f"{e(k)}: {e(v)}" for k, v in explanation.skipped_phases.items())
    pathway = explanation.pathway_selected.value
    return (
        "<details open id='engrava-explain-summary' style='position:absolute;top:56px;left:12px;"
        "z-index:10;max-width:380px;max-height:calc(100vh - 200px);overflow:auto;"
        "background:rgba(255,255,255,.94);border:1px solid #d1d5db;border-radius:8px;"
        "padding:10px 14px;font:13px/1.4 system-ui,sans-serif;color:#1f2937;"
        "box-shadow:0 1px 4px rgba(0,0,0,.12)'>"
        "<summary style='font-weight:600;font-size:14px;margin-bottom:4px;cursor:pointer'>"
        f"{e(explanation.query)}</summary>"
        f"<div>kind of question: <b>{e(explanation.intent.value)}</b></div>"
        f"<div>search strategy: <b>{e(PATHWAY_WORDS.get(pathway, pathway))}</b> "
        f"<span style='color:#6b7280'>(fit: exact {scores.exact:.2f}, energy "
        f"{scores.energy:.2f}, attention {scores.attention:.2f})</span></div>"
        f"<div>{explanation.candidates_activated} memories found &rarr; "
        f"{explanation.candidates_after_spread} after following links &rarr; "
        f"{explanation.candidates_final} returned &middot; {total_ms:.0f} ms</div>"
        + (f"<div style='color:#6b7280'>skipped steps: {skipped}</div>" if skipped else "")
        + "<div style='margin-top:6px;color:#6b7280'>Click a memory for its details.</div>"
        + f"<ol style='margin:4px 0 0;padding-left:22px'>"
        f"{returned or '<li>(nothing returned)</li>'}</ol>"
        + (
            f"<div style='margin-top:6px;font-weight:600'>Considered, not returned</div>"
            f"<ul style='margin:2px 0 0;padding-left:22px'>{others}</ul>"
            if others
            else ""
        )
        + "</details>"
    )


def render_explanation_html(
    explanation: Explanation,
    subgraph: ExplainSubgraph | None = None,
    *,
    theme: Literal["light", "dark", "auto"] = "light",
) -> str:
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

    page = graph.render(
        renderer=Renderer.CANVAS, height="100vh", theme=theme, on_dangling="error"
    ).data
    title = html.escape(f"engrava-graph explain: {explanation.query}")
    page = page.replace("<title>neo4j-viz</title>", f"<title>{title}</title>", 1)
    head, body_end, tail = page.rpartition("</body>")
    return f"{head}{_summary_panel(explanation)}\n{body_end}{tail}" if body_end else page
