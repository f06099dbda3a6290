"""The Python API reference builds from the docstrings (what `make docs-api` publishes): every
public module renders, and the store's methods appear with their docstrings."""

from __future__ import annotations

from pathlib import Path

import pytest

from engrava_graph.api_reference import modules

pdoc = pytest.importorskip("pdoc", reason="the `dev` extra (pdoc) is not installed")


def test_the_api_reference_renders_every_public_module(tmp_path: Path) -> None:
    pdoc.render.configure(docformat="google")
    pdoc.pdoc(*modules(), output_directory=tmp_path)
    pages = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")}
    for page in (
        "engrava_graph.html",
        "engrava_graph/store.html",
        "engrava_graph/retrieval/orchestrator.html",
        "engrava_graph/client.html",
        "engrava_graph/mcp.html",
        "engrava_graph/integrations/prompt.html",
    ):
        assert page in pages, f"{page} missing from the API reference"
    core = (tmp_path / "engrava_graph/store.html").read_text(encoding="utf-8")
    assert "Neo4jEngravaCore" in core and "for_namespace" in core
