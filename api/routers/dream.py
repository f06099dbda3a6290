"""``POST /v1/dream`` starts a consolidation pass in the background; ``GET /v1/dream/{id}``
reports it. Passes of one namespace run one after another (see :mod:`api.jobs`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response, status

from api.auth import ReadAccess, WriteAccess
from api.errors import HttpError
from engrava_graph.dreaming.consolidate import DreamResult
from engrava_graph.wire import ERROR_RESPONSES, DreamJob, DreamRequest

router = APIRouter(prefix="/v1", tags=["dreaming"], responses=ERROR_RESPONSES)

JobId = Annotated[str, Path(min_length=1, max_length=64, description="The job's id.")]


@router.post(
    "/dream",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=DreamJob,
    summary="Start a dreaming (consolidation) pass",
)
async def start_dream(
    body: DreamRequest, access: WriteAccess, request: Request, response: Response
) -> DreamJob:
    """Queue one pass over the namespace at ``current_cycle`` and return the job at once;
    poll ``GET /v1/dream/{job_id}`` (also given as ``Location``) for its status and counts."""
    store = access.store

    async def work() -> DreamResult:
        return await store.consolidate(current_cycle=body.current_cycle)

    job = request.app.state.api.jobs.submit(access.namespace, body.current_cycle, work)
    response.headers["Location"] = f"/v1/dream/{job.job_id}"
    return job


@router.get("/dream/{job_id}", response_model=DreamJob, summary="A dreaming pass's status")
async def get_dream(job_id: JobId, access: ReadAccess, request: Request) -> DreamJob:
    """Status (queued, running, completed, failed), timestamps, counts and error of a job of
    this namespace (404 for another namespace's job or an unknown id)."""
    job = request.app.state.api.jobs.get(access.namespace, job_id)
    if job is None:
        raise HttpError(
            404,
            "job_not_found",
            f"no dream job {job_id!r} in this namespace "
            f"(jobs are kept in memory until the service restarts)",
            field="job_id",
        )
    return job
