"""Every string field of every REST route against a corpus of hostile inputs (issue 15, the sweep),
on the real Neo4j.

The string fields are read from the service's own OpenAPI schema (body fields, nested ones such
as ``thoughts.0.essence`` of a bulk body, list items such as ``tags``, metadata values, query,
path and header parameters), so a route or field added later is swept too. Each one gets every
value of :data:`HOSTILE` in an otherwise valid request, and every route with a body also gets
whole bodies that are not UTF-8, nested 5,000 deep, or 1 MB of garbage. For every answer:

- no 5xx (a hostile value is served or refused with a 4xx a person can act on);
- no traceback and no error record in the service log;
- a refused write (POST, PATCH, DELETE answered 4xx) leaves the namespace's node and
  relationship counts as they were.

Bodies are sent as ASCII JSON (``\\uXXXX`` escapes), so a lone surrogate reaches the server
as the JSON it would get from any client. What HTTP cannot carry (a header value with NUL, a
line break or non-Latin-1 characters; a URL over 64 KB, which servers refuse with 414 before
the application) is refused by the client before it is sent and is skipped.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import httpx  # the HTTP client (and its errors) TestClient uses

from tests.integration.api.conftest import Api

HOSTILE: dict[str, str] = {
    "cjk-2000": "记忆检索" * 500,  # the longest query retrieve takes: every ideograph a term
    "nul": "before\x00after",
    "control": "\x01\x02\x07\x08\x1b[31mred\x7f\u2028\u2029\ufeff\u200b",
    "lucene": 'title:(a OR b) AND "c d"~2 ^3 \\ / * ? [x TO y] {z} -w +v !u && || ~ : AND',
    "cypher": "') MATCH (n) DETACH DELETE n // $namespace `x` {{",
    "1mb": "x" * 1_000_000,
    "lone-surrogate": "\ud800 half a pair",
    "rtl-emoji": "\u202eevil\u202c 👩\u200d👩\u200d👧 \U0001f600",
    "empty": "",
    "blank": " \t\n ",
    "not-a-value": "2024-13-45T25:61:61+99:00 NaN -1e400 9223372036854775808",
}
"""The hostile strings, by name."""

WRITES = frozenset({"POST", "PATCH", "DELETE"})
THOUGHT = {
    "thought_type": "OBSERVATION",
    "essence": "Ann likes green tea",
    "content": "Ann likes green tea in the morning",
    "source": "sweep",
}
SEED, OTHER = "sweep-seed", "sweep-other"


def _base_requests() -> dict[tuple[str, str], dict[str, Any]]:
    """A valid request per operation: ``path`` (the values of its path parameters), ``query``
    and ``body``. Operations missing here fail :func:`test_every_operation_is_swept`."""
    return {
        ("POST", "/v1/retrieve"): {"body": {"query": "what does Ann drink"}},
        ("POST", "/v1/explain"): {"body": {"query": "what does Ann drink"}},
        ("POST", "/v1/thoughts"): {"body": THOUGHT},
        ("GET", "/v1/thoughts"): {},
        ("POST", "/v1/thoughts:bulk"): {"body": {"thoughts": [THOUGHT]}},
        ("GET", "/v1/thoughts/{thought_id}"): {"path": {"thought_id": SEED}},
        ("PATCH", "/v1/thoughts/{thought_id}"): {
            "path": {"thought_id": SEED},
            "body": {"priority": "P2"},
        },
        ("DELETE", "/v1/thoughts/{thought_id}"): {"path": {"thought_id": "absent"}},
        ("POST", "/v1/thoughts/{thought_id}/restore"): {
            "path": {"thought_id": SEED},
            "body": {"current_cycle": 1},
        },
        ("POST", "/v1/edges"): {
            "body": {"from_thought_id": SEED, "to_thought_id": OTHER, "edge_type": "ASSOCIATED"}
        },
        ("GET", "/v1/edges/{edge_id}"): {"path": {"edge_id": "absent"}},
        ("DELETE", "/v1/edges/{edge_id}"): {"path": {"edge_id": "absent"}},
        ("GET", "/v1/thoughts/{thought_id}/edges"): {"path": {"thought_id": SEED}},
        ("POST", "/v1/conversations/{conversation_id}/messages"): {
            "path": {"conversation_id": "chat-1"},
            "body": {"messages": [{"speaker": "Ann", "content": "I drink tea"}]},
        },
        ("POST", "/v1/dream"): {"body": {"current_cycle": 0}},
        ("GET", "/v1/dream/{job_id}"): {"path": {"job_id": "absent"}},
        ("GET", "/healthz"): {},
        ("GET", "/readyz"): {},
    }


# ------------------------------------------------------------------ the schema's string fields
Where = tuple[str, tuple[Any, ...], str]
"""``(location, path, shape)``: location ``body``/``query``/``path``/``header``; the key path;
shape ``str`` (the value itself), ``list`` (``[value]``) or ``map`` (``{"k": value}``)."""


def _deref(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _branches(schema: dict[str, Any], spec: dict[str, Any]) -> list[dict[str, Any]]:
    schema = _deref(schema, spec)
    nested = schema.get("anyOf") or schema.get("oneOf")
    if nested:
        return [b for n in nested for b in _branches(n, spec)]
    return [schema]


def _string_fields(
    schema: dict[str, Any], spec: dict[str, Any], prefix: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every place under ``schema`` a string goes, as ``(key path, shape)``."""
    branches = _branches(schema, spec)
    if prefix and any(b.get("type") == "string" for b in branches):
        yield prefix, "str"
        return
    for branch in branches:
        if branch.get("type") == "array":
            items = _branches(branch.get("items", {}), spec)
            if any(i.get("type") == "string" for i in items):
                yield prefix, "list"
            elif any(i.get("properties") for i in items):
                yield from _string_fields(branch["items"], spec, (*prefix, 0))
        elif branch.get("properties"):
            for name, sub in branch["properties"].items():
                yield from _string_fields(sub, spec, (*prefix, name))
        elif branch.get("type") == "object" and prefix:
            yield prefix, "map"


def _operation_fields(spec: dict[str, Any], method: str, path: str) -> list[Where]:
    operation = spec["paths"][path][method.lower()]
    fields: list[Where] = []
    for parameter in operation.get("parameters", []):
        if any(b.get("type") == "string" for b in _branches(parameter["schema"], spec)):
            fields.append((parameter["in"], (parameter["name"],), "str"))
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body:
        fields += [("body", keys, shape) for keys, shape in _string_fields(body["schema"], spec)]
    return fields


# ------------------------------------------------------------------------------- sending
def _put(body: Any, keys: tuple[Any, ...], value: Any) -> Any:
    body = copy.deepcopy(body) if body is not None else {}
    target = body
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value
    return body


def _shaped(shape: str, value: str) -> Any:
    return {"str": value, "list": [value], "map": {"k": value}}[shape]


class Sweep:
    """Sends requests and collects what went wrong, as one line each."""

    def __init__(self, api: Api, caplog: pytest.LogCaptureFixture) -> None:
        self.api = api
        self.caplog = caplog
        self.problems: list[str] = []
        self.sent = 0
        self.footprint = api.footprint()

    def send(
        self,
        label: str,
        method: str,
        path_template: str,
        base: dict[str, Any],
        *,
        where: Where | None = None,
        value: str | None = None,
        raw_body: bytes | None = None,
    ) -> None:
        path_values = dict(base.get("path", {}))
        query = dict(base.get("query", {}))
        extra_headers: dict[str, str] = {}
        body = base.get("body")
        if where is not None:
            location, keys, shape = where
            placed = _shaped(shape, value or "")
            if location == "body":
                body = _put(body, keys, placed)
            elif location == "query":
                query[keys[0]] = placed
            elif location == "path":
                path_values[keys[0]] = placed
            else:
                extra_headers[keys[0]] = placed
        url = path_template.format(
            **{k: quote(v, safe="", errors="surrogatepass") for k, v in path_values.items()}
        )
        content = (
            raw_body
            if raw_body is not None
            else (None if body is None else json.dumps(body).encode())
        )
        headers = {"Content-Type": "application/json"} if content is not None else {}
        self.caplog.clear()
        try:
            response = self.api.request(
                method, url, params=query, content=content, headers={**headers, **extra_headers}
            )
        except (httpx.LocalProtocolError, httpx.InvalidURL, UnicodeEncodeError):
            return  # HTTP cannot carry it (a header with NUL, a 1 MB URL): never sent
        self.sent += 1
        self._check(label, method, response)

    def _check(self, label: str, method: str, response: httpx.Response) -> None:
        status = response.status_code
        if status >= 500:
            self.problems.append(f"{label}: {status} {response.text[:200]}")
        logged = [
            r for r in self.caplog.records if r.levelno >= logging.ERROR or r.exc_info is not None
        ]
        if logged:
            self.problems.append(
                f"{label}: logged {logged[0].levelname} {logged[0].getMessage()}"
                f"{' with a traceback' if logged[0].exc_info else ''}"
            )
        if method in WRITES:
            now = self.api.footprint()
            if status >= 400 and now != self.footprint:
                self.problems.append(
                    f"{label}: refused ({status}) but the counts moved {self.footprint} -> {now}"
                )
            self.footprint = now


# --------------------------------------------------------------------------------- tests
@pytest.fixture
def sweep(api: Api, caplog: pytest.LogCaptureFixture) -> Sweep:
    caplog.set_level(logging.WARNING)
    for thought_id in (SEED, OTHER):
        api.thought(f"seed {thought_id}", thought_id=thought_id)
    return Sweep(api, caplog)


def test_every_operation_is_swept(client) -> None:
    spec = client.app.openapi()
    operations = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
    assert operations == set(_base_requests())


@pytest.mark.parametrize("operation", sorted(_base_requests()), ids=" ".join)
def test_no_hostile_string_is_a_server_error_or_a_partial_write(client, sweep, operation) -> None:
    method, path = operation
    base = _base_requests()[operation]
    fields = _operation_fields(client.app.openapi(), method, path)
    for where in fields:
        name = ".".join(str(k) for k in where[1])
        for label, value in HOSTILE.items():
            sweep.send(
                f"{method} {path} {where[0]}:{name}={label}",
                method,
                path,
                base,
                where=where,
                value=value,
            )
    if "body" in base:
        for label, raw in _hostile_bodies(base["body"]).items():
            sweep.send(f"{method} {path} body={label}", method, path, base, raw_body=raw)
    assert not sweep.problems, "\n".join(sweep.problems)


def _hostile_bodies(body: dict[str, Any]) -> dict[str, bytes]:
    text = json.dumps({**body, "note": "café"}, ensure_ascii=False)
    return {
        "latin-1": text.encode("latin-1", errors="replace"),
        "utf-16": json.dumps(body).encode("utf-16"),
        "nested-5000": b"[" * 5000 + b"]" * 5000,
        "nested-metadata-900": json.dumps({**body, "metadata": _nested(900)}).encode(),
        "garbage-1mb": bytes(range(256)) * 4096,
        "not-an-object": b'"just a string"',
    }


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"k": value}
    return value
