"""Dreaming: consolidation of observations into reflections, and memory hygiene.

Run them through the store: ``Neo4jEngravaCore.consolidate``, ``run_hygiene`` and
``search_reflections_only``, or the ``engrava-graph dream`` command (:mod:`.cli`).
"""

from engrava_graph.dreaming.config import DreamingConfig, DreamingGates, HygienePolicy
from engrava_graph.dreaming.consolidate import DreamResult
from engrava_graph.dreaming.hygiene import HygieneResult

__all__ = ["DreamResult", "DreamingConfig", "DreamingGates", "HygienePolicy", "HygieneResult"]
