"""Visual explain end to end: a real retrieval, its subgraph from Neo4j, the HTML page rendered by
headless Chromium (DOM and screenshot), and the ``explain`` command."""

from __future__ import annotations

import asyncio
import os
import re
import sys

import pytest
from PIL import Image

from engrava_graph.retrieval.subgraph import load_subgraph
from engrava_graph.retrieval.visual import (
    CAUSAL_EDGE_COLOUR,
    REACHED_BY_COLOURS,
    render_explanation_html,
)
from tests.explore_data import NOW, QUERY, load_incident
from tests.headless import render_graph_page

_DRAWN = re.compile(r"A graph visualization with (\d+) nodes and (\d+) relationships")


def _pixels_near(image: Image.Image, hex_colour: str, tolerance: int = 24) -> int:
    target = tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return sum(
        count
        for count, rgb in image.getcolors(image.width * image.height)
        if all(abs(a - b) <= tolerance for a, b in zip(rgb, target, strict=True))
    )


@pytest.fixture
async def incident(store):
    await load_incident(store)
    return store


async def test_subgraph_holds_the_edges_and_shared_tags_among_candidates(incident):
    explanation = await incident.explain(QUERY, level="debug", now=NOW)
    subgraph = await load_subgraph(incident, explanation)
    ids = {c.thought_id for c in explanation.candidates}
    assert {"deploy", "timeout", "migration"} <= ids
    assert {"e-cause-1", "e-cause-2"} <= {e.edge_id for e in subgraph.edges}
    assert all(e.from_thought_id in ids and e.to_thought_id in ids for e in subgraph.edges)
    billing = next(s for s in subgraph.shared if (s.label, s.name) == ("Tag", "billing"))
    assert len(billing.thought_ids) >= 2 and set(billing.thought_ids) <= ids


async def test_html_explain_renders_a_graph_in_headless_chromium(incident, tmp_path):
    explanation = await incident.explain(QUERY, level="debug", now=NOW)
    chain = {link.edge_id for r in explanation.results for link in r.causal_links}
    assert "e-cause-1" in chain, "a causal query walks the chain"
    subgraph = await load_subgraph(incident, explanation)
    page = tmp_path / "explain.html"
    page.write_text(render_explanation_html(explanation, subgraph), encoding="utf-8")

    png = tmp_path / "explain.png"
    dom = await render_graph_page(page, png)
    drawn = _DRAWN.search(dom)
    assert drawn, "the graph container stayed empty"
    nodes, relationships = map(int, drawn.groups())
    assert nodes == 1 + len(explanation.candidates) + len(subgraph.shared)
    assert relationships >= len(subgraph.edges) + 2
    assert "engrava-explain-summary" in dom and QUERY in dom

    image = Image.open(png).convert("RGB")
    assert image.size == (1200, 900)
    assert _pixels_near(image, REACHED_BY_COLOURS["activation"]) > 500, "no activated nodes drawn"
    assert _pixels_near(image, CAUSAL_EDGE_COLOUR) > 50, "no causal chain drawn"


async def test_explain_command_prints_the_table_and_writes_the_page(incident, tmp_path):
    page = tmp_path / "cli.html"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "from engrava_graph.cli import app; app()",
        "explain",
        QUERY,
        "--namespace",
        incident.namespace,
        "--now",
        NOW,
        "--html",
        str(page),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "160"},
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    text = out.decode()
    assert "intent causal" in text and "The Friday deploy of billing failed" in text
    assert page.stat().st_size > 100_000 and "engrava-explain-summary" in page.read_text()


async def test_explain_command_fails_clearly_on_a_missing_namespace(incident):
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "from engrava_graph.cli import app; app()",
        "explain",
        QUERY,
        "--namespace",
        f"{incident.namespace}-none",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await process.communicate()
    assert process.returncode == 2
    assert "does not exist" in err.decode()
