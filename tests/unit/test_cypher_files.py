"""The files under ``cypher/``: each header declares exactly the parameters its body uses, each
file is used by the project's code, and the commands the registry's docstring names exist."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
import typer

from engrava_graph.cli import app
from engrava_graph.cli.cypher import all_names
from engrava_graph.graph import registry
from engrava_graph.graph.headers import declared_params, header, used_params

REPO = Path(__file__).resolve().parents[2]
CODE_DIRS = ("engrava_graph", "api", "tests", "benchmarks")
OVERLAY = "cypher25"


@pytest.mark.parametrize("name", all_names())
def test_the_header_declares_exactly_the_parameters_the_body_uses(name: str) -> None:
    assert header(name).lines, f"{name}.cypher has no header comment"
    declared, used = declared_params(name), used_params(name)
    assert declared == used, (
        f"{name}: declared but unused {sorted(declared - used)}, "
        f"used but undeclared {sorted(used - declared)}"
    )


def _python_sources() -> list[str]:
    return [p.read_text(encoding="utf-8") for d in CODE_DIRS for p in (REPO / d).rglob("*.py")]


def _cypher_sources() -> dict[str, str]:
    root = registry.cypher_root()
    return {name: (root / f"{name}.cypher").read_text(encoding="utf-8") for name in all_names()}


def _is_used(name: str, python: list[str], cypher_files: dict[str, str]) -> bool:
    """A fragment is included by another file; a statement is named in Python, literally
    (``"thoughts/get"``) or as ``f"schema/{name}"`` with ``"thought_key"`` in the same file; a
    ``cypher25/`` file is used when the file it replaces is."""
    if name.startswith(f"{OVERLAY}/"):
        return _is_used(name.removeprefix(f"{OVERLAY}/"), python, cypher_files)
    directory, stem = name.rsplit("/", 1)
    if stem.startswith("_"):
        include = re.compile(r"\{\{>\s*" + re.escape(name) + r"\s*\}\}")
        return any(include.search(text) for other, text in cypher_files.items() if other != name)
    return any(
        f'"{name}"' in text or (f'f"{directory}/{{' in text and f'"{stem}"' in text)
        for text in python
    )


def test_every_cypher_file_is_used_by_code() -> None:
    python, cypher_files = _python_sources(), _cypher_sources()
    unused = [name for name in all_names() if not _is_used(name, python, cypher_files)]
    assert not unused, f"no code uses these files (delete them): {unused}"


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    paths = set()
    for name, command in group.commands.items():
        paths.add((*prefix, name))
        if isinstance(command, click.Group):
            paths |= _command_paths(command, (*prefix, name))
    return paths


def test_the_commands_the_registry_names_exist() -> None:
    commands = _command_paths(typer.main.get_group(app))
    named = re.findall(
        r"engrava-graph ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)", registry.__doc__ or ""
    )
    assert named
    for words in named:
        parts = tuple(words.split())
        assert parts in commands or parts[:1] in commands, f"no command `engrava-graph {words}`"


@pytest.mark.parametrize("name", [n for n in all_names() if n.startswith(f"{OVERLAY}/")])
def test_a_cypher25_file_replaces_a_file_of_the_same_name(name: str) -> None:
    base = name.removeprefix(f"{OVERLAY}/")
    assert base in all_names(), f"{name} replaces nothing: no cypher/{base}.cypher"
    assert declared_params(name) == declared_params(base), f"{name} takes other parameters"


def test_a_statement_rendered_for_cypher25_takes_its_replacements_and_runs_as_cypher_25() -> None:
    plain = registry.cypher("retrieval/rank")
    current = registry.cypher("retrieval/rank", registry.CypherDialect.CYPHER25)
    assert "vector_distance" not in plain.text and "CYPHER 25" not in plain.text
    assert "vector_distance" in current.text
    code = [ln for ln in current.text.splitlines() if not ln.lstrip().startswith("//")]
    assert code[0] == "CYPHER 25"
    already = registry.cypher("retrieval/activate_filtered", registry.CypherDialect.CYPHER25)
    assert already.text.count("CYPHER 25") == 1
