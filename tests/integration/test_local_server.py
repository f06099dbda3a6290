"""The local server started by the project: running, reachable, Browser served."""

import os
import stat
import urllib.request

import pytest

from engrava_graph.graph.connection import resolve_connection
from engrava_graph.graph.server import LocalNeo4jServer, ServerStatus

HTTP_TIMEOUT = 10  # seconds


@pytest.fixture(scope="module")
def local_status() -> ServerStatus:
    """Status of the local server in use; skip when the tests run against another Neo4j."""
    server = LocalNeo4jServer()
    env_uri = os.environ.get("NEO4J_URI")
    if env_uri is None and resolve_connection().origin != "local":
        pytest.skip("tests use a Docker Neo4j, not the local server")
    status = server.status()
    if env_uri is not None and env_uri != status.uri:
        pytest.skip(f"NEO4J_URI={env_uri} is not the local server")
    return status


def test_status_reports_running(local_status: ServerStatus) -> None:
    assert local_status.running
    assert local_status.pid is not None
    assert local_status.uri is not None and local_status.uri.startswith("bolt://127.0.0.1:")


def test_browser_answers(local_status: ServerStatus) -> None:
    assert local_status.browser_url is not None
    with urllib.request.urlopen(local_status.browser_url, timeout=HTTP_TIMEOUT) as response:
        assert response.status == 200


def test_password_file_is_private(local_status: ServerStatus) -> None:
    mode = (local_status.home / "password").stat().st_mode
    assert stat.S_IMODE(mode) == 0o600
