"""Values Neo4j cannot hold are a 422 naming the field, never a 500, and store nothing: integers
outside signed 64 bits, NaN/Infinity (JSON literals Python accepts), instants whose UTC value
leaves the calendar. Counters that Cypher increments saturate at 2**63-1."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.api.conftest import Api

INT64_MAX = 2**63 - 1
OFF_CALENDAR = "0001-01-01T00:00:00+00:01"  # UTC: 31 Dec of year 0

# (bad fields of a thought, the field the 422 names; inside a bulk: "thoughts.<i>.<field>")
BAD_THOUGHTS: list[tuple[dict[str, Any], str]] = [
    ({"access_count": 2**63}, "access_count"),
    ({"confirmation_count": 2**63}, "confirmation_count"),
    ({"updated_cycle": 2**63}, "updated_cycle"),
    ({"archived_at_cycle": 2**63}, "archived_at_cycle"),
    ({"created_cycle": -1}, "created_cycle"),
    ({"metadata": {"n": 2**64}}, "metadata"),
    ({"metadata": {"a": {"n": -(2**63) - 1}}}, "metadata"),
    ({"metadata": {"f": float("nan")}}, "metadata"),
    ({"expires_at": OFF_CALENDAR}, "expires_at"),
    ({"valid_until": "9999-12-31T23:59:00-00:01"}, "valid_until"),
    ({"confidence": float("nan")}, "confidence"),
    ({"confidence": float("inf")}, "confidence"),
    ({"essence": ""}, "essence"),
    ({"essence": "\u200b"}, "essence"),  # invisible characters only: blank, as empty
    ({"content": " \u2060\ufeff "}, "content"),
]


def _body(**fields: Any) -> dict[str, Any]:
    return {
        "thought_type": "NOTE",
        "essence": "bounds",
        "content": "bounds",
        "source": "api-test",
        **fields,
    }


def _post(api: Api, path: str, body: Any) -> Any:
    """POST ``body`` as JSON text with Python's literals (``NaN``, ``Infinity``) kept."""
    return api.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})


def _refused(api: Api, path: str, body: Any, field: str, method: str = "POST") -> dict[str, Any]:
    """Send ``body``; assert 422 naming ``field`` and no change to the namespace in Neo4j."""
    before = api.footprint()
    response = api.request(
        method, path, content=json.dumps(body), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json()["field"] == field, response.text
    assert api.footprint() == before
    return response.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("fields,field", BAD_THOUGHTS)
def test_a_bad_thought_is_422_alone_and_in_a_bulk(
    api: Api, fields: dict[str, Any], field: str
) -> None:
    api.thought("already here")
    _refused(api, "/v1/thoughts", _body(**fields), field)
    bulk = {"thoughts": [_body(**fields), _body(essence="fine")]}
    _refused(api, "/v1/thoughts:bulk", bulk, f"thoughts.0.{field}")
    later = {"thoughts": [_body(essence="fine"), _body(**fields)]}
    _refused(api, "/v1/thoughts:bulk", later, f"thoughts.1.{field}")


def test_the_messages_say_what_is_wrong(api: Api) -> None:
    api.thought("already here")
    nested = _refused(api, "/v1/thoughts", _body(metadata={"a": {"n": 2**64}}), "metadata")
    assert "'a.n'" in nested["message"] and "signed 64-bit" in nested["message"]
    instant = _refused(
        api,
        "/v1/thoughts:bulk",
        {"thoughts": [_body(expires_at=OFF_CALENDAR)]},
        "thoughts.0.expires_at",
    )
    assert "outside the representable instants" in instant["message"]
    nan = _refused(api, "/v1/thoughts", _body(confidence=float("nan")), "confidence")
    assert "finite" in nan["message"]


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_options_embeddings_and_edge_numbers_are_422(api: Api, value: float) -> None:
    a, b = api.thought("edge start")["thought_id"], api.thought("edge end")["thought_id"]
    _refused(api, "/v1/thoughts", _body(expires_after_seconds=value), "expires_after_seconds")
    _refused(api, "/v1/thoughts", _body(embedding=[value] * 384), "embedding.0")
    _refused(
        api,
        "/v1/thoughts:bulk",
        {"thoughts": [_body()], "embeddings": [[0.1, value]]},
        "embeddings.0.1",
    )
    edge = {"from_thought_id": a, "to_thought_id": b, "edge_type": "ASSOCIATED"}
    for field in ("weight", "confidence", "decay_multiplier"):
        _refused(api, "/v1/edges", {**edge, field: value}, field)
    _refused(api, "/v1/edges", {**edge, "created_cycle": 2**63}, "created_cycle")
    _refused(api, "/v1/edges", {**edge, "metadata": {"n": 2**64}}, "metadata")


def test_patch_restore_and_dream_refuse_out_of_range_values(api: Api) -> None:
    made = api.thought("to patch")
    path = f"/v1/thoughts/{made['thought_id']}"
    _refused(api, path, {"updated_cycle": 2**63}, "updated_cycle", method="PATCH")
    _refused(api, path, {"metadata": {"n": 2**64}}, "metadata", method="PATCH")
    _refused(api, path, {"confidence": float("nan")}, "confidence", method="PATCH")
    _refused(api, path, {"valid_from": OFF_CALENDAR}, "valid_from", method="PATCH")
    _refused(api, f"{path}/restore", {"current_cycle": 2**63}, "current_cycle")
    _refused(api, "/v1/dream", {"current_cycle": 2**63}, "current_cycle")
    assert api.get(path).json() == made


def test_reads_refuse_out_of_range_filters_and_instants(api: Api) -> None:
    api.thought("something to find")
    for body, field in (
        ({"metadata_filter": {"n": 2**64}}, "metadata_filter"),
        ({"current_cycle": 2**63}, "current_cycle"),
        ({"recency_now": OFF_CALENDAR}, "recency_now"),
        ({"now": OFF_CALENDAR}, "now"),
        ({"min_confidence": float("nan")}, "min_confidence"),
    ):
        for route in ("/v1/retrieve", "/v1/explain"):
            _refused(api, route, {"query": "something", **body}, field)
    listed = api.get("/v1/thoughts", params={"metadata_filter": json.dumps({"n": 2**64})})
    assert listed.status_code == 422 and listed.json()["field"] == "metadata_filter"
    assert api.get("/v1/thoughts", params={"min_cycle": 2**63}).status_code == 422
    empty_range = api.get("/v1/thoughts", params={"min_cycle": 5, "max_cycle": 3})
    assert empty_range.status_code == 422 and empty_range.json()["field"] == "min_cycle"
    assert "above max_cycle" in empty_range.json()["message"]


def test_a_now_at_the_end_of_the_calendar_still_resolves_relative_time(api: Api) -> None:
    api.thought("the audit happened this year")
    for query in ("what happened this year", "what happened this month", "what happened today"):
        answer = _post(api, "/v1/retrieve", {"query": query, "now": "9999-12-31T23:59:59Z"})
        assert answer.status_code == 200, answer.text


def test_the_largest_values_are_stored_and_counters_saturate(api: Api) -> None:
    top = api.thought(
        "counted to the top",
        access_count=INT64_MAX,
        confirmation_count=INT64_MAX,
        created_cycle=INT64_MAX,
        updated_cycle=INT64_MAX,
        metadata={"lo": -(2**63), "hi": INT64_MAX},
        valid_from="0001-01-01T00:00:00Z",
        valid_until="9999-12-31T23:59:59.999999Z",
    )
    again = _post(
        api,
        "/v1/thoughts",
        _body(  # same interval: dedup confirms (docs/api.md)
            essence="counted to the top",
            content="counted to the top",
            deduplicate=True,
            valid_from="0001-01-01T00:00:00Z",
            valid_until="9999-12-31T23:59:59.999999Z",
        ),
    )
    assert again.status_code == 200, again.text
    assert again.json()["confirmation_count"] == INT64_MAX
    store = api.client.app.state.api.store(api.namespace)
    api.client.portal.call(store.record_access, top["thought_id"])
    stored = api.get(f"/v1/thoughts/{top['thought_id']}").json()
    assert stored["access_count"] == INT64_MAX and stored["confirmation_count"] == INT64_MAX
    assert stored["metadata"] == {"lo": -(2**63), "hi": INT64_MAX}
    assert stored["valid_from"].startswith("0001-01-01T00:00:00")


def test_a_refused_create_does_not_register_the_namespace(api: Api) -> None:
    """The namespace is registered by the write's own transaction: a 422 or 409 leaves a new
    namespace unknown (reads stay 404), the first accepted write makes it exist."""
    assert _post(api, "/v1/thoughts", _body(essence=5)).status_code == 422
    repeated = {"thoughts": [_body(thought_id="same"), _body(thought_id="same")]}
    assert _post(api, "/v1/thoughts:bulk", repeated).status_code == 422
    assert api.get("/v1/thoughts").json()["error"] == "namespace_not_found"
    api.thought("accepted")
    assert api.get("/v1/thoughts").status_code == 200


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/v1/retrieve", '{"query": "x", "top_k": %s}', "top_k"),
        ("/v1/thoughts:bulk", '{"thoughts": [{"created_cycle": -%s}]}', "thoughts.0.created_cycle"),
    ],
    ids=["top_k", "nested"],
)
def test_an_integer_too_long_to_parse_is_a_422_naming_its_field(
    api: Api, path: str, body: str, field: str
) -> None:
    api.thought("already here")
    before = api.footprint()
    response = api.post(
        path, content=body % ("9" * 5000), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert (response.json()["error"], response.json()["field"]) == ("invalid_request", field)
    assert response.json()["message"].startswith(f"{field}: an integer of 5000 digits")
    assert api.footprint() == before
