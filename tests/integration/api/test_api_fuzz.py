"""Property-based fuzzing of the OpenAPI schema with schemathesis: no input yields a 5xx.

Every operation gets ``FUZZ_EXAMPLES`` generated requests that fit the schema and as many that
do not (schemathesis's positive and negative modes: bodies, query and path values), with the
admin key, all in one fresh namespace that is deleted afterwards. schemathesis drives the app
in-process (its own lifespan); hypothesis is called directly rather than through schemathesis's
pytest plugin. docs/api.md shows a larger run against a live server.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from api.app import create_app
from engrava_graph.graph.connection import ConnectionInfo
from tests.integration.api.conftest import ADMIN, api_settings, drop_namespace

pytestmark = pytest.mark.slow

FUZZ_EXAMPLES = 15
FUZZ_NS = f"apif-{uuid.uuid4().hex[:12]}"
FUZZ_HEADERS = {"Authorization": f"Bearer {ADMIN}", "X-Namespace": FUZZ_NS}


@pytest.fixture(scope="module")
def fuzz_schema(connection: ConnectionInfo, provider: Any, client: TestClient) -> Iterator[Any]:
    """The service's schema, loaded from a second app instance that schemathesis drives."""
    app = create_app(api_settings(connection), embedding_provider=provider)
    seeded = client.post(
        "/v1/thoughts",
        headers=FUZZ_HEADERS,
        json={
            "thought_id": "seed",
            "thought_type": "NOTE",
            "essence": "seed",
            "content": "seed",
            "source": "fuzz",
        },
    )
    assert seeded.status_code == 201
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    drop_namespace(client, FUZZ_NS)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_input_is_a_server_error(fuzz_schema: Any, mode: GenerationMode) -> None:
    cases = 0
    operations = [result.ok() for result in fuzz_schema.get_all_operations()]
    assert len(operations) >= 15
    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=FUZZ_EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def call(case: Any) -> None:
            nonlocal cases
            cases += 1
            case.call_and_validate(headers=FUZZ_HEADERS, checks=[not_a_server_error])

        try:
            call()
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE  # e.g. /healthz: nothing can be wrong
    print(
        f"schemathesis {schemathesis.__version__}, {mode}: {cases} cases over "
        f"{len(operations)} operations, no 5xx"
    )
    assert cases >= len(operations)
