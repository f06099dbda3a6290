"""Edges: create, read, list a thought's, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response, status

from api.auth import ReadAccess, WriteAccess
from api.routers.thoughts import ThoughtId
from engrava_graph.model.enums import EdgeDirection
from engrava_graph.model.errors import EdgeNotFoundError, ThoughtNotFoundError
from engrava_graph.model.records import EdgeRecord
from engrava_graph.wire import ERROR_RESPONSES

router = APIRouter(prefix="/v1", tags=["edges"], responses=ERROR_RESPONSES)

EdgeId = Annotated[str, Path(min_length=1, max_length=128, description="The edge's id.")]


@router.post(
    "/edges",
    status_code=status.HTTP_201_CREATED,
    response_model=EdgeRecord,
    summary="Link two thoughts",
)
async def create_edge(body: EdgeRecord, access: WriteAccess) -> EdgeRecord:
    """A typed, weighted edge between two thoughts of the namespace: 422 when an endpoint does
    not exist, 409 when the id or the (from, to, type) triple is taken."""
    return await access.store.create_edge(body)


@router.get("/edges/{edge_id}", response_model=EdgeRecord, summary="Read an edge")
async def get_edge(edge_id: EdgeId, access: ReadAccess) -> EdgeRecord:
    """The edge, or 404."""
    edge = await access.store.get_edge(edge_id)
    if edge is None:
        raise EdgeNotFoundError(edge_id)
    return edge


@router.get(
    "/thoughts/{thought_id}/edges", response_model=list[EdgeRecord], summary="A thought's edges"
)
async def thought_edges(
    thought_id: ThoughtId, access: ReadAccess, direction: EdgeDirection = EdgeDirection.BOTH
) -> list[EdgeRecord]:
    """Outgoing (``OUT``), incoming (``IN``) or both, oldest first; 404 for an unknown thought."""
    if not await access.store.get_thoughts([thought_id]):
        raise ThoughtNotFoundError(thought_id)
    return await access.store.get_edges(thought_id, direction=direction)


@router.delete("/edges/{edge_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete an edge")
async def delete_edge(edge_id: EdgeId, access: WriteAccess) -> Response:
    """Delete the edge (404 if absent)."""
    if not await access.store.delete_edge(edge_id):
        raise EdgeNotFoundError(edge_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
