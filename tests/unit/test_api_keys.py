"""API key configuration and matching (no database)."""

from __future__ import annotations

import hashlib
import json

import pytest
import uvicorn
from typer.testing import CliRunner

import api.logs
from api.auth import DEV_CALLER, KeyRing
from api.settings import ApiKey, ApiSettings, load_settings
from engrava_graph.cli import app


def test_keys_come_from_the_environment_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "ENGRAVA_API_KEYS",
        json.dumps(
            [
                {"name": "agent", "key": "k" * 20, "namespaces": ["a", "b"]},
                {"key_sha256": "ab" * 32, "namespaces": ["*"], "read_only": True},
            ]
        ),
    )
    monkeypatch.setenv("NEO4J_URI", "bolt://example:7687")
    settings = ApiSettings(_env_file=None)
    assert settings.neo4j_uri == "bolt://example:7687"
    assert [k.namespaces for k in settings.api_keys] == [("a", "b"), ("*",)]
    assert "k" * 20 not in repr(settings)


def test_keyring_matches_plain_and_hashed_keys() -> None:
    plain = ApiKey(name="rw", key="p" * 16, namespaces=("a",))
    hashed = ApiKey(
        key_sha256=hashlib.sha256(b"h" * 16).hexdigest(), namespaces=("*",), read_only=True
    )
    ring = KeyRing([plain, hashed])
    rw = ring.authenticate("p" * 16)
    assert rw is not None and rw.name == "rw" and rw.may_use("a") and not rw.may_use("b")
    ro = ring.authenticate("h" * 16)
    assert ro is not None and ro.name == "key-1" and ro.read_only and ro.may_use("anything")
    assert ring.authenticate("p" * 15) is None
    assert ring.authenticate("") is None and ring.authenticate(None) is None


def test_no_keys_needs_insecure_dev() -> None:
    with pytest.raises(ValueError, match="--insecure-dev"):
        KeyRing([])
    assert KeyRing([], insecure_dev=True).authenticate(None) is DEV_CALLER


def test_duplicate_keys_and_names_are_refused() -> None:
    key = {"key": "d" * 16, "namespaces": ["*"]}
    with pytest.raises(ValueError, match="twice"):
        ApiSettings(_env_file=None, api_keys=[key, {**key, "name": "other"}])
    with pytest.raises(ValueError, match="unique"):
        ApiSettings(
            _env_file=None,
            api_keys=[{**key, "name": "x"}, {"key": "e" * 16, "namespaces": ["*"], "name": "x"}],
        )


@pytest.mark.parametrize("value", ["", "not json", "{'single': 'quotes'}"])
def test_unparsable_keys_are_one_clear_paragraph(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ENGRAVA_API_KEYS", value)
    with pytest.raises(ValueError) as caught:
        load_settings(None)
    message = str(caught.value)
    assert message.startswith("ENGRAVA_API_KEYS") and "JSON list" in message
    assert "docs/api.md" in message and "\n" not in message


def test_invalid_settings_name_the_variable_never_the_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        "ENGRAVA_API_KEYS", json.dumps([{"key": "short-secret", "namespaces": ["a"]}])
    )
    monkeypatch.setenv("ENGRAVA_MAX_BODY_BYTES", "lots")
    with pytest.raises(ValueError) as caught:
        load_settings(None)
    message = str(caught.value)
    assert "ENGRAVA_API_KEYS (entry 0.key): a key must be at least 16 characters, got 12" in message
    assert "ENGRAVA_MAX_BODY_BYTES" in message and "docs/api.md" in message
    assert "short-secret" not in message


@pytest.fixture
def keep_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` would point the ``api`` loggers at CliRunner's stderr, closed after the call."""
    monkeypatch.setattr(api.logs, "configure_logging", lambda level: None)


@pytest.mark.usefixtures("keep_logging")
def test_serve_reports_configuration_problems_with_exit_code_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ENGRAVA_API_KEYS", "")
    result = CliRunner().invoke(app, ["serve", "--env-file", "/nonexistent/.env"])
    assert result.exit_code == 2
    assert "ENGRAVA_API_KEYS" in result.output and "Traceback" not in result.output
    monkeypatch.delenv("ENGRAVA_API_KEYS")
    result = CliRunner().invoke(app, ["serve", "--env-file", "/nonexistent/.env"])
    assert result.exit_code == 2 and "docs/api.md" in result.output


@pytest.mark.usefixtures("keep_logging")
def test_serve_prints_where_it_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: ran.update(options))
    monkeypatch.setenv("ENGRAVA_EMBEDDER", "none")
    monkeypatch.setenv("ENGRAVA_GC_TUNING", "false")  # this test process keeps its collector
    result = CliRunner().invoke(
        app, ["serve", "--insecure-dev", "--port", "8123", "--env-file", "/nonexistent/.env"]
    )
    assert result.exit_code == 0, result.output
    assert "engrava-graph API on http://127.0.0.1:8123 (docs at /docs)" in result.output
    assert ran["port"] == 8123
