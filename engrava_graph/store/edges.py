"""The store's edges area: typed edges between thoughts of one namespace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j.exceptions import ConstraintError

from engrava_graph.graph.executor import run_in
from engrava_graph.graph.mapping import edge_from_properties, record_properties, removed_meta_keys
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import EdgeDirection, EdgeType, KnowledgeSource
from engrava_graph.model.errors import (
    DuplicateEdgeError,
    EdgeNotFoundError,
    ReferentialIntegrityError,
    ValidationFailedError,
)
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.records import EdgeRecord
from engrava_graph.store._base import StoreBase, evolved
from engrava_graph.store.modes import writes


def check_edge_batch(edges: Sequence[object]) -> list[EdgeRecord]:
    """The checks of a batch of edges that need no database (those of
    :meth:`EdgesMixin.bulk_create_edges` on its input): every element an :class:`EdgeRecord`,
    no edge id and no (from, to, type) triple twice.

    Returns:
        ``edges`` as a list, unchanged.

    Raises:
        ValidationFailedError: an element is not an EdgeRecord.
        DuplicateEdgeError: an edge id or a (from, to, type) triple repeats (the first repeat).
    """
    seen_ids: set[str] = set()
    seen_triples: set[tuple[str, str, str]] = set()
    checked: list[EdgeRecord] = []
    for edge in edges:
        if not isinstance(edge, EdgeRecord):
            raise ValidationFailedError(f"expected an EdgeRecord, got {type(edge).__name__}")
        triple = (edge.from_thought_id, edge.to_thought_id, edge.edge_type.value)
        if edge.edge_id in seen_ids or triple in seen_triples:
            raise DuplicateEdgeError(
                from_thought_id=triple[0],
                to_thought_id=triple[1],
                edge_type=triple[2],
                edge_id=(edge.edge_id if edge.edge_id in seen_ids else None),
            )
        seen_ids.add(edge.edge_id)
        seen_triples.add(triple)
        checked.append(edge)
    return checked


Q = {
    name: cypher(name)
    for name in (
        "edges/bulk_create",
        "edges/bulk_preflight",
        "edges/create",
        "edges/delete",
        "edges/for_thought",
        "edges/get",
        "edges/list",
        "edges/preflight",
        "edges/update",
    )
}


def _raise_edge_problem(props: dict[str, Any], check: dict[str, Any]) -> None:
    """Raise the error :meth:`Neo4jEngravaCore.create_edge` raises for a failed preflight row
    (``check``: ``from_exists``, ``to_exists``, ``id_taken``, ``triple_taken``)."""
    missing = [
        (name, props[name])
        for name, ok in (
            ("from_thought_id", check["from_exists"]),
            ("to_thought_id", check["to_exists"]),
        )
        if not ok
    ]
    if missing:
        raise ReferentialIntegrityError([i for _, i in missing], field=missing[0][0])
    raise DuplicateEdgeError(
        from_thought_id=props["from_thought_id"],
        to_thought_id=props["to_thought_id"],
        edge_type=props["edge_type"],
        edge_id=props["edge_id"] if check["id_taken"] else None,
    )


class EdgesMixin(StoreBase):
    """Edge reads and writes of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    @writes
    async def create_edge(self, edge: EdgeRecord) -> EdgeRecord:
        """Create a typed edge between two thoughts of this namespace.

        Raises:
            ReferentialIntegrityError: an endpoint does not exist in the namespace.
            DuplicateEdgeError: the id is taken, or (from, to, type) exists (also under
                concurrent writers: Neo4j's constraint decides).
        """
        if not isinstance(edge, EdgeRecord):
            raise ValidationFailedError(f"expected an EdgeRecord, got {type(edge).__name__}")
        stamped = edge.model_copy(update={"created_at": edge.created_at or self._clock()})
        keys = {
            "namespace": self.namespace,
            "from_thought_id": edge.from_thought_id,
            "to_thought_id": edge.to_thought_id,
        }
        dup = DuplicateEdgeError(
            from_thought_id=edge.from_thought_id,
            to_thought_id=edge.to_thought_id,
            edge_type=edge.edge_type.value,
        )

        async def work(tx: Any) -> EdgeRecord:
            check = (
                await run_in(
                    tx,
                    Q["edges/preflight"],
                    edge_id=edge.edge_id,
                    edge_type=edge.edge_type.value,
                    **keys,
                )
            )[0]
            if (
                not (check["from_exists"] and check["to_exists"])
                or check["id_taken"]
                or (check["triple_taken"])
            ):
                _raise_edge_problem(record_properties(edge), check)
            rows = await run_in(
                tx,
                Q["edges/create"],
                edge_type=edge.edge_type.value,
                props=record_properties(stamped),
                **keys,
            )
            return edge_from_properties(rows[0]["edge"])

        try:
            return await self.executor.transaction(work)
        except ConstraintError as exc:
            raise dup from exc

    @writes
    async def bulk_create_edges(
        self, edges: Sequence[EdgeRecord], *, batch_size: int = 1000
    ) -> list[EdgeRecord]:
        """Create many edges in ONE transaction (all or nothing), with the rules of
        :meth:`create_edge`, checked and written in UNWIND batches of ``batch_size``.

        Returns:
            The stored records (``created_at`` stamped), in input order.

        Raises:
            ReferentialIntegrityError: an endpoint does not exist in the namespace (the first
                offending edge's missing ids).
            DuplicateEdgeError: an edge id or a (from, to, type) triple repeats in the input or
                exists in the namespace.
            ValidationFailedError: an element is not an EdgeRecord.
        """
        now = self._clock()
        stamped = [
            edge.model_copy(update={"created_at": edge.created_at or now})
            for edge in check_edge_batch(edges)
        ]
        rows: list[dict[str, Any]] = [
            {"edge_type": e.edge_type.value, "props": record_properties(e)} for e in stamped
        ]
        batches = [rows[i : i + batch_size] for i in range(0, len(rows), batch_size)]

        async def work(tx: Any) -> None:
            for batch in batches:
                problems = await run_in(
                    tx, Q["edges/bulk_preflight"], namespace=self.namespace, rows=batch
                )
                if problems:
                    _raise_edge_problem(batch[problems[0]["i"]]["props"], problems[0])
            for batch in batches:
                await run_in(tx, Q["edges/bulk_create"], namespace=self.namespace, rows=batch)

        if rows:
            try:
                await self.executor.transaction(work)
            except ConstraintError as exc:
                raise DuplicateEdgeError(
                    from_thought_id="(one of the batch)",
                    to_thought_id="(one of the batch)",
                    edge_type="(one of the batch)",
                ) from exc
        return stamped

    async def get_edge(self, edge_id: str) -> EdgeRecord | None:
        """The edge with this id, or None."""
        rows = await self.executor.read(Q["edges/get"], namespace=self.namespace, edge_id=edge_id)
        return edge_from_properties(rows[0]["edge"]) if rows else None

    async def get_edges(
        self, thought_id: str, *, direction: EdgeDirection | str = EdgeDirection.BOTH
    ) -> list[EdgeRecord]:
        """A thought's edges (``"OUT"``, ``"IN"`` or ``"BOTH"``), oldest first."""
        direction = EdgeDirection(direction)
        rows = await self.executor.read(
            Q["edges/for_thought"],
            namespace=self.namespace,
            thought_id=thought_id,
            direction=direction.value,
        )
        return [edge_from_properties(r["edge"]) for r in rows]

    async def list_edges(
        self,
        *,
        edge_type: EdgeType | None = None,
        source: KnowledgeSource | None = None,
        filters: MetadataFilter | None = None,
        limit: int = 5000,
    ) -> list[EdgeRecord]:
        """Edges of the namespace by type, source and metadata filter, oldest first.

        Raises:
            InvalidFilterError: ``filters`` is not a filter (:meth:`MetadataFilter.of`).
        """
        rows = await self.executor.read(
            Q["edges/list"],
            namespace=self.namespace,
            edge_type=None if edge_type is None else EdgeType(edge_type).value,
            source=None if source is None else KnowledgeSource(source).value,
            meta_filters=MetadataFilter.of(filters).to_params(),
            limit=limit,
        )
        return [edge_from_properties(r["edge"]) for r in rows]

    @writes
    async def update_edge(self, edge_id: str, **changes: Any) -> EdgeRecord:
        """Change an edge's weight, confidence, validity or metadata (not its endpoints or type).

        Raises:
            EdgeNotFoundError: no such edge.
            ValidationFailedError: a bad value or a fixed field.
        """
        current = await self.get_edge(edge_id)
        if current is None:
            raise EdgeNotFoundError(edge_id)
        new = evolved(current, changes)
        old_props = record_properties(current)
        new_props = record_properties(new)
        rows = await self.executor.write(
            Q["edges/update"],
            namespace=self.namespace,
            edge_id=edge_id,
            props={**removed_meta_keys(old_props, new_props), **new_props},
        )
        if not rows:
            raise EdgeNotFoundError(edge_id)
        return edge_from_properties(rows[0]["edge"])

    @writes
    async def delete_edge(self, edge_id: str) -> bool:
        """Delete an edge; True when it existed."""
        rows = await self.executor.write(
            Q["edges/delete"], namespace=self.namespace, edge_id=edge_id
        )
        return bool(rows[0]["deleted"])
