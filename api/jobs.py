"""Background jobs in the service's process: dreaming passes started by ``POST /v1/dream``.

A job is queued, then running, then completed or failed. Passes of one namespace run one at a
time, in submission order (a second request queues behind the first); passes of different
namespaces run concurrently. Jobs live in memory: a restart forgets them (the graph's
``DreamRun`` nodes keep the provenance of every pass). The registry keeps the last
``kept`` jobs.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from engrava_graph.dreaming.consolidate import DreamResult
from engrava_graph.model.errors import EngravaGraphError
from engrava_graph.wire import DreamJob, JobStatus

log = logging.getLogger("api.jobs")

Work = Callable[[], Awaitable[DreamResult]]
"""A job's body: runs the pass and returns what it did."""


def _now() -> datetime:
    return datetime.now(UTC)


def dream_counts(result: DreamResult) -> dict[str, int]:
    """The counts of a pass (see :class:`~engrava_graph.wire.DreamJob`)."""
    return {
        "candidates_evaluated": result.candidates_evaluated,
        "clusters_found": result.clusters_found,
        "clusters_rejected": result.clusters_rejected,
        "reflections_created": result.reflections_created,
        "reflections_existing": result.reflections_existing,
        "edges_created": result.edges_created,
        "orphans_retired": result.orphans_retired,
        "reflections_unretired": result.reflections_unretired,
        "archived": 0 if result.hygiene is None else result.hygiene.archived_count,
    }


class JobRegistry:
    """Starts, serialises per namespace, and remembers background jobs.

    Args:
        kept: how many jobs to remember (the oldest finished ones are forgotten first).
    """

    def __init__(self, kept: int = 1000) -> None:
        self._kept = kept
        self._jobs: OrderedDict[str, DreamJob] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def submit(self, namespace: str, current_cycle: int, work: Work) -> DreamJob:
        """Queue ``work`` for ``namespace`` and return the queued job at once."""
        job = DreamJob(
            job_id=str(uuid.uuid4()),
            namespace=namespace,
            status=JobStatus.QUEUED,
            current_cycle=current_cycle,
            created_at=_now(),
        )
        self._remember(job)
        task = asyncio.get_running_loop().create_task(self._run(job.job_id, work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    def get(self, namespace: str, job_id: str) -> DreamJob | None:
        """The job, if it exists and belongs to ``namespace`` (others' jobs are invisible)."""
        job = self._jobs.get(job_id)
        return job if job is not None and job.namespace == namespace else None

    async def wait_idle(self) -> None:
        """Wait until every submitted job has finished (tests and shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        """Cancel the jobs still queued or running and wait for them to stop."""
        for task in list(self._tasks):
            task.cancel()
        await self.wait_idle()

    async def _run(self, job_id: str, work: Work) -> None:
        namespace = self._jobs[job_id].namespace
        lock = self._locks.setdefault(namespace, asyncio.Lock())
        try:
            async with lock:
                self._update(job_id, status=JobStatus.RUNNING, started_at=_now())
                result = await work()
            self._update(
                job_id,
                status=JobStatus.COMPLETED,
                finished_at=_now(),
                run_id=result.run_id,
                due=result.due,
                counts=dream_counts(result),
            )
        except asyncio.CancelledError:
            self._update(
                job_id,
                status=JobStatus.FAILED,
                finished_at=_now(),
                error="cancelled: the service shut down",
            )
            raise
        except EngravaGraphError as exc:
            self._update(job_id, status=JobStatus.FAILED, finished_at=_now(), error=str(exc))
        except Exception as exc:
            log.error("dream job %s failed", job_id, exc_info=exc)
            self._update(
                job_id,
                status=JobStatus.FAILED,
                finished_at=_now(),
                error=f"internal error ({type(exc).__name__}); see the service log",
            )

    def _update(self, job_id: str, **changes: object) -> None:
        if job_id in self._jobs:
            self._jobs[job_id] = self._jobs[job_id].model_copy(update=changes)

    def _remember(self, job: DreamJob) -> None:
        self._jobs[job.job_id] = job
        finished = (JobStatus.COMPLETED, JobStatus.FAILED)
        while len(self._jobs) > self._kept:
            oldest = next((i for i, j in self._jobs.items() if j.status in finished), None)
            if oldest is None:
                break
            del self._jobs[oldest]
