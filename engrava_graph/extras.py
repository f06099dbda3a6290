"""Optional dependency groups (extras): what a feature needs beyond the library and the server.

``pip install "engrava-graph[demo]"`` etc.; ``pyproject.toml`` lists each extra's packages. A
feature calls :func:`require` before its first import of an optional package, so a missing extra
is one clear line (which extra, which install command), never an ``ImportError`` traceback.
"""

from __future__ import annotations

import importlib.util

from engrava_graph.model.errors import MissingExtraError

EXTRAS: dict[str, tuple[str, ...]] = {
    "peer": ("engrava", "aiosqlite"),
    "demo": ("matplotlib", "engrava", "aiosqlite"),
    "viz": ("neo4j_viz",),
    "docker": ("testcontainers", "docker"),
}
"""Extra name -> the top-level modules whose presence means it is installed."""


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported (empty when the extra is installed).

    Raises:
        KeyError: ``extra`` is not one of :data:`EXTRAS`.
    """
    return [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]


def require(extra: str, feature: str) -> None:
    """Check that ``extra`` is installed before ``feature`` imports it.

    Args:
        extra: a key of :data:`EXTRAS`, e.g. ``"demo"``.
        feature: what needs it, for the message, e.g. ``"engrava-graph demo"``.

    Raises:
        MissingExtraError: one of the extra's modules is missing; the message reads
            ``engrava-graph demo needs the 'demo' extra (matplotlib is not installed):
            pip install "engrava-graph[demo]"``.
    """
    missing = missing_modules(extra)
    if missing:
        raise MissingExtraError(
            f"{feature} needs the {extra!r} extra ({', '.join(missing)} not installed): "
            f'pip install "engrava-graph[{extra}]"'
        )
