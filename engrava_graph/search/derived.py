"""A thought's node properties: its record's, and those derived from its text for lookups."""

from __future__ import annotations

from typing import Any

from engrava_graph.graph.mapping import record_properties
from engrava_graph.model.records import ThoughtRecord, content_hash
from engrava_graph.search.bm25 import keyword_properties


def thought_properties(thought: ThoughtRecord) -> dict[str, Any]:
    """The property map a thought is stored as: its record's
    (:func:`~engrava_graph.graph.mapping.record_properties`, ``None`` kept as null), and what
    is derived from its text: ``content_hash`` (deduplication looks it up) and the keyword
    arm's ``keyword_terms`` and ``keyword_length``
    (:func:`~engrava_graph.search.bm25.keyword_properties`). Every write and update of a
    thought stores these, so they never lag its text (an edit by hand in Neo4j Browser is
    detected on read, see ``search/_keyword_fields``)."""
    return {
        **record_properties(thought),
        "content_hash": content_hash(thought.content),
        **keyword_properties(thought.essence, thought.content),
    }
