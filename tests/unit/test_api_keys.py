"""API key configuration and matching (no database)."""

from __future__ import annotations

import hashlib
import json

import pytest

from api.auth import DEV_CALLER, KeyRing
from api.settings import ApiKey, ApiSettings


def test_keys_come_from_the_environment_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAVA_API_KEYS", json.dumps([
        {"name": "agent", "key": "k" * 20, "namespaces": ["a", "b"]},
        {"key_sha256": "ab" * 32, "namespaces": ["*"], "read_only": True}]))
    monkeypatch.setenv("NEO4J_URI", "bolt://example:7687")
    settings = ApiSettings(_env_file=None)
    assert settings.neo4j_uri == "bolt://example:7687"
    assert [k.namespaces for k in settings.api_keys] == [("a", "b"), ("*",)]
    assert "k" * 20 not in repr(settings)


def test_keyring_matches_plain_and_hashed_keys() -> None:
    plain = ApiKey(name="rw", key="p" * 16, namespaces=("a",))
    hashed = ApiKey(key_sha256=hashlib.sha256(b"h" * 16).hexdigest(), namespaces=("*",),
                    read_only=True)
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
        ApiSettings(_env_file=None, api_keys=[{**key, "name": "x"},
                                              {"key": "e" * 16, "namespaces": ["*"], "name": "x"}])
