"""Where engrava-graph keeps its files on this machine (local Neo4j servers, ONNX exports)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def cache_dir(env: Mapping[str, str]) -> Path:
    """The project's cache directory for the environment ``env``: ``$ENGRAVA_GRAPH_HOME``, else
    ``${XDG_CACHE_HOME:-~/.cache}/engrava-graph``."""
    if env.get("ENGRAVA_GRAPH_HOME"):
        return Path(env["ENGRAVA_GRAPH_HOME"]).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "engrava-graph"
