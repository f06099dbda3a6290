"""Where the Neo4j server is: the resolution order's rules (no server needed)."""

import pytest

from engrava_graph.cli import app
from engrava_graph.graph import connection
from engrava_graph.model.errors import ValidationFailedError


def test_credentials_without_a_uri_are_reported_not_silently_dropped(monkeypatch, caplog):
    """NEO4J_PASSWORD or NEO4J_DATABASE without NEO4J_URI do not reach the local server the
    resolution falls back to: one warning says so and how to use one's own server."""
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pass")
    monkeypatch.setenv("NEO4J_DATABASE", "memories")
    monkeypatch.setattr(connection, "_docker_answers", lambda: False)
    monkeypatch.setattr(connection, "_local_connection", lambda start_local: None)
    with caplog.at_level("WARNING", logger=connection.__name__):
        connection.resolve_connection(start_local=False)
    [record] = caplog.records
    assert "NEO4J_PASSWORD, NEO4J_DATABASE set without NEO4J_URI" in record.getMessage()
    assert "s3cret-pass" not in record.getMessage()


def test_a_malformed_uri_is_a_typed_error_naming_the_variable(monkeypatch, capsys):
    """``NEO4J_URI='bolt://[::1'`` (or a port outside 0-65535) is a ValidationFailedError that
    names NEO4J_URI / --uri, raised where every connection is read, so every command prints it
    as one line with exit code 2 (it was an "unexpected ValueError")."""
    for uri, reason in (("bolt://[::1", "Invalid IPv6 URL"), ("bolt://h:99999", "Port out of")):
        with pytest.raises(ValidationFailedError, match="NEO4J_URI / --uri") as caught:
            connection.connection_from_env({"NEO4J_URI": uri})
        assert reason in str(caught.value)
    monkeypatch.setenv("NEO4J_URI", "bolt://[::1")
    for command in (["list", "-n", "x"], ["dream", "-n", "x", "-c", "1"]):
        with pytest.raises(SystemExit) as exited:
            app(command)
        err = capsys.readouterr().err
        assert exited.value.code == 2 and len(err.splitlines()) == 1, err
        assert err.startswith("error: NEO4J_URI / --uri 'bolt://[::1' is not a valid URI"), err
