"""The client's edge calls: create, get, list a thought's and delete edges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from engrava_graph.client._base import ClientBase, edge_path, thought_path
from engrava_graph.client._ops import Op, operation
from engrava_graph.client._transport import Call, validated
from engrava_graph.model.enums import EdgeDirection
from engrava_graph.model.records import EdgeRecord

_EDGES = TypeAdapter(list[EdgeRecord])


class EdgeCalls(ClientBase):
    """The edge calls of :class:`ClientApi`."""

    @operation
    def create_edge(
        self, edge: EdgeRecord | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> Op[EdgeRecord]:
        """Link two thoughts with a typed, weighted edge (``POST /v1/edges``).

        Args:
            edge: the record, or its fields as a mapping (optional when ``fields`` give them).
            **fields: :class:`EdgeRecord` fields, over ``edge``'s: ``from_thought_id``,
                ``to_thought_id``, ``edge_type`` (e.g. ``"CAUSED_BY"``), ``weight``,
                ``confidence``, ``metadata``, ...

        Returns:
            The stored edge.

        Raises:
            ValidationFailedError: a bad field or a self-loop.
            ReferentialIntegrityError: an endpoint does not exist in the namespace.
            DuplicateEdgeError: the id, or the (from, to, type) triple, is taken.
        """
        base = edge.model_dump() if isinstance(edge, EdgeRecord) else dict(edge or {})
        record = validated(EdgeRecord, {**base, **fields})
        context = {
            "from_thought_id": record.from_thought_id,
            "to_thought_id": record.to_thought_id,
            "edge_type": record.edge_type.value,
        }
        return (
            yield from self._send(
                Call(
                    "POST",
                    "/v1/edges",
                    EdgeRecord.model_validate,
                    json=record.model_dump(mode="json", exclude_none=True),
                    context=context,
                )
            )
        )

    @operation
    def get_edge(self, edge_id: str) -> Op[EdgeRecord]:
        """The edge ``edge_id`` (``GET /v1/edges/{id}``).

        Raises:
            EdgeNotFoundError: no such edge.
        """
        return (
            yield from self._send(
                Call(
                    "GET",
                    edge_path(edge_id),
                    EdgeRecord.model_validate,
                    context={"edge_id": edge_id},
                    replayable=True,
                )
            )
        )

    @operation
    def get_edges(
        self, thought_id: str, direction: EdgeDirection | str = EdgeDirection.BOTH
    ) -> Op[list[EdgeRecord]]:
        """A thought's edges, oldest first (``GET /v1/thoughts/{id}/edges``).

        Args:
            thought_id: the thought.
            direction: ``"OUT"``, ``"IN"`` or ``"BOTH"``.

        Raises:
            ThoughtNotFoundError: no such thought.
        """
        return (
            yield from self._send(
                Call(
                    "GET",
                    thought_path(thought_id, "edges"),
                    _EDGES.validate_python,
                    params={"direction": str(direction)},
                    context={"thought_id": thought_id},
                    replayable=True,
                )
            )
        )

    @operation
    def delete_edge(self, edge_id: str) -> Op[None]:
        """Delete an edge (``DELETE /v1/edges/{id}``).

        Raises:
            EdgeNotFoundError: no such edge.
        """
        yield from self._send(
            Call("DELETE", edge_path(edge_id), context={"edge_id": edge_id}, replayable=True)
        )
