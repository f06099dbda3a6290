"""Optional extras: a missing one is a typed error naming it, and a one-line exit 2 in the CLI."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from engrava_graph import extras
from engrava_graph.cli import app
from engrava_graph.model.errors import MissingExtraError


@pytest.fixture
def demo_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(extras.EXTRAS, "demo", ("no_such_module_for_the_demo",))


def test_a_missing_extra_names_the_extra_and_the_install_line(demo_missing: None) -> None:
    with pytest.raises(MissingExtraError) as raised:
        extras.require("demo", "engrava-graph demo")
    message = str(raised.value)
    assert "'demo' extra" in message and 'pip install "engrava-graph[demo]"' in message
    assert "\n" not in message


def test_the_demo_without_its_extra_exits_2_with_one_line(demo_missing: None) -> None:
    result = CliRunner().invoke(app, ["demo", "--skip-peer"])
    assert result.exit_code == 2
    assert "engrava-graph[demo]" in result.output
    assert "Traceback" not in result.output


def test_installed_extras_pass() -> None:
    for extra in extras.EXTRAS:
        if not extras.missing_modules(extra):
            extras.require(extra, "test")
