"""Which modules the Python API reference (``make docs-api``, pdoc) documents.

The package's ``__all__`` names the public records and the store, so pdoc would not descend into
the subpackages on its own; the reference lists them explicitly: the package and every public
top-level module and subpackage (pdoc documents a subpackage's own submodules).
"""

from __future__ import annotations

import pkgutil

import engrava_graph


def modules() -> list[str]:
    """``["engrava_graph", "engrava_graph.client", ...]``: the package, then its public
    top-level modules and subpackages, sorted (names starting with ``_`` are private)."""
    children = sorted(
        f"engrava_graph.{m.name}"
        for m in pkgutil.iter_modules(engrava_graph.__path__)
        if not m.name.startswith("_")
    )
    return ["engrava_graph", *children]
