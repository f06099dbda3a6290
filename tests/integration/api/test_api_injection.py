"""Cypher (and Lucene) injection: hostile strings in every string field of every write and query
body, in path ids and in the namespace header, are stored and returned as data and change
nothing outside the request's namespace."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest

from tests.integration.api.conftest import Api

PAYLOADS = [
    "'",
    '"',
    "{}",
    "}) DETACH DELETE n //",
    "$x",
    "`",
    "\\",
    "\\'",
    "') RETURN 1 //",
    "MATCH (n) DETACH DELETE n",
    "x' OR 1=1 OR 'x'='",
    "{{> thoughts/_filter}}",
    '+ns_token:* OR *:* AND ("a" || b) ~2 ^9 [a TO z] /re.*/ ?',
    "ünïcødé ✓ 🧠 中文 Ωμέγα",
    "line\nbreak\ttab\r",
    "${namespace}",
    "CALL apoc.periodic.iterate('x')",
]  # NUL is refused, not stored (test_api_hostile_inputs.py)


def _as_id(payload: str, i: int) -> str:
    """The payload as a thought id: an id is one URL path segment, so '/', '\\' and control
    characters (refused up front, engrava_graph/model/ids.py) become '_'; the rest stays hostile."""
    return "".join("_" if c in "/\\" or ord(c) < 32 else c for c in payload) + f"-{i}"


IDS = [_as_id(p, i) for i, p in enumerate(PAYLOADS)]


def _thought(tid: str, text: str) -> dict[str, Any]:
    return {
        "thought_id": tid,
        "thought_type": "OBSERVATION",
        "essence": text,
        "content": text,
        "source": text,
        "metadata": {"note": text, "nested": {"deep": text}},
        "tags": [text.strip()[:64] or "blank"],
        "consolidated_from": [text],
    }


def _path_id(tid: str) -> str:
    """The id as a path segment."""
    return quote(tid, safe="")


@pytest.fixture
def sentinel(make_api: Callable[..., Api]) -> Api:
    """Another namespace with thoughts, an edge, entities and tags, to watch."""
    other = make_api()
    a = other.thought("Alice met Bob in Lisbon", tags=["travel"])
    b = other.thought("Bob moved to Berlin", tags=["travel", "moves"])
    edge = {
        "from_thought_id": a["thought_id"],
        "to_thought_id": b["thought_id"],
        "edge_type": "LEADS_TO",
    }
    assert other.post("/v1/edges", json=edge).status_code == 201
    return other


def _all_thoughts(api: Api) -> dict[str, dict[str, Any]]:
    page = api.get("/v1/thoughts", params={"limit": 500})
    assert page.status_code == 200, page.text
    return {t["thought_id"]: t for t in page.json()["thoughts"]}


def test_hostile_strings_are_data_in_every_write_and_query(api: Api, sentinel: Api) -> None:
    before = sentinel.footprint()
    first, rest = IDS[0], IDS[1:]
    assert api.post("/v1/thoughts", json=_thought(first, PAYLOADS[0])).status_code == 201
    bulk = api.post(
        "/v1/thoughts:bulk",
        json={"thoughts": [_thought(t, p) for t, p in zip(rest, PAYLOADS[1:], strict=True)]},
    )
    assert bulk.status_code == 201, bulk.text

    stored = _all_thoughts(api)
    for tid, text in zip(IDS, PAYLOADS, strict=True):
        got = stored[tid]
        assert (got["essence"], got["content"], got["source"]) == (text, text, text)
        assert got["metadata"] == {"note": text, "nested": {"deep": text}}
        assert got["consolidated_from"] == [text]
        assert got["tags"] == [text.strip()[:64].lower() or "blank"]

    for i, (tid, text) in enumerate(zip(IDS, PAYLOADS, strict=True)):
        segment = _path_id(tid)
        patched = api.patch(
            f"/v1/thoughts/{segment}",
            json={"essence": text + "!", "metadata": {"again": text}, "tags": ["t" + text[:60]]},
        )
        assert patched.status_code == 200, (tid, patched.text)
        assert patched.json()["essence"] == text + "!"
        assert patched.json()["metadata"] == {"again": text}
        assert api.get(f"/v1/thoughts/{segment}").json()["essence"] == text + "!"
        target = IDS[(i + 1) % len(IDS)]
        edge = api.post(
            "/v1/edges",
            json={
                "edge_id": "e" + tid,
                "from_thought_id": tid,
                "to_thought_id": target,
                "edge_type": "ASSOCIATED",
                "metadata": {"why": text},
            },
        )
        assert edge.status_code == 201, edge.text
        edges = api.get(f"/v1/thoughts/{segment}/edges", params={"direction": "OUT"}).json()
        assert [(e["edge_id"], e["metadata"]) for e in edges] == [("e" + tid, {"why": text})]

    for text in PAYLOADS:
        for route in ("/v1/retrieve", "/v1/explain"):
            response = api.post(route, json={"query": text, "metadata_filter": {"note": text}})
            assert response.status_code in (200, 422), (route, text, response.text)
        listed = api.get(
            "/v1/thoughts",
            params={"metadata_filter": json.dumps({"note": [text, "x"]}), "cursor": text},
        )
        assert listed.status_code == 200, listed.text
        bad_key = api.post("/v1/retrieve", json={"query": "x", "metadata_filter": {text: 1}})
        assert bad_key.status_code == 422
        bad_meta_key = api.post("/v1/thoughts", json={**_thought("k", "k"), "metadata": {text: 1}})
        assert bad_meta_key.status_code == 422
        if text.isprintable():  # HTTP header values cannot carry control characters
            as_header = api.client.get(
                "/v1/thoughts",
                headers={"Authorization": f"Bearer {api.key}", "X-Namespace": text.encode()},
            )
            assert as_header.status_code == 422, as_header.text

    # Every thought was patched above: its metadata is now {"again": text}.
    hit = api.post(
        "/v1/retrieve", json={"query": "x", "metadata_filter": {"again": PAYLOADS[3]}}
    ).json()
    assert [r["thought_id"] for r in hit["results"]] == [IDS[3]]
    assert set(_all_thoughts(api)) == set(IDS)
    assert sentinel.footprint() == before


def test_hostile_path_ids_change_nothing(api: Api, sentinel: Api) -> None:
    api.thought("the only thought")
    before, mine = sentinel.footprint(), api.footprint()
    for text in PAYLOADS:
        segment = quote(text, safe="")
        for method, path in (
            ("GET", f"/v1/thoughts/{segment}"),
            ("DELETE", f"/v1/thoughts/{segment}"),
            ("PATCH", f"/v1/thoughts/{segment}"),
            ("POST", f"/v1/thoughts/{segment}/restore"),
            ("GET", f"/v1/thoughts/{segment}/edges"),
            ("GET", f"/v1/edges/{segment}"),
            ("DELETE", f"/v1/edges/{segment}"),
            ("GET", f"/v1/dream/{segment}"),
        ):
            kwargs = {"json": {"essence": "x"}} if method == "PATCH" else {}
            response = api.request(method, path, **kwargs)
            assert response.status_code in (404, 405, 422), (method, path, response.text)
    assert (sentinel.footprint(), api.footprint()) == (before, mine)
