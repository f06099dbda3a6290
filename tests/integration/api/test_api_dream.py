"""/v1/dream: a consolidation pass as a background job, its status and counts."""

from __future__ import annotations

import time
from typing import Any

from tests.integration.api.conftest import Api

POLL_SECONDS = 0.2
JOB_TIMEOUT = 120.0  # seconds: a pass over a handful of thoughts takes well under a second


def _wait(api: Api, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + JOB_TIMEOUT
    while time.monotonic() < deadline:
        job = api.get(f"/v1/dream/{job_id}").json()
        if job["status"] in ("completed", "failed"):
            return job
        time.sleep(POLL_SECONDS)
    raise AssertionError(f"dream job {job_id} did not finish in {JOB_TIMEOUT} s")


def test_dream_job_consolidates_and_reports_counts(api: Api) -> None:
    for text in (
        "Ann drinks green tea every morning",
        "Every morning Ann has green tea",
        "Ann starts each morning with a cup of green tea",
        "Green tea is what Ann drinks in the morning",
    ):
        api.thought(text, created_cycle=0, updated_cycle=0)
    started = api.post("/v1/dream", json={"current_cycle": 5})
    assert started.status_code == 202, started.text
    job = started.json()
    assert job["status"] in ("queued", "running") and job["namespace"] == api.namespace
    assert started.headers["Location"] == f"/v1/dream/{job['job_id']}"
    done = _wait(api, job["job_id"])
    assert done["status"] == "completed", done
    assert done["run_id"] and done["due"] is True
    assert done["counts"]["reflections_created"] >= 1
    assert done["counts"]["edges_created"] >= 3
    reflections = api.get("/v1/thoughts", params={"thought_type": "REFLECTION"}).json()
    assert len(reflections["thoughts"]) == done["counts"]["reflections_created"]


def test_passes_of_one_namespace_run_one_after_another(api: Api) -> None:
    api.thought("a single observation", created_cycle=0)
    first = api.post("/v1/dream", json={"current_cycle": 3}).json()
    second = api.post("/v1/dream", json={"current_cycle": 4}).json()
    one, two = _wait(api, first["job_id"]), _wait(api, second["job_id"])
    assert one["status"] == two["status"] == "completed"
    assert two["started_at"] >= one["finished_at"]


def test_dream_errors(api: Api) -> None:
    api.thought("exists")
    assert api.post("/v1/dream", json={}).json()["field"] == "current_cycle"
    assert api.post("/v1/dream", json={"current_cycle": -1}).status_code == 422
    unknown = api.get("/v1/dream/no-such-job")
    assert unknown.status_code == 404 and unknown.json()["error"] == "job_not_found"
    job = api.post("/v1/dream", json={"current_cycle": 1}).json()
    other = api.in_namespace(api.namespace + "-x")
    other.thought("another namespace")
    try:
        assert other.get(f"/v1/dream/{job['job_id']}").status_code == 404
    finally:
        other.drop()
    _wait(api, job["job_id"])
