"""Examples in the OpenAPI schema: one worked example per request and response model and the error
body, shown by Swagger UI ("Example Value") and ReDoc.

The examples are built from the models themselves (so they always validate) around one story:
a deploy that failed because a config PR removed ``DATABASE_URL``. :func:`install_examples`
puts them into ``components.schemas`` when the schema is first generated.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI

from engrava_graph.model.enums import EdgeType, Priority, ThoughtType
from engrava_graph.model.records import EdgeRecord, ThoughtRecord
from engrava_graph.retrieval.results import CausalLink, RetrievalResponse, RetrievedMemory
from engrava_graph.retrieval.types import Intent, Pathway, PathwayScores
from engrava_graph.wire import BulkResult, DreamJob, ErrorBody, Health, JobStatus, ThoughtPage

_AT = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)
_DEPLOY = "0b7c5b8e-3f0e-4c55-9d59-0e6c1d1a2f01"
_PR = "5d1f7a2c-8b4e-4a7d-a0a5-6f1e2d3c4b02"


def _thought() -> ThoughtRecord:
    return ThoughtRecord(
        thought_id=_DEPLOY,
        thought_type=ThoughtType.OBSERVATION,
        essence="The deploy failed at 3pm",
        content="The 3pm deploy of billing failed: the service could not start.",
        source="incident-bot",
        priority=Priority.P2,
        metadata={"team": "billing"},
        valid_from=_AT,
        created_at=_AT,
        updated_at=_AT,
    )


def _edge() -> EdgeRecord:
    return EdgeRecord(
        edge_id="9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c03",
        from_thought_id=_DEPLOY,
        to_thought_id=_PR,
        edge_type=EdgeType.CAUSED_BY,
        confidence=0.9,
        created_at=_AT,
    )


def _retrieval() -> RetrievalResponse:
    link = CausalLink(
        edge_id=_edge().edge_id,
        edge_type="CAUSED_BY",
        from_thought_id=_DEPLOY,
        to_thought_id=_PR,
        confidence=0.9,
        hops=1,
        direction="cause",
    )
    return RetrievalResponse(
        results=[
            RetrievedMemory(
                thought_id=_DEPLOY,
                text="The deploy failed at 3pm",
                confidence=0.82,
                pathway=Pathway.ATTENTION,
                thought_type="OBSERVATION",
                metadata={"team": "billing"},
                created_at=_AT,
                last_accessed_at=None,
                valid_from=_AT,
                causal_links=[link],
            ),
            RetrievedMemory(
                thought_id=_PR,
                text="Config PR removed DATABASE_URL",
                confidence=0.64,
                pathway=Pathway.ATTENTION,
                thought_type="OBSERVATION",
                metadata={},
                created_at=_AT,
                last_accessed_at=None,
                reached_by="cause",
            ),
        ],
        pathway=Pathway.ATTENTION,
        pathway_scores=PathwayScores(exact=0.2, energy=0.3, attention=0.5),
        intent=Intent.CAUSAL,
        phase_timings={"encode": 8.1, "activate": 21.4, "total": 96.0},
        candidates_activated=12,
        candidates_after_spread=18,
        candidates_final=2,
        causal_links=[link],
    )


def _json(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json")


EXAMPLES: dict[str, Callable[[], dict[str, Any]]] = {
    "ThoughtCreate": lambda: {**_json(_thought()), "deduplicate": False},
    "ThoughtRecord-Input": lambda: _json(_thought()),
    "ThoughtRecord-Output": lambda: _json(_thought()),
    "ThoughtPatch": lambda: {"priority": "P1", "lifecycle_status": "ACTIVE"},
    "ThoughtPage": lambda: _json(ThoughtPage(thoughts=[_thought()], next_cursor=_DEPLOY)),
    "BulkThoughts": lambda: {"thoughts": [_json(_thought())]},
    "BulkResult": lambda: _json(BulkResult(stored=1, thought_ids=[_DEPLOY])),
    "EdgeRecord-Input": lambda: {
        "from_thought_id": _DEPLOY,
        "to_thought_id": _PR,
        "edge_type": "CAUSED_BY",
        "confidence": 0.9,
    },
    "EdgeRecord-Output": lambda: _json(_edge()),
    "RetrieveRequest": lambda: {
        "query": "Why did the deploy fail?",
        "top_k": 5,
        "now": "2026-11-25T09:00:00Z",
    },
    "ExplainRequest": lambda: {"query": "Why did the deploy fail?", "level": "debug"},
    "RetrievalResponse": lambda: _json(_retrieval()),
    "DreamRequest": lambda: {"current_cycle": 42},
    "DreamJob": lambda: _json(
        DreamJob(
            job_id="c0ffee00-0000-4000-8000-000000000001",
            namespace="agent-1",
            status=JobStatus.QUEUED,
            current_cycle=42,
            created_at=_AT,
        )
    ),
    "RestoreRequest": lambda: {"current_cycle": 42},
    "Health": lambda: _json(Health(status="ready", schema_version=3)),
    "ErrorBody": lambda: _json(
        ErrorBody(
            error="thought_not_found",
            field="thought_id",
            message=f"thought {_PR!r} does not exist in this namespace",
        )
    ),
}
"""Component schema name -> a function building its example (as JSON)."""


def install_examples(app: FastAPI) -> None:
    """Make ``app.openapi()`` carry :data:`EXAMPLES` (``examples: [...]`` on each component
    schema that has one)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            components = schema.get("components", {}).get("schemas", {})
            for name, build in EXAMPLES.items():
                if name in components:
                    components[name]["examples"] = [build()]
        return app.openapi_schema  # type: ignore[return-value]

    app.openapi = openapi  # type: ignore[method-assign]
