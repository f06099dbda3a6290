"""``POST /v1/retrieve`` and ``POST /v1/explain``: the 10-phase retrieval cycle.

The library never reads the clock; the API passes the request's arrival time as ``now`` (which
resolves "last Tuesday" and ages memories by last access) unless the body gives its own.
``POST /v1/explain?format=html`` answers with the page that draws the run instead of its JSON.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse

from api.auth import ReadAccess
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.results import Explanation, RetrievalResponse
from engrava_graph.retrieval.subgraph import load_subgraph
from engrava_graph.retrieval.visual import render_explanation_html
from engrava_graph.wire import ERROR_RESPONSES, ExplainFormat, ExplainRequest

router = APIRouter(prefix="/v1", tags=["retrieval"], responses=ERROR_RESPONSES)


def cycle_params(body: RetrieveRequest) -> dict[str, Any]:
    """The cycle's keyword parameters from a request body: the fields the client set, with
    ``now`` = the request time when the body has none."""
    params = body.model_dump(exclude_unset=True, exclude={"query", "level"})
    params.setdefault("now", datetime.now(UTC))
    return params


@router.post(
    "/retrieve",
    response_model=RetrievalResponse,
    summary="Recall memories with the 10-phase retrieval cycle",
)
async def retrieve(body: RetrieveRequest, access: ReadAccess) -> RetrievalResponse:
    """Encode, route, activate, spread, decay, cause, rank, filter, score and return: results by
    confidence with the pathway, per-phase timings (ms), candidate counts and causal links."""
    return await access.store.retrieve(body.query, **cycle_params(body))


_HTML_PAGE = {
    200: {
        "content": {"text/html": {"schema": {"type": "string"}}},
        "description": "the explanation (JSON), or with format=html the page that draws it",
    }
}


@router.post(
    "/explain",
    response_model=Explanation,
    responses=_HTML_PAGE,
    summary="Run the retrieval cycle and show its internals",
)
async def explain(
    body: ExplainRequest,
    access: ReadAccess,
    answer: Annotated[
        ExplainFormat,
        Query(
            alias="format",
            description="json (the explanation) or html (a "
            "standalone page drawing the run, as `engrava-graph explain --html`)",
        ),
    ] = ExplainFormat.JSON,
) -> Explanation | HTMLResponse:
    """Intent, entities, temporal range, pathway scores and choice, candidate counts and phase
    timings; at ``level="debug"`` also every candidate's signals and the phase that dropped it.

    With ``format=html`` the answer is the page of ``engrava-graph explain QUERY --html FILE``
    (about 4.5 MB, no network needed to open it): the run at ``level="debug"`` unless the body
    sets ``level``, with the relationships among its candidates and the Entity/Tag nodes they
    share."""
    page_wanted = answer is ExplainFormat.HTML
    level = "debug" if page_wanted and "level" not in body.model_fields_set else body.level
    explanation = await access.store.explain(body.query, level, **cycle_params(body))
    if not page_wanted:
        return explanation
    subgraph = await load_subgraph(access.store, explanation)
    page = await run_in_threadpool(render_explanation_html, explanation, subgraph)
    return HTMLResponse(page)
