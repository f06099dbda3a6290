"""Small builders for test records."""

from __future__ import annotations

from typing import Any

from engrava_graph.model import EdgeRecord, EdgeType, ThoughtRecord, ThoughtType


def thought(essence: str, **fields: Any) -> ThoughtRecord:
    """An OBSERVATION with ``content == essence`` unless overridden."""
    data: dict[str, Any] = {
        "thought_type": ThoughtType.OBSERVATION,
        "essence": essence,
        "content": essence,
        "source": "test",
    }
    data.update(fields)
    return ThoughtRecord(**data)


def edge(
    a: ThoughtRecord | str,
    b: ThoughtRecord | str,
    edge_type: EdgeType = EdgeType.ASSOCIATED,
    **fields: Any,
) -> EdgeRecord:
    """An edge a -> b."""

    def tid(x: ThoughtRecord | str) -> str:
        return x if isinstance(x, str) else x.thought_id

    return EdgeRecord(from_thought_id=tid(a), to_thought_id=tid(b), edge_type=edge_type, **fields)
