"""/v1/thoughts: create, dedup, read, patch, lifecycle, delete, restore, list + cursor, bulk."""

from __future__ import annotations

import json
import uuid
from urllib.parse import quote

from engrava_graph.model.metadata import MAX_METADATA_KEYS
from tests.integration.api.conftest import Api
from tests.integration.test_hand_edited_nodes import _in_browser


def _body(essence: str, **fields: object) -> dict[str, object]:
    return {
        "thought_type": "OBSERVATION",
        "essence": essence,
        "content": essence,
        "source": "api-test",
        **fields,
    }


def test_create_then_read_back(api: Api) -> None:
    made = api.thought(
        "Ann prefers tea over coffee",
        priority="P1",
        tags=["Drinks"],
        metadata={"speaker": "ann", "turn": 3},
    )
    assert made["created_at"] and made["updated_at"]
    got = api.get(f"/v1/thoughts/{made['thought_id']}")
    assert got.status_code == 200
    assert got.json() == made
    assert got.json()["tags"] == ["drinks"]


def test_source_is_optional_with_the_default_the_schema_states(api: Api) -> None:
    body = {"thought_type": "NOTE", "essence": "no source given", "content": "c"}
    made = api.post("/v1/thoughts", json=body)
    assert made.status_code == 201, made.text
    assert made.json()["source"] == "api"
    schema = api.get("/openapi.json").json()["components"]["schemas"]["ThoughtCreate"]
    assert "source" not in schema["required"]
    assert schema["properties"]["source"]["default"] == "api"
    blank = api.post("/v1/thoughts", json={**body, "source": " "})
    assert blank.status_code == 422 and blank.json()["field"] == "source"


def test_create_keeps_a_given_id_and_refuses_it_twice(api: Api) -> None:
    tid = f"my-{uuid.uuid4().hex}"
    assert api.post("/v1/thoughts", json=_body("first", thought_id=tid)).status_code == 201
    again = api.post("/v1/thoughts", json=_body("second", thought_id=tid))
    assert again.status_code == 409
    assert again.json()["error"] == "duplicate_thought"
    assert tid in again.json()["message"]


def test_deduplicate_confirms_the_existing_thought_with_200(api: Api) -> None:
    first = api.thought("the build is green")
    again = api.post("/v1/thoughts", json=_body("the build is green", deduplicate=True))
    assert again.status_code == 200
    assert again.json()["thought_id"] == first["thought_id"]
    assert again.json()["confirmation_count"] == 1


def test_create_with_ttl_and_embedding(api: Api) -> None:
    made = api.post(
        "/v1/thoughts",
        json=_body("short lived", expires_after_seconds=3600, embedding=[0.0] * 383 + [1.0]),
    )
    assert made.status_code == 201, made.text
    assert made.json()["expires_at"] is not None
    wrong = api.post("/v1/thoughts", json=_body("bad vector", embedding=[1.0, 2.0]))
    assert wrong.status_code == 422
    assert "384" in wrong.json()["message"]


def test_a_zero_norm_embedding_is_422_and_retrieval_keeps_working(api: Api) -> None:
    api.thought("Ann prefers tea over coffee")
    zero = api.post("/v1/thoughts", json=_body("zero vector", embedding=[0.0] * 384))
    assert zero.status_code == 422, zero.text
    assert zero.json()["error"] == "validation_failed"
    assert "non-zero, finite length (L2 norm) as float32" in zero.json()["message"]
    bulk = api.post(
        "/v1/thoughts:bulk", json={"thoughts": [_body("tiny")], "embeddings": [[1e-300] * 384]}
    )
    assert bulk.status_code == 422, bulk.text
    retrieved = api.post("/v1/retrieve", json={"query": "What does Ann drink?"})
    assert retrieved.status_code == 200, retrieved.text
    assert [r["text"] for r in retrieved.json()["results"]] == ["Ann prefers tea over coffee"]


def test_validation_errors_name_the_field(api: Api) -> None:
    too_long = api.post("/v1/thoughts", json=_body("x" * 201))
    assert too_long.status_code == 422
    assert too_long.json()["field"] == "essence"
    assert too_long.json()["error"] == "invalid_request"
    unknown = api.post("/v1/thoughts", json=_body("ok", mood="happy"))
    assert unknown.status_code == 422 and unknown.json()["field"] == "mood"
    bad_type = api.post("/v1/thoughts", json=_body("ok", thought_type="IDEA"))
    assert bad_type.status_code == 422 and bad_type.json()["field"] == "thought_type"
    not_json = api.post(
        "/v1/thoughts", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert not_json.status_code == 422
    assert set(not_json.json()) == {"error", "message", "field"}


def test_an_unknown_query_parameter_is_422_naming_it(api: Api) -> None:
    """A typo of a filter (``thoughttype``) is refused, not ignored (which would answer the
    unfiltered list); a parameter an endpoint does not take is refused the same way."""
    assert api.post("/v1/thoughts", json=_body("a note")).status_code == 201
    typo = api.get("/v1/thoughts", params={"thoughttype": "NOTE"})
    assert typo.status_code == 422, typo.text
    body = typo.json()
    assert body["error"] == "invalid_request" and body["field"] == "thoughttype"
    assert "thought_type" in body["message"]  # it says what the endpoint takes
    assert api.get("/v1/thoughts", params={"thought_type": "NOTE"}).status_code == 200
    edges = api.get(f"/v1/thoughts/{uuid.uuid4()}/edges", params={"directon": "IN"})
    assert edges.status_code == 422 and edges.json()["field"] == "directon"
    retrieve = api.post("/v1/retrieve", params={"top_k": "3"}, json={"query": "deploy"})
    assert retrieve.status_code == 422 and "no query parameters" in retrieve.json()["message"]
    twice = api.get("/v1/thoughts", params=[("limit", "1"), ("limit", "2")])
    assert twice.status_code == 422 and twice.json()["field"] == "limit"  # not the last one kept
    assert "give it once" in twice.json()["message"]
    anonymous = api.as_key(None).get("/v1/thoughts", params={"bogus": "1"})
    assert anonymous.status_code == 401  # the key first: no parameter list for a caller without


def test_ids_that_no_url_path_can_address_are_422_naming_the_field(api: Api) -> None:
    for bad in ("notes/today", "..", "a\\b", "tab\tid"):
        refused = api.post("/v1/thoughts", json=_body("x", thought_id=bad))
        assert refused.status_code == 422, (bad, refused.text)
        assert refused.json()["field"] == "thought_id", refused.json()
    bulk = api.post(
        "/v1/thoughts:bulk", json={"thoughts": [_body("a"), _body("b", thought_id=".")]}
    )
    assert bulk.status_code == 422 and bulk.json()["field"] == "thoughts.1.thought_id"
    twice = [
        _body("a", thought_id="t-1"),
        _body("b", thought_id="t-2"),
        _body("c", thought_id="t-1"),
    ]
    repeated = api.post("/v1/thoughts:bulk", json={"thoughts": twice})
    assert repeated.status_code == 422, repeated.text  # not 409: a retry would read it as done
    assert repeated.json()["error"] == "repeated_thought_id"
    assert repeated.json()["field"] == "thoughts.2.thought_id"
    assert api.get("/v1/thoughts/t-2").status_code == 404  # nothing was stored
    for fine in ("D1:3", "a..b", "note 7?", "café#1"):
        made = api.post("/v1/thoughts", json=_body(fine, thought_id=fine))
        assert made.status_code == 201, (fine, made.text)
        assert api.get(f"/v1/thoughts/{quote(fine, safe='')}").json()["essence"] == fine


def test_a_bulk_write_refusal_names_the_field_at_fault(api: Api) -> None:
    """A stored id names its position; too few embeddings name ``embeddings``, a bad one its
    index; a single thought's bad embedding names ``embedding``. Nothing is stored."""
    api.post("/v1/thoughts", json=_body("first", thought_id="b-1"))
    batch = [_body("new", thought_id="b-2"), _body("again", thought_id="b-1")]
    taken = api.post("/v1/thoughts:bulk", json={"thoughts": batch})
    assert taken.status_code == 409 and taken.json()["error"] == "duplicate_thought"
    assert taken.json()["field"] == "thoughts.1.thought_id", taken.json()
    one = [_body("new", thought_id="b-2")]
    short = api.post("/v1/thoughts:bulk", json={"thoughts": one, "embeddings": []})
    assert short.status_code == 422 and short.json()["field"] == "embeddings", short.json()
    bad = api.post("/v1/thoughts:bulk", json={"thoughts": one, "embeddings": [[1.0, 2.0, 3.0]]})
    assert bad.status_code == 422 and bad.json()["field"] == "embeddings.0", bad.json()
    single = api.post("/v1/thoughts", json=_body("x", thought_id="b-3", embedding=[1.0, 2.0]))
    assert single.status_code == 422 and single.json()["field"] == "embedding", single.json()
    assert api.get("/v1/thoughts/b-2").status_code == 404
    assert api.get("/v1/thoughts/b-3").status_code == 404


def test_unknown_ids_are_404(api: Api) -> None:
    api.thought("makes the namespace exist")
    for method, path in (
        ("GET", "/v1/thoughts/nope"),
        ("PATCH", "/v1/thoughts/nope"),
        ("DELETE", "/v1/thoughts/nope"),
        ("POST", "/v1/thoughts/nope/restore"),
    ):
        kwargs = {"json": {"essence": "x"}} if method == "PATCH" else {}
        response = api.request(method, path, **kwargs)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["error"] == "thought_not_found"


def test_patch_changes_fields_and_checks_the_lifecycle(api: Api) -> None:
    made = api.thought("draft plan", metadata={"a": 1})
    path = f"/v1/thoughts/{made['thought_id']}"
    changed = api.patch(
        path,
        json={
            "essence": "final plan",
            "metadata": {"b": "2"},
            "confidence": 0.8,
            "lifecycle_status": "DONE",
        },
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert (body["essence"], body["metadata"], body["confidence"], body["lifecycle_status"]) == (
        "final plan",
        {"b": "2"},
        0.8,
        "DONE",
    )
    cleared = api.patch(path, json={"confidence": None})
    assert cleared.json()["confidence"] is None
    illegal = api.patch(path, json={"lifecycle_status": "CREATED"})
    assert illegal.status_code == 409
    assert illegal.json()["error"] == "invalid_transition"
    assert api.get(path).json()["lifecycle_status"] == "DONE"


def test_a_thought_edited_by_hand_is_listed_as_invalid_and_repaired_by_patch(api: Api) -> None:
    """``SET t.content = 42`` in Neo4j Browser: the listing still lists the other thoughts and
    names this one in ``invalid`` (reading it alone is a 409 naming the field); a PATCH giving
    the field a valid value repairs it."""
    broken, fine = api.thought("The deploy window is Tuesday"), api.thought("Lunch at noon")
    path = f"/v1/thoughts/{broken['thought_id']}"
    store = api.client.app.state.api.store(api.namespace)  # type: ignore[attr-defined]
    api.client.portal.call(_in_browser, store, "SET t.content = 42", broken["thought_id"])
    listed = api.get("/v1/thoughts")
    assert listed.status_code == 200, listed.text
    assert [t["thought_id"] for t in listed.json()["thoughts"]] == [fine["thought_id"]]
    (invalid,) = listed.json()["invalid"]
    assert invalid["thought_id"] == broken["thought_id"]
    assert invalid["problems"] == ["content: Input should be a valid string"]
    assert "PATCH" in invalid["message"]
    alone = api.get(path)
    assert alone.status_code == 409 and alone.json()["error"] == "invalid_stored_record"
    still = api.patch(path, json={"priority": "P1"})  # leaves the content as it is
    assert still.status_code == 409 and "content" in still.json()["message"]
    repaired = api.patch(path, json={"content": "The deploy window is Tuesday 2-4pm"})
    assert repaired.status_code == 200, repaired.text
    assert repaired.json()["content"] == "The deploy window is Tuesday 2-4pm"
    assert api.get(path).json() == repaired.json()
    after = api.get("/v1/thoughts").json()
    assert len(after["thoughts"]) == 2 and after["invalid"] == []


def test_patch_refuses_fixed_and_empty_changes(api: Api) -> None:
    made = api.thought("fixed fields")
    path = f"/v1/thoughts/{made['thought_id']}"
    assert api.patch(path, json={"thought_id": "other"}).status_code == 422
    assert api.patch(path, json={"created_at": "2020-01-01T00:00:00Z"}).status_code == 422
    empty = api.patch(path, json={})
    assert empty.status_code == 422 and empty.json()["error"] == "validation_failed"
    bad_cycle = api.patch(path, json={"updated_cycle": -1})
    assert bad_cycle.status_code == 422 and bad_cycle.json()["field"] == "updated_cycle"
    # A check between two fields names the later one: the one the request can change.
    dated = api.patch(path, json={"valid_from": "2024-02-01T00:00:00Z"})
    assert dated.status_code == 200, dated.json()
    inverted = api.patch(path, json={"valid_until": "2024-01-01T00:00:00Z"})
    assert inverted.status_code == 422 and inverted.json()["field"] == "valid_until"
    body = {"thought_type": "OBSERVATION", "essence": "x", "content": "x", "source": "t"}
    backwards = api.post("/v1/thoughts", json={**body, "created_cycle": 5, "updated_cycle": 2})
    assert backwards.status_code == 422 and backwards.json()["field"] == "updated_cycle"
    unset = api.post("/v1/thoughts", json={**body, "created_cycle": 64})  # updated_cycle: 0
    assert unset.status_code == 422 and unset.json()["field"] == "updated_cycle", unset.text
    # An empty text and one of spaces are refused alike, as when the thought is created.
    blank = [api.patch(path, json={"content": text}).json() for text in ("", "   ", "\u200b")]
    assert all(b["field"] == "content" for b in blank), blank
    assert len({b["message"] for b in blank}) == 1 and "visible character" in blank[0]["message"]
    assert api.get(path).json()["content"] == made["content"]


def test_patch_null_clears_tags_as_it_clears_metadata(api: Api) -> None:
    made = api.thought("tagged", tags=["Garden"], metadata={"room": "kitchen"})
    path = f"/v1/thoughts/{made['thought_id']}"
    cleared = api.patch(path, json={"tags": None, "metadata": None})
    assert cleared.status_code == 200, cleared.text
    assert (cleared.json()["tags"], cleared.json()["metadata"]) == ([], {})


def test_metadata_wider_than_the_key_cap_is_422_on_create_and_patch(api: Api) -> None:
    wide = {f"k{i}": i for i in range(MAX_METADATA_KEYS + 1)}
    made = api.thought("narrow", metadata={"room": "kitchen"})
    path = f"/v1/thoughts/{made['thought_id']}"
    for response in (
        api.post("/v1/thoughts", json=_body("wide", metadata=wide)),
        api.patch(path, json={"metadata": wide}),
    ):
        assert response.status_code == 422, response.text
        assert response.json()["field"] == "metadata"
        assert f"more than {MAX_METADATA_KEYS} keys" in response.json()["message"]
    assert api.get(path).json()["metadata"] == {"room": "kitchen"}


def test_delete_then_gone(api: Api) -> None:
    made = api.thought("to forget")
    path = f"/v1/thoughts/{made['thought_id']}"
    assert api.delete(path).status_code == 204
    assert api.get(path).status_code == 404
    assert api.delete(path).status_code == 404


def test_restore_only_from_archived(api: Api) -> None:
    made = api.thought("old news", updated_cycle=2)
    path = f"/v1/thoughts/{made['thought_id']}"
    not_archived = api.post(f"{path}/restore")
    assert not_archived.status_code == 409
    assert not_archived.json()["error"] == "invalid_transition"
    assert "ARCHIVED" in not_archived.json()["message"]
    assert "is ACTIVE" in not_archived.json()["message"]
    assert "use restore_thought" not in not_archived.json()["message"]
    assert api.patch(path, json={"lifecycle_status": "ARCHIVED"}).status_code == 200
    restored = api.post(f"{path}/restore", json={"current_cycle": 7})
    assert restored.status_code == 200, restored.text
    assert restored.json()["lifecycle_status"] == "ACTIVE"
    assert restored.json()["updated_cycle"] == 7


def test_list_filters_and_cursor_pages(api: Api) -> None:
    stored = [
        api.thought(
            f"note {i}",
            priority="P1" if i % 2 else "P3",
            metadata={"speaker": "ann" if i < 5 else "bob"},
        )
        for i in range(7)
    ]
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        page = api.get("/v1/thoughts", params=params)
        assert page.status_code == 200, page.text
        seen += [t["thought_id"] for t in page.json()["thoughts"]]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(t["thought_id"] for t in stored)
    p1 = api.get("/v1/thoughts", params={"priority": "P1"}).json()["thoughts"]
    assert {t["priority"] for t in p1} == {"P1"} and len(p1) == 3
    bob = api.get("/v1/thoughts", params={"metadata_filter": json.dumps({"speaker": "bob"})})
    assert len(bob.json()["thoughts"]) == 2
    anyone = api.get(
        "/v1/thoughts", params={"metadata_filter": json.dumps({"speaker": ["ann", "bob"]})}
    )
    assert len(anyone.json()["thoughts"]) == 7


def test_list_rejects_bad_parameters(api: Api) -> None:
    api.thought("exists")
    assert api.get("/v1/thoughts", params={"limit": 0}).status_code == 422
    assert api.get("/v1/thoughts", params={"limit": 501}).json()["field"] == "limit"
    bad = api.get("/v1/thoughts", params={"metadata_filter": "{oops"})
    assert bad.status_code == 422 and bad.json()["field"] == "metadata_filter"
    bad_path = api.get("/v1/thoughts", params={"metadata_filter": '{"a b": 1}'})
    assert bad_path.status_code == 422 and bad_path.json()["error"] == "invalid_filter"
    assert api.get("/v1/thoughts", params={"priority": "P9"}).json()["field"] == "priority"


def test_bulk_stores_all_or_nothing(api: Api) -> None:
    bodies = [_body(f"bulk {i}", thought_id=f"b-{i}") for i in range(5)]
    stored = api.post("/v1/thoughts:bulk", json={"thoughts": bodies})
    assert stored.status_code == 201, stored.text
    assert stored.json() == {"stored": 5, "thought_ids": [f"b-{i}" for i in range(5)]}
    clash = api.post(
        "/v1/thoughts:bulk", json={"thoughts": [_body("new", thought_id="b-new"), bodies[0]]}
    )
    assert clash.status_code == 409
    assert api.get("/v1/thoughts/b-new").status_code == 404
    assert api.post("/v1/thoughts:bulk", json={"thoughts": []}).status_code == 422
    too_many = api.post("/v1/thoughts:bulk", json={"thoughts": [_body("x")] * 1001})
    assert too_many.status_code == 422 and too_many.json()["field"] == "thoughts"
    mismatch = api.post(
        "/v1/thoughts:bulk", json={"thoughts": [_body("y")], "embeddings": [None, None]}
    )
    assert mismatch.status_code == 422
    unsourced = {k: v for k, v in _body("no source", thought_id="b-plain").items() if k != "source"}
    assert api.post("/v1/thoughts:bulk", json={"thoughts": [unsourced]}).status_code == 201
    assert api.get("/v1/thoughts/b-plain").json()["source"] == "api"  # as POST /v1/thoughts
    again = api.post("/v1/thoughts", json=_body("again", thought_id="b-plain"))
    assert again.status_code == 409 and "PATCH /v1/thoughts/b-plain" in again.json()["message"]
