"""/v1/edges and /v1/thoughts/{id}/edges: create, duplicates, missing endpoints, list, delete."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.api.conftest import Api


@pytest.fixture
def pair(api: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    return api.thought("the deploy failed"), api.thought("a config flag was wrong")


def _edge(
    a: dict[str, Any], b: dict[str, Any], edge_type: str = "CAUSED_BY", **fields: Any
) -> dict[str, Any]:
    return {
        "from_thought_id": a["thought_id"],
        "to_thought_id": b["thought_id"],
        "edge_type": edge_type,
        **fields,
    }


def test_create_read_and_list_by_direction(api: Api, pair: Any) -> None:
    a, b = pair
    made = api.post(
        "/v1/edges", json=_edge(a, b, weight=0.7, confidence=0.9, metadata={"why": "postmortem"})
    )
    assert made.status_code == 201, made.text
    edge = made.json()
    assert edge["created_at"] and edge["edge_type"] == "CAUSED_BY"
    assert api.get(f"/v1/edges/{edge['edge_id']}").json() == edge
    out_a = api.get(f"/v1/thoughts/{a['thought_id']}/edges", params={"direction": "OUT"})
    assert [e["edge_id"] for e in out_a.json()] == [edge["edge_id"]]
    assert api.get(f"/v1/thoughts/{a['thought_id']}/edges", params={"direction": "IN"}).json() == []
    assert [e["edge_id"] for e in api.get(f"/v1/thoughts/{b['thought_id']}/edges").json()] == [
        edge["edge_id"]
    ]


def test_duplicate_edge_is_409(api: Api, pair: Any) -> None:
    a, b = pair
    first = api.post("/v1/edges", json=_edge(a, b))
    assert first.status_code == 201
    again = api.post("/v1/edges", json=_edge(a, b, weight=0.2))
    assert again.status_code == 409
    assert again.json()["error"] == "duplicate_edge"
    same_id = api.post("/v1/edges", json=_edge(b, a, "ASSOCIATED", edge_id=first.json()["edge_id"]))
    assert same_id.status_code == 409
    assert api.post("/v1/edges", json=_edge(b, a)).status_code == 201  # other direction


def test_missing_endpoint_and_bad_edges_are_422(api: Api, pair: Any) -> None:
    a, _ = pair
    missing = api.post("/v1/edges", json=_edge(a, {"thought_id": "ghost"}))
    assert missing.status_code == 422
    assert missing.json()["error"] == "unknown_endpoint" and "ghost" in missing.json()["message"]
    loop = api.post("/v1/edges", json=_edge(a, a))
    assert loop.status_code == 422 and "itself" in loop.json()["message"]
    assert loop.json()["field"] == "to_thought_id"
    inverted = api.post(
        "/v1/edges",
        json=_edge(a, {"thought_id": "x"}, valid_from="2024-02-01", valid_until="2024-01-01"),
    )
    assert inverted.status_code == 422 and inverted.json()["field"] == "valid_until"
    assert "before valid_from" in inverted.json()["message"]
    unsure = api.post(
        "/v1/edges",
        content=b'{"from_thought_id": "a", "to_thought_id": "b", "edge_type": "CAUSED_BY", '
        b'"confidence": NaN}',
        headers={"Content-Type": "application/json"},
    )
    assert unsure.status_code == 422 and unsure.json()["field"] == "confidence"
    assert "finite number" in unsure.json()["message"]
    heavy = api.post("/v1/edges", json=_edge(a, {"thought_id": "x"}, weight=1.5))
    assert heavy.status_code == 422 and heavy.json()["field"] == "weight"
    bad_type = api.post("/v1/edges", json=_edge(a, {"thought_id": "x"}, "LIKES"))
    assert bad_type.status_code == 422 and bad_type.json()["field"] == "edge_type"


def test_delete_and_unknown_ids(api: Api, pair: Any) -> None:
    a, b = pair
    edge_id = api.post("/v1/edges", json=_edge(a, b)).json()["edge_id"]
    assert api.delete(f"/v1/edges/{edge_id}").status_code == 204
    gone = api.delete(f"/v1/edges/{edge_id}")
    assert gone.status_code == 404 and gone.json()["error"] == "edge_not_found"
    assert api.get(f"/v1/edges/{edge_id}").status_code == 404
    unknown = api.get("/v1/thoughts/ghost/edges")
    assert unknown.status_code == 404 and unknown.json()["error"] == "thought_not_found"
    assert (
        api.get(f"/v1/thoughts/{a['thought_id']}/edges", params={"direction": "UP"}).status_code
        == 422
    )


def test_deleting_a_thought_removes_its_edges(api: Api, pair: Any) -> None:
    a, b = pair
    api.post("/v1/edges", json=_edge(a, b))
    assert api.delete(f"/v1/thoughts/{a['thought_id']}").status_code == 204
    assert api.get(f"/v1/thoughts/{b['thought_id']}/edges").json() == []
