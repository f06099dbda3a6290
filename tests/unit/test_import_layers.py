"""The library's parts (engrava_graph's subpackages and top-level modules) import each other in
no cycle, and none of them imports the server package ``api``.

Imports only for type checking (under ``if TYPE_CHECKING:``) are not dependencies at run time and
are left out; imports inside functions are counted.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import engrava_graph

PACKAGE = Path(engrava_graph.__file__).parent


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_modules(tree: ast.AST) -> list[str]:
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _part_of(path: Path) -> str | None:
    """``graph`` for engrava_graph/graph/x.py, ``core`` for engrava_graph/core.py; None for the
    package's own ``__init__``."""
    relative = path.relative_to(PACKAGE)
    if relative == Path("__init__.py"):
        return None
    return relative.parts[0].removesuffix(".py")


def _edges() -> dict[tuple[str, str], str]:
    """``{(importing part, imported part): one file where it happens}``."""
    edges: dict[tuple[str, str], str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _part_of(path)
        if source is None:
            continue
        for module in _imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
            names = module.split(".")
            if names[0] == "api":
                edges[(source, "api")] = str(path.relative_to(PACKAGE.parent))
            if names[0] != "engrava_graph" or len(names) < 2:
                continue
            target = names[1]
            is_part = (PACKAGE / target).is_dir() or (PACKAGE / f"{target}.py").is_file()
            if is_part and target != source:
                edges.setdefault((source, target), str(path.relative_to(PACKAGE.parent)))
    return edges


def _cycles(edges: dict[tuple[str, str], str]) -> list[list[str]]:
    """The strongly connected groups of more than one part (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(set(graph) | {b for _, b in edges}):
        if node not in index:
            connect(node)
    return groups


def test_the_library_parts_import_each_other_in_no_cycle() -> None:
    edges = _edges()
    problems = [
        f"{group}: "
        + "; ".join(
            f"{a} -> {b} ({where})"
            for (a, b), where in sorted(edges.items())
            if a in group and b in group
        )
        for group in _cycles(edges)
    ]
    assert not problems, "import cycles between parts of engrava_graph:\n" + "\n".join(problems)


def test_the_library_does_not_import_the_server_package() -> None:
    assert {a: where for (a, b), where in _edges().items() if b == "api"} == {}


def test_the_cycle_finder_sees_a_cycle() -> None:
    edges = {("a", "b"): "x", ("b", "c"): "y", ("c", "a"): "z", ("c", "d"): "w"}
    assert _cycles(edges) == [["a", "b", "c"]]
