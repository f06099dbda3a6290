"""The client's dreaming calls: start a dreaming job, read it, wait for it."""

from __future__ import annotations

import time

from engrava_graph.client._base import ClientBase, path, sent
from engrava_graph.client._ops import Op, Sleep, operation
from engrava_graph.client._transport import Call, validated
from engrava_graph.model.errors import DreamTimeoutError
from engrava_graph.wire import (
    DreamJob,
    DreamRequest,
    JobStatus,
)

_FINISHED = (JobStatus.COMPLETED, JobStatus.FAILED)


class DreamCalls(ClientBase):
    """The dreaming calls of :class:`ClientApi`."""

    @operation
    def dream(self, current_cycle: int) -> Op[DreamJob]:
        """Start one dreaming (consolidation) pass over the namespace in the background
        (``POST /v1/dream``); passes of one namespace run one after another.

        Args:
            current_cycle: the caller's cognitive cycle "now" (dreaming's gates count cycles).

        Returns:
            The queued job; follow it with :meth:`get_dream` or :meth:`wait_for_dream`.
        """
        body = validated(DreamRequest, {"current_cycle": current_cycle})
        return (
            yield from self._send(
                Call("POST", "/v1/dream", DreamJob.model_validate, json=sent(body))
            )
        )

    @operation
    def get_dream(self, job_id: str) -> Op[DreamJob]:
        """A dreaming job's status, timestamps, counts and error (``GET /v1/dream/{id}``).

        Raises:
            ApiError: no such job in this namespace (code ``job_not_found``; jobs are kept in
                the service's memory until it restarts).
        """
        return (yield from self._get_dream(job_id))

    def _get_dream(self, job_id: str) -> Op[DreamJob]:
        return (
            yield from self._send(
                Call(
                    "GET",
                    path("dream", job_id),
                    DreamJob.model_validate,
                    context={"job_id": job_id},
                    replayable=True,
                )
            )
        )

    @operation
    def wait_for_dream(
        self, job_id: str, timeout: float = 300.0, poll_interval: float = 1.0
    ) -> Op[DreamJob]:
        """Poll a dreaming job until it is completed or failed.

        Args:
            job_id: the job (from :meth:`dream`).
            timeout: seconds to wait at most.
            poll_interval: seconds between polls.

        Returns:
            The finished job: check ``status`` (``"completed"`` with ``counts``, or ``"failed"``
            with ``error``).

        Raises:
            DreamTimeoutError: still queued or running after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            job = yield from self._get_dream(job_id)
            remaining = deadline - time.monotonic()
            if job.status in _FINISHED:
                return job
            if remaining <= 0:
                raise DreamTimeoutError(job_id, job.status.value, timeout)
            yield Sleep(min(poll_interval, remaining))
