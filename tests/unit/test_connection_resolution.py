"""Where the Neo4j server is: the resolution order's rules (no server needed)."""

from engrava_graph.graph import connection


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
