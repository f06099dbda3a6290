"""The Neo4j Browser style and guide and the Bloom perspective: they parse, and they cover the
graph model (every thought type, every relationship type)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx
import pytest

from engrava_graph.browser_assets import (
    DEFAULT_PORT,
    GUIDE_FILE,
    STYLE_FILE,
    asset_server,
    browser_commands,
)
from engrava_graph.model.enums import EdgeType, NodeLabel, ThoughtType
from tests.browser_files import (
    PARAM_USE,
    bloom_perspective,
    grass_text,
    guide_cypher,
    guide_params,
    guide_slides,
    parse_grass,
)

EXPLORING_MD = Path(__file__).resolve().parents[2] / "docs" / "exploring.md"
OTHER_RELATIONSHIPS = ("MENTIONS", "TAGGED", "PRODUCED")
TYPE_LABELS = [t.label for t in ThoughtType]


def test_grass_parses_and_styles_every_label_and_relationship_type():
    rules = parse_grass(grass_text())
    for label in TYPE_LABELS + [n.value for n in NodeLabel]:
        assert f"node.{label}" in rules, label
    for rel in [t.value for t in EdgeType] + list(OTHER_RELATIONSHIPS):
        assert f"relationship.{rel}" in rules, rel
    colours = [rules[f"node.{label}"]["color"] for label in TYPE_LABELS]
    assert len(set(colours)) == len(colours), "each thought type has its own colour"
    assert all(re.fullmatch(r"#[0-9A-Fa-f]{6}", c) for c in colours)
    assert rules["node.Thought"]["caption"] == "{essence}"
    assert rules["relationship"]["caption"] == "<type>"
    assert rules["relationship.CAUSED_BY"]["caption"] == "CAUSED_BY {confidence}"
    for selector, rule in rules.items():  # Browser replaces <type> only as the whole caption
        caption = rule.get("caption", "")
        assert "<type>" not in caption or caption == "<type>", selector


@pytest.mark.parametrize(
    "broken",
    [
        "node { color: #fff }\n/* a comment */\nnode.Task { color: #000; }",
        "node.Task { caption: '{a}: {b}'; }",
        "node.Task { colour: #000; }",
        "node.Task.Extra:x { color: #000; }",
        "node { color: #fff; }\nnode { color: #000; }",
    ],
)
def test_grass_reader_rejects_what_browser_would_misread(broken):
    with pytest.raises(ValueError):
        parse_grass(broken)


def test_guide_has_the_exploration_slides_with_runnable_blocks():
    slides = guide_slides()
    titles = [s.title for s in slides]
    for wanted in ("neighbourhood", "causal chain", "Reflections", "dreaming changed"):
        assert any(wanted in t for t in titles), (wanted, titles)
    assert all(s.blocks for s in slides[:-1]), "every exploring slide runs something"
    assert browser_commands(DEFAULT_PORT)["style"] in [b for s in slides for b in s.blocks]


def test_guide_declares_every_parameter_its_cypher_uses():
    slides = guide_slides()
    params = guide_params(slides)
    used = {name for block in guide_cypher(slides) for name in PARAM_USE.findall(block)}
    assert "namespace" in used
    assert used <= params.keys(), used - params.keys()
    unscoped = [b for b in guide_cypher(slides) if "$namespace" not in b]
    assert len(unscoped) == 1 and "t.namespace AS namespace" in unscoped[0], unscoped


def test_exploring_md_shows_the_guides_own_param_blocks():
    """docs/exploring.md quotes the guide's ``:param`` blocks as the guide serves them (it named
    values the guide does not have), and names only parameters the guide sets."""
    text = EXPLORING_MD.read_text(encoding="utf-8")
    blocks = {b for s in guide_slides() for b in s.blocks if b.startswith(":param")}
    quoted = re.findall(r"`(:param \w+ => '[^']*')`", text)
    named = re.findall(r"`:param (\w+)`", text)
    assert quoted and named
    assert set(quoted) <= blocks, set(quoted) - blocks
    assert set(named) <= guide_params(guide_slides()).keys()


def test_bloom_perspective_has_a_category_per_thought_type():
    perspective = bloom_perspective()
    by_label = {tuple(c["labels"]): c for c in perspective["categories"]}
    for label in TYPE_LABELS:
        category = by_label[(label,)]
        assert category["name"] == label
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", category["color"])
        sized = {
            r["conditionValue"]: r["size"]
            for r in category["styleRules"]
            if r["applySize"] and r["basedOn"] == "priority_string"
        }
        assert sized["P1"] > sized["P2"] > sized["P3"] > sized["P4"]
    ids = [c["id"] for c in perspective["categories"]]
    assert len(set(ids)) == len(ids)
    assert {r["name"] for r in perspective["relationshipTypes"]} >= {t.value for t in EdgeType}


def test_bloom_search_phrases_are_parameterised():
    templates = {t["text"]: t for t in bloom_perspective()["templates"]}
    assert set(templates) == {
        "causal chain of $thought in $namespace",
        "reflections about $text in $namespace",
        "what led to $thought in $namespace",
    }
    for text, template in templates.items():
        declared = {p["name"] for p in template["params"]}
        assert declared == {f"${n}" for n in PARAM_USE.findall(text)}
        assert {f"${n}" for n in PARAM_USE.findall(template["cypher"])} == declared
        assert "MATCH" in template["cypher"] and "RETURN" in template["cypher"]


def test_asset_server_serves_the_style_and_guide_cross_origin():
    server = asset_server(port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        for name, wanted in ((STYLE_FILE, "node.Thought"), (GUIDE_FILE, "<slide")):
            response = httpx.get(f"http://127.0.0.1:{port}/{name}", timeout=10)
            assert response.status_code == 200 and wanted in response.text
            assert response.headers["access-control-allow-origin"] == "*"
        assert (
            httpx.get(f"http://127.0.0.1:{port}/../../pyproject.toml", timeout=10).status_code
            == 404
        )
        preflight = httpx.options(
            f"http://127.0.0.1:{port}/{STYLE_FILE}",
            timeout=10,
            headers={
                "Origin": "http://localhost:7474",
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "x-requested-with",
            },
        )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == "*"
        assert "x-requested-with" in preflight.headers["access-control-allow-headers"]
        guide = httpx.get(f"http://127.0.0.1:{port}/{GUIDE_FILE}", timeout=10).text
        assert browser_commands(port)["style"] in guide
        assert browser_commands(port)["guide"] == f":guide http://localhost:{port}/{GUIDE_FILE}"
    finally:
        server.shutdown()
        server.server_close()
