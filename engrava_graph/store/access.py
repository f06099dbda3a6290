"""The store's access-tracking area: implicit accesses buffered, explicit ones written now."""

from __future__ import annotations

import contextvars
from collections.abc import Sequence

from engrava_graph.graph.registry import cypher
from engrava_graph.model.errors import ThoughtNotFoundError
from engrava_graph.store._base import StoreBase
from engrava_graph.store.modes import writes

Q = {name: cypher(name) for name in ("thoughts/record_access",)}

_suppress_access: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "engrava_graph_suppress_access", default=False
)


class AccessMixin(StoreBase):
    """Access telemetry of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    def _track(self, thought_ids: Sequence[str]) -> None:
        if self.access_tracking_enabled and not _suppress_access.get():
            self._access.add(thought_ids)

    def suppress_access_tracking(self) -> contextvars.Token[bool]:
        """Stop implicit access tracking in the current async context (maintenance, read-only
        views); undo with ``resume_access_tracking(token)``."""
        return _suppress_access.set(True)

    @staticmethod
    def resume_access_tracking(token: contextvars.Token[bool]) -> None:
        """Undo :meth:`suppress_access_tracking`."""
        _suppress_access.reset(token)

    @writes
    async def record_access(self, thought_id: str) -> None:
        """Count one access now (immediate write; not buffered).

        Raises:
            ThoughtNotFoundError: no such thought.
        """
        rows = await self.executor.write(
            Q["thoughts/record_access"],
            namespace=self.namespace,
            rows=[{"thought_id": thought_id, "count": 1}],
            now=self._clock(),
        )
        if not rows or not rows[0]["updated"]:
            raise ThoughtNotFoundError(thought_id)

    @writes
    async def flush_access_buffer(self) -> int:
        """Write the buffered accesses in one batched update.

        Returns:
            The number of distinct ids drained (not the total count).
        """
        rows = self._access.drain()
        if not rows:
            return 0
        try:
            await self.executor.write(
                Q["thoughts/record_access"], namespace=self.namespace, rows=rows, now=self._clock()
            )
        except Exception:
            self._access.restore(rows)
            raise
        return len(rows)
