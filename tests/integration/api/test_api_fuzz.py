"""Property-based fuzzing of the OpenAPI schema with schemathesis: no input yields a 5xx.

Every operation gets ``FUZZ_EXAMPLES`` generated requests (valid and invalid bodies, query and
path values) with the admin key, all in one fresh namespace that is deleted afterwards. A larger
run for the release note: ``benchmarks/`` has none; run ``st run`` against ``engrava-graph serve``
(see docs/api.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from api.app import create_app
from engrava_graph.graph.connection import ConnectionInfo
from tests.integration.api.conftest import ADMIN, api_settings, drop_namespace

pytestmark = pytest.mark.slow

FUZZ_EXAMPLES = 15
FUZZ_NS = f"apif-{uuid.uuid4().hex[:12]}"
FUZZ_HEADERS = {"Authorization": f"Bearer {ADMIN}", "X-Namespace": FUZZ_NS}


@pytest.fixture(scope="module")
def fuzz_schema(connection: ConnectionInfo, provider: Any,
                client: TestClient) -> Iterator[Any]:
    app = create_app(api_settings(connection), embedding_provider=provider)
    client.post("/v1/thoughts", headers=FUZZ_HEADERS, json={
        "thought_id": "seed", "thought_type": "NOTE", "essence": "seed", "content": "seed",
        "source": "fuzz"})
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    drop_namespace(client, FUZZ_NS)


schema = schemathesis.pytest.from_fixture("fuzz_schema")


@schema.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_is_a_server_error(case: Any) -> None:
    case.call_and_validate(headers=FUZZ_HEADERS, checks=[not_a_server_error])
