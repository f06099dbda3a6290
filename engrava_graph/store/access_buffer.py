"""The bounded access buffer (spec 003, "Access tracking and usage telemetry").

Implicit accesses (a ``get_thought``, each final ``search_hybrid``/``recall`` result) are
coalesced per thought id in memory and written in one batched update by ``flush_access_buffer``,
at the start of ``consolidate`` and on ``close``. Best-effort telemetry: a crash before a flush,
an eviction at the cap, or a deletion in between can undercount.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

DEFAULT_CAPACITY = 10_000


class AccessBuffer:
    """Counts accesses per thought id, holding at most ``capacity`` distinct ids.

    At the cap the oldest-inserted id is evicted (its pending count is lost), as in the peer.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"access buffer capacity must be >= 1, got {capacity}")
        self._capacity = capacity
        self._counts: OrderedDict[str, int] = OrderedDict()

    def add(self, thought_ids: Iterable[str]) -> None:
        """Count one access for each id (repeats in one call count each time)."""
        for thought_id in thought_ids:
            self._bump(thought_id, 1)

    def drain(self) -> list[dict[str, object]]:
        """Take every pending count as ``[{"thought_id", "count"}]`` rows and empty the buffer."""
        rows: list[dict[str, object]] = [
            {"thought_id": k, "count": v} for k, v in self._counts.items()
        ]
        self._counts.clear()
        return rows

    def restore(self, rows: Iterable[dict[str, object]]) -> None:
        """Put drained rows back after a failed flush (counts merge with newer accesses)."""
        for row in rows:
            self._bump(str(row["thought_id"]), int(row["count"]))  # type: ignore[call-overload]

    def _bump(self, thought_id: str, count: int) -> None:
        if thought_id not in self._counts and len(self._counts) >= self._capacity:
            self._counts.popitem(last=False)
        self._counts[thought_id] = self._counts.get(thought_id, 0) + count

    def __len__(self) -> int:
        return len(self._counts)
