"""The store's listing reads: thoughts by filter (keyset pages), their count, the newest ones,
and the namespace's cycle high-water mark."""

from __future__ import annotations

from typing import Any

from engrava_graph.graph.mapping import thought_from_properties
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import ThoughtType
from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.model.records import ThoughtRecord
from engrava_graph.model.thought_filter import ThoughtFilter
from engrava_graph.store._base import StoreBase

Q = {
    name: cypher(name)
    for name in ("thoughts/count", "thoughts/list", "thoughts/max_cycle", "thoughts/recent")
}


class ListingMixin(StoreBase):
    """Listing reads of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    def _list_params(self, where: ThoughtFilter) -> dict[str, Any]:
        """The parameters of ``cypher/thoughts/_filter`` for ``where`` in this namespace, now."""
        return {**where.cypher_params(), "namespace": self.namespace, "now": self._clock()}

    async def list_thoughts(
        self,
        where: ThoughtFilter | None = None,
        *,
        after_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
        **criteria: Any,
    ) -> list[ThoughtRecord]:
        """Thoughts matching ``where``, ordered by ``thought_id``.

        Args:
            where: the filter (default: every thought that has not expired).
            after_id: a keyset cursor: the last id of the previous page.
            limit, offset: the page.
            **criteria: :class:`ThoughtFilter` fields as keywords (``thought_type=...``,
                ``include_expired=True``, ...), applied over ``where``.

        Archived thoughts are listed (listing is not ranked retrieval); expired ones
        are not unless ``include_expired``.

        Raises:
            ValidationFailedError: ``limit`` outside 1..10000 or a negative offset.
            TypeError: a keyword that is not a :class:`ThoughtFilter` field.
        """
        if not 1 <= limit <= 10_000 or offset < 0:
            raise ValidationFailedError("limit must be 1..10000 and offset >= 0")
        params = self._list_params((where or ThoughtFilter()).with_criteria(**criteria))
        rows = await self.executor.read(
            Q["thoughts/list"], after_id=after_id, offset=offset, limit=limit, **params
        )
        return [thought_from_properties(r["thought"]) for r in rows]

    async def count_thoughts(self, where: ThoughtFilter | None = None, **criteria: Any) -> int:
        """How many thoughts ``list_thoughts`` would return with the same filter (no paging);
        ``where`` and ``criteria`` as there.

        Raises:
            TypeError: a keyword that is not a :class:`ThoughtFilter` field.
        """
        params = self._list_params((where or ThoughtFilter()).with_criteria(**criteria))
        rows = await self.executor.read(Q["thoughts/count"], **params)
        return int(rows[0]["n"])

    async def recent_thoughts(
        self, limit: int = 20, *, thought_type: ThoughtType | str | None = None
    ) -> list[ThoughtRecord]:
        """The namespace's newest thoughts that have not expired (archived ones included),
        newest (``created_at``) first, ties by ``thought_id``; only ``thought_type`` ones when
        given.

        Raises:
            ValidationFailedError: ``limit`` outside 1..10000.
            ValueError: ``thought_type`` names no :class:`ThoughtType`.
        """
        if not 1 <= limit <= 10_000:
            raise ValidationFailedError("limit must be 1..10000")
        rows = await self.executor.read(
            Q["thoughts/recent"],
            namespace=self.namespace,
            now=self._clock(),
            thought_type=None if thought_type is None else ThoughtType(thought_type).value,
            limit=limit,
        )
        return [thought_from_properties(r["thought"]) for r in rows]

    async def max_cycle(self) -> int:
        """The namespace's cycle high-water mark: max over thoughts' ``updated_cycle`` and edges'
        ``created_cycle``; 0 when empty. Resume a counter at ``max_cycle() + 1``."""
        rows = await self.executor.read(Q["thoughts/max_cycle"], namespace=self.namespace)
        return int(rows[0]["max_cycle"])
