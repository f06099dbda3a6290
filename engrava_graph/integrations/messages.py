"""What an ``add_messages`` call reports to a caller (the MCP tool and the CLI command)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engrava_graph.conversations import StoredMessage


def added_messages(stored: Sequence[StoredMessage]) -> dict[str, Any]:
    """``{"messages": N, "created": M, "thought_ids": [...]}``: how many messages were sent, how
    many were new (a re-send creates none), and their thoughts' ids in order."""
    return {
        "messages": len(stored),
        "created": sum(1 for m in stored if m.created),
        "thought_ids": [m.thought.thought_id for m in stored],
    }
