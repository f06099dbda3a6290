"""The store's listing reads: thoughts by filter (keyset pages), their count, the newest ones,
and the namespace's cycle high-water mark."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from engrava_graph.graph.executor import Records
from engrava_graph.graph.mapping import thought_from_properties
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import ThoughtType
from engrava_graph.model.errors import InvalidStoredRecordError, ValidationFailedError
from engrava_graph.model.records import ThoughtRecord
from engrava_graph.model.thought_filter import ThoughtFilter
from engrava_graph.store._base import StoreBase

Q = {
    name: cypher(name)
    for name in ("thoughts/count", "thoughts/list", "thoughts/max_cycle", "thoughts/recent")
}
log = logging.getLogger(__name__)
MAX_LIMIT = 10_000
"""Most thoughts one listing read returns."""


@dataclass(frozen=True)
class ThoughtListing:
    """One page of :meth:`ListingMixin.list_page` (or :meth:`ListingMixin.recent_page`).

    Attributes:
        thoughts: the page's thoughts, ordered by ``thought_id`` (by :meth:`recent_page`:
            newest first).
        invalid: the page's thoughts that, as stored in Neo4j, are not valid records (edited
            by hand, ``SET t.content = 42``), left out of ``thoughts``: each error names one
            and its invalid fields (repair it with ``update_thought``, or delete it).
        next_cursor: the ``after_id`` of the next page; None on the last page (and from
            :meth:`recent_page`).
    """

    thoughts: list[ThoughtRecord]
    invalid: list[InvalidStoredRecordError]
    next_cursor: str | None


def _sorted_out(
    rows: Records,
) -> tuple[list[ThoughtRecord], list[InvalidStoredRecordError]]:
    """The thoughts of listing ``rows`` that are valid records, and the errors naming those
    that, as stored in Neo4j, are not (each also logged as a warning)."""
    thoughts: list[ThoughtRecord] = []
    invalid: list[InvalidStoredRecordError] = []
    for row in rows:
        try:
            thoughts.append(thought_from_properties(row["thought"]))
        except InvalidStoredRecordError as error:
            log.warning("%s; left out of the listing", error)
            invalid.append(error)
    return thoughts, invalid


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
            InvalidStoredRecordError: a thought of the page was edited by hand in Neo4j into
                something no write produces (:meth:`list_page` lists the others and names it).
        """
        if not 1 <= limit <= MAX_LIMIT or offset < 0:
            raise ValidationFailedError("limit must be 1..10000 and offset >= 0")
        rows = await self._listed(where, criteria, after_id=after_id, offset=offset, limit=limit)
        return [thought_from_properties(r["thought"]) for r in rows]

    async def list_page(
        self,
        where: ThoughtFilter | None = None,
        *,
        after_id: str | None = None,
        limit: int = 50,
        **criteria: Any,
    ) -> ThoughtListing:
        """One page of :meth:`list_thoughts` (``GET /v1/thoughts`` reads it) that a thought
        edited by hand in Neo4j into something no write produces does not fail: it is left out
        of ``thoughts`` and named in ``invalid`` (and in a warning in the log), the others are
        listed. :meth:`list_thoughts` and :meth:`get_thought` raise for it instead.

        Args:
            where, criteria: the filter, as in :meth:`list_thoughts`.
            after_id: a keyset cursor: the previous page's ``next_cursor``.
            limit: the most thoughts of the page, valid or not (1..10000).

        Raises:
            ValidationFailedError: ``limit`` outside 1..10000.
            TypeError: a keyword that is not a :class:`ThoughtFilter` field.
        """
        if not 1 <= limit <= MAX_LIMIT:
            raise ValidationFailedError("limit must be 1..10000")
        rows = await self._listed(where, criteria, after_id=after_id, offset=0, limit=limit + 1)
        page = rows[:limit]
        thoughts, invalid = _sorted_out(page)
        last = page[-1]["thought"].get("thought_id") if len(rows) > limit else None
        return ThoughtListing(thoughts, invalid, None if last is None else str(last))

    async def _listed(
        self,
        where: ThoughtFilter | None,
        criteria: dict[str, Any],
        *,
        after_id: str | None,
        offset: int,
        limit: int,
    ) -> Records:
        """The ``thoughts/list`` rows of a listing, their properties as stored."""
        params = self._list_params((where or ThoughtFilter()).with_criteria(**criteria))
        return await self.executor.read(
            Q["thoughts/list"], after_id=after_id, offset=offset, limit=limit, **params
        )

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
            InvalidStoredRecordError: one of them was edited by hand in Neo4j into something
                no write produces (:meth:`recent_page` lists the others and names it).
        """
        rows = await self._recent(limit, thought_type)
        return [thought_from_properties(r["thought"]) for r in rows]

    async def recent_page(
        self, limit: int = 20, *, thought_type: ThoughtType | str | None = None
    ) -> ThoughtListing:
        """:meth:`recent_thoughts` (the CLI's ``list`` reads it) that a thought edited by hand in
        Neo4j into something no write produces does not fail: as in :meth:`list_page`, it is
        left out of ``thoughts`` and named in ``invalid``; ``limit`` counts it.

        Raises:
            ValidationFailedError: ``limit`` outside 1..10000.
            ValueError: ``thought_type`` names no :class:`ThoughtType`.
        """
        thoughts, invalid = _sorted_out(await self._recent(limit, thought_type))
        return ThoughtListing(thoughts, invalid, None)

    async def _recent(self, limit: int, thought_type: ThoughtType | str | None) -> Records:
        """The ``thoughts/recent`` rows, their properties as stored (see
        :meth:`recent_thoughts`)."""
        if not 1 <= limit <= MAX_LIMIT:
            raise ValidationFailedError("limit must be 1..10000")
        return await self.executor.read(
            Q["thoughts/recent"],
            namespace=self.namespace,
            now=self._clock(),
            thought_type=None if thought_type is None else ThoughtType(thought_type).value,
            limit=limit,
        )

    async def max_cycle(self) -> int:
        """The namespace's cycle high-water mark: max over thoughts' ``updated_cycle`` and edges'
        ``created_cycle``; 0 when empty. Resume a counter at ``max_cycle() + 1``."""
        rows = await self.executor.read(Q["thoughts/max_cycle"], namespace=self.namespace)
        return int(rows[0]["max_cycle"])
