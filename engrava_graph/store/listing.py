"""The store's listing reads: thoughts by filter (keyset pages), their count, the newest ones,
and the namespace's cycle high-water mark."""

from __future__ import annotations

from typing import Any

from engrava_graph.graph.mapping import thought_from_properties
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import ThoughtType
from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.records import ThoughtRecord
from engrava_graph.model.temporal import ValidTimeFilter
from engrava_graph.store._base import StoreBase

Q = {
    name: cypher(name)
    for name in ("thoughts/count", "thoughts/list", "thoughts/max_cycle", "thoughts/recent")
}


class ListingMixin(StoreBase):
    """Listing reads of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    def _list_params(
        self,
        *,
        priority: str | None,
        lifecycle_status: str | None,
        thought_type: str | None,
        min_cycle: int | None,
        max_cycle: int | None,
        visibility: str | None,
        exclude_visibility: str | None,
        include_expired: bool,
        include_archived: bool,
        filters: MetadataFilter | None,
        valid_time: ValidTimeFilter | None,
    ) -> dict[str, Any]:
        plain = {
            "priority": priority,
            "lifecycle_status": lifecycle_status,
            "thought_type": thought_type,
            "visibility": visibility,
            "exclude_visibility": exclude_visibility,
        }
        params: dict[str, Any] = {
            k: (None if v is None else str(getattr(v, "value", v))) for k, v in plain.items()
        }
        params.update(
            namespace=self.namespace,
            min_cycle=min_cycle,
            max_cycle=max_cycle,
            include_expired=include_expired,
            include_archived=include_archived,
            now=self._clock(),
            meta_filters=(filters or MetadataFilter()).to_params(),
            vt_kind=None,
            vt_start=None,
            vt_end=None,
        )
        if valid_time is not None:
            params.update(valid_time.cypher_params())
        return params

    async def list_thoughts(
        self,
        *,
        priority: str | None = None,
        lifecycle_status: str | None = None,
        thought_type: str | None = None,
        min_cycle: int | None = None,
        max_cycle: int | None = None,
        visibility: str | None = None,
        exclude_visibility: str | None = None,
        include_expired: bool = False,
        include_archived: bool = True,
        filters: MetadataFilter | None = None,
        valid_time: ValidTimeFilter | None = None,
        after_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[ThoughtRecord]:
        """Thoughts matching every given filter, ordered by ``thought_id``.

        Archived thoughts are listed (listing is not ranked retrieval); expired ones
        are not unless ``include_expired``. ``after_id`` is a keyset cursor: pass the last id of
        the previous page.

        Raises:
            ValidationFailedError: ``limit`` outside 1..10000 or a negative offset.
        """
        if not 1 <= limit <= 10_000 or offset < 0:
            raise ValidationFailedError("limit must be 1..10000 and offset >= 0")
        params = self._list_params(
            priority=priority,
            lifecycle_status=lifecycle_status,
            thought_type=thought_type,
            min_cycle=min_cycle,
            max_cycle=max_cycle,
            visibility=visibility,
            exclude_visibility=exclude_visibility,
            include_expired=include_expired,
            include_archived=include_archived,
            filters=filters,
            valid_time=valid_time,
        )
        rows = await self.executor.read(
            Q["thoughts/list"], after_id=after_id, offset=offset, limit=limit, **params
        )
        return [thought_from_properties(r["thought"]) for r in rows]

    async def count_thoughts(
        self,
        *,
        priority: str | None = None,
        lifecycle_status: str | None = None,
        thought_type: str | None = None,
        min_cycle: int | None = None,
        max_cycle: int | None = None,
        visibility: str | None = None,
        exclude_visibility: str | None = None,
        include_expired: bool = False,
        include_archived: bool = True,
        filters: MetadataFilter | None = None,
        valid_time: ValidTimeFilter | None = None,
    ) -> int:
        """How many thoughts ``list_thoughts`` would return with the same filters (no paging)."""
        params = self._list_params(
            priority=priority,
            lifecycle_status=lifecycle_status,
            thought_type=thought_type,
            min_cycle=min_cycle,
            max_cycle=max_cycle,
            visibility=visibility,
            exclude_visibility=exclude_visibility,
            include_expired=include_expired,
            include_archived=include_archived,
            filters=filters,
            valid_time=valid_time,
        )
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
