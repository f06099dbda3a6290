"""``POST /v1/retrieve`` and ``POST /v1/explain``: the 10-phase cycle of spec 000.

The library never reads the clock; the API passes the request's arrival time as ``now`` (which
resolves "last Tuesday" and ages memories by last access) unless the body gives its own.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter

from api.auth import ReadAccess
from api.schemas import ERROR_RESPONSES, ExplainRequest
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.results import Explanation, RetrievalResponse

router = APIRouter(prefix="/v1", tags=["retrieval"], responses=ERROR_RESPONSES)


def cycle_params(body: RetrieveRequest) -> dict[str, Any]:
    """The cycle's keyword parameters from a request body: the fields the client set, with
    ``now`` = the request time when the body has none."""
    params = body.model_dump(exclude_unset=True, exclude={"query", "level"})
    params.setdefault("now", datetime.now(UTC))
    return params


@router.post("/retrieve", response_model=RetrievalResponse,
             summary="Recall memories with the 10-phase retrieval cycle")
async def retrieve(body: RetrieveRequest, access: ReadAccess) -> RetrievalResponse:
    """Encode, route, activate, spread, decay, cause, rank, filter, score and return: results by
    confidence with the pathway, per-phase timings (ms), candidate counts and causal links."""
    return await access.store.retrieve(body.query, **cycle_params(body))


@router.post("/explain", response_model=Explanation,
             summary="Run the retrieval cycle and show its internals")
async def explain(body: ExplainRequest, access: ReadAccess) -> Explanation:
    """Intent, entities, temporal range, pathway scores and choice, candidate counts and phase
    timings; at ``level="debug"`` also every candidate's signals and the phase that dropped it."""
    return await access.store.explain(body.query, body.level, **cycle_params(body))
