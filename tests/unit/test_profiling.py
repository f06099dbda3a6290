"""Pure parts of the Cypher profile: the plan's db hits and the Browser ``:params`` literal."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from engrava_graph.cli import app
from engrava_graph.graph.profiling import browser_params, cypher_literal, plan_db_hits
from engrava_graph.model.enums import EdgeType


def test_db_hits_add_up_over_the_plan_tree() -> None:
    plan = {
        "dbHits": 3,
        "children": [{"dbHits": 4, "children": []}, {"dbHits": 0, "children": [{"dbHits": 5}]}],
    }
    assert plan_db_hits(plan) == 12
    assert plan_db_hits(None) == 0


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        (None, "null"),
        (True, "true"),
        (3, "3"),
        (0.25, "0.25"),
        ("it's a \\ test", "'it\\'s a \\\\ test'"),
        ([1, "a"], "[1, 'a']"),
        (EdgeType.CAUSED_BY, "'CAUSED_BY'"),
        (datetime(2024, 6, 2, tzinfo=UTC), "datetime('2024-06-02T00:00:00+00:00')"),
        ({"a b": [0.5]}, "{`a b`: [0.5]}"),
        (float("nan"), "toFloat('NaN')"),
    ],
)
def test_values_become_cypher_literals(value: object, literal: str) -> None:
    assert cypher_literal(value) == literal


def test_an_unknown_type_is_refused() -> None:
    with pytest.raises(TypeError):
        cypher_literal(object())


def test_browser_params_is_one_params_command() -> None:
    expected = ":params {`namespace`: 'n', `top_k`: 3}"
    assert browser_params({"namespace": "n", "top_k": 3}) == expected


def test_cypher_show_expands_fragments_and_keeps_the_header() -> None:
    result = CliRunner().invoke(app, ["cypher", "show", "thoughts/list"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("// ")
    assert "{{>" not in result.output
    assert "t.priority = $priority" in result.output  # from thoughts/_filter


def test_cypher_show_of_an_unknown_name_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["cypher", "show", "no/such"])
    assert result.exit_code == 2
