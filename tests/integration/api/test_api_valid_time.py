"""``GET /v1/thoughts`` filters by valid time, and deduplication over REST keeps every validity
interval (issue 15, item 5), on the real Neo4j."""

from __future__ import annotations

import pytest

FACT = {
    "thought_type": "OBSERVATION",
    "essence": "Ann leads the data team",
    "content": "Ann leads the data team",
    "source": "api-test",
    "deduplicate": True,
}


def ids(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [t["thought_id"] for t in response.json()["thoughts"]]


def test_a_deduplicated_fact_stays_listable_in_each_of_its_intervals(api) -> None:
    first = api.post(
        "/v1/thoughts",
        json={**FACT, "valid_from": "2023-01-01T00:00:00Z", "valid_until": "2023-02-01T00:00:00Z"},
    )
    second = api.post(
        "/v1/thoughts",
        json={**FACT, "valid_from": "2024-05-01T00:00:00Z", "valid_until": "2024-06-01T00:00:00Z"},
    )
    again = api.post(
        "/v1/thoughts",
        json={**FACT, "valid_from": "2024-05-10T00:00:00Z", "valid_until": "2024-05-20T00:00:00Z"},
    )
    assert (first.status_code, second.status_code, again.status_code) == (201, 201, 200)
    old, new = first.json()["thought_id"], second.json()["thought_id"]
    assert again.json()["thought_id"] == new and again.json()["confirmation_count"] == 1

    assert ids(api.get("/v1/thoughts", params={"valid_at": "2023-01-15T00:00:00Z"})) == [old]
    assert ids(api.get("/v1/thoughts", params={"valid_at": "2024-05-15"})) == [new]
    assert ids(api.get("/v1/thoughts", params={"valid_at": "2023-09-01T00:00:00Z"})) == []
    assert sorted(
        ids(
            api.get(
                "/v1/thoughts", params={"valid_within": "2023-01-20T00:00:00Z/2024-05-02T00:00:00Z"}
            )
        )
    ) == sorted([old, new])
    assert ids(
        api.get(
            "/v1/thoughts", params={"valid_between": "2024-01-01T00:00:00Z/2024-12-31T00:00:00Z"}
        )
    ) == [new]


@pytest.mark.parametrize(
    "params, field",
    [
        ({"valid_at": "yesterday"}, "valid_at"),
        ({"valid_within": "2024-05-01"}, "valid_within"),
        ({"valid_between": "2024-06-01/2024-05-01"}, "valid_between"),
        ({"valid_at": "2024-05-01", "valid_within": "2024-05-01/2024-06-01"}, "valid_at"),
    ],
)
def test_a_bad_valid_time_parameter_is_a_422_naming_it(api, params, field) -> None:
    api.thought("the namespace exists")
    response = api.get("/v1/thoughts", params=params)
    assert response.status_code == 422, response.text
    body = response.json()
    assert (body["error"], body["field"]) == ("invalid_request", field), body
    assert body["message"].startswith(f"{field}: ")
