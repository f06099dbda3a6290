"""format_for_prompt: the text a model reads for retrieved memories."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engrava_graph.integrations.prompt import format_for_prompt
from engrava_graph.retrieval.results import CausalLink, RetrievedMemory


def _memory(thought_id: str, text: str, confidence: float, **fields: object) -> RetrievedMemory:
    return RetrievedMemory(
        thought_id=thought_id,
        text=text,
        confidence=confidence,
        pathway="attention",
        thought_type="OBSERVATION",
        metadata={},
        created_at=datetime(2026, 11, 30, 9, 0, tzinfo=UTC),
        last_accessed_at=None,
        **fields,
    )


def test_essence_when_confidence_and_causal_chain() -> None:
    link = CausalLink(
        edge_id="e1",
        edge_type="CAUSED_BY",
        from_thought_id="deploy",
        to_thought_id="pr",
        confidence=0.9,
        hops=1,
        direction="cause",
    )
    deploy = _memory(
        "deploy",
        "The deploy failed",
        0.82,
        causal_links=[link],
        valid_from=datetime(2026, 11, 24, 15, 0, tzinfo=UTC),
    )
    pr = _memory("pr", "Config PR removed DATABASE_URL", 0.5)
    assert format_for_prompt([deploy, pr]) == (
        "Relevant memories (most relevant first):\n"
        "1. [2026-11-24 15:00 UTC · confidence 0.82] The deploy failed\n"
        "   because: Config PR removed DATABASE_URL -> The deploy failed "
        "(link confidence 0.90)\n"
        "2. [2026-11-30 09:00 UTC · confidence 0.50] Config PR removed DATABASE_URL"
    )


def test_leads_to_unknown_thought_and_limits() -> None:
    link = CausalLink(
        edge_id="e1",
        edge_type="LEADS_TO",
        from_thought_id="a",
        to_thought_id="elsewhere",
        confidence=0.5,
        hops=1,
        direction="effect",
    )
    memories = [_memory("a", "A happened", 0.9, causal_links=[link]), _memory("b", "B", 0.1)]
    text = format_for_prompt(memories, max_items=1, texts={"elsewhere": "C followed"})
    assert text.splitlines()[1:] == [
        "1. [2026-11-30 09:00 UTC · confidence 0.90] A happened",
        "   because: A happened -> C followed (link confidence 0.50)",
    ]
    assert format_for_prompt([]) == "No relevant memories."
    with pytest.raises(ValueError, match="max_items"):
        format_for_prompt(memories, max_items=0)
