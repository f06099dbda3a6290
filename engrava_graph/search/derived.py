"""A thought's node properties: its record's, and those derived from its text for lookups."""

from __future__ import annotations

from typing import Any

from engrava_graph.graph.mapping import record_properties
from engrava_graph.model.records import ThoughtRecord, content_hash


def thought_properties(thought: ThoughtRecord) -> dict[str, Any]:
    """The property map a thought is stored as: its record's
    (:func:`~engrava_graph.graph.mapping.record_properties`, ``None`` kept as null), and what
    is derived from its text, ``content_hash`` (deduplication looks it up). Every write and
    update of a thought stores these, so they never lag its text."""
    return {**record_properties(thought), "content_hash": content_hash(thought.content)}
