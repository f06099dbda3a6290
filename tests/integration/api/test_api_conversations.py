"""``POST /v1/conversations/{conversation_id}/messages`` on the real Neo4j: stored messages,
idempotent re-sends, conflicts, bad input, keys and namespaces."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.integration.api.conftest import READER, SCOPED, Api

ROUTE = "/v1/conversations/session_1/messages"
MESSAGES = [
    {
        "speaker": "Caroline",
        "content": "I went to the support group yesterday.",
        "timestamp": "2023-05-08T13:56:00Z",
        "message_id": "D1:1",
    },
    {
        "speaker": "Melanie",
        "content": "How did it go?",
        "message_id": "D1:2",
        "metadata": {"turn": 2},
    },
]


def test_messages_are_stored_in_order_and_resent_idempotently(api: Api) -> None:
    first = api.post(ROUTE, json={"messages": MESSAGES})
    assert first.status_code == 201, first.text
    body = first.json()
    assert (body["conversation_id"], body["created"]) == ("session_1", 2)
    assert [
        (m["position"], m["speaker"], m["message_id"], m["created"]) for m in body["messages"]
    ] == [(0, "Caroline", "D1:1", True), (1, "Melanie", "D1:2", True)]
    stored = api.get(f"/v1/thoughts/{body['messages'][0]['thought_id']}").json()
    assert stored["thought_type"] == "OBSERVATION"
    assert stored["content"] == "Caroline: I went to the support group yesterday."
    assert stored["valid_from"].startswith("2023-05-08T13:56:00")
    conversation = api.get(f"/v1/thoughts/{body['conversation_thought_id']}").json()
    assert conversation["thought_type"] == "NOTE"
    edges = api.get(
        f"/v1/thoughts/{body['conversation_thought_id']}/edges", params={"direction": "IN"}
    ).json()
    assert sorted(e["edge_type"] for e in edges) == ["MESSAGE_OF", "MESSAGE_OF"]
    footprint = api.footprint()

    again = api.post(ROUTE, json={"messages": MESSAGES})
    assert again.status_code == 200, again.text
    assert again.json()["created"] == 0
    assert [m["thought_id"] for m in again.json()["messages"]] == [
        m["thought_id"] for m in body["messages"]
    ]
    assert api.footprint() == footprint

    more = api.post(
        ROUTE,
        json={"messages": [{"role": "assistant", "content": "A new message."}], "source": "chat"},
    )
    assert more.status_code == 201, more.text
    assert more.json()["messages"][0]["position"] == 2
    assert more.json()["messages"][0]["speaker"] == "assistant"


def test_a_message_id_with_other_content_is_409(api: Api) -> None:
    assert api.post(ROUTE, json={"messages": MESSAGES}).status_code == 201
    footprint = api.footprint()
    changed = [{**MESSAGES[0], "content": "Something else."}]
    response = api.post(ROUTE, json={"messages": changed})
    assert response.status_code == 409, response.text
    assert response.json()["error"] == "message_conflict"
    assert "D1:1" in response.json()["message"]
    assert api.footprint() == footprint
    twice = [{**MESSAGES[0], "message_id": "n-1"}, {**MESSAGES[1], "message_id": "n-1"}]
    repeated = api.post(ROUTE, json={"messages": twice})  # nothing stored: the request is wrong
    assert repeated.status_code == 422, repeated.text
    assert repeated.json()["error"] == "repeated_message_id"
    assert repeated.json()["field"] == "messages.1.message_id"
    assert api.footprint() == footprint


def test_bad_messages_are_422_naming_the_message(api: Api) -> None:
    cases: list[tuple[Any, str]] = [
        ({"messages": [MESSAGES[0], {"content": "no speaker nor role"}]}, "messages.1"),
        ({"messages": [MESSAGES[0], {"speaker": "Ann", "content": "  "}]}, "messages.1.content"),
        ({"messages": [{"speaker": "Ann", "content": "\u200b"}]}, "messages.0.content"),
        ({"messages": [{**MESSAGES[0], "timestamp": "yesterday"}]}, "messages.0.timestamp"),
        ({"messages": [{**MESSAGES[0], "colour": "red"}]}, "messages.0.colour"),
        ({"messages": []}, "messages"),
        # a blank source was a 500 (the thought's own check ran only when it was built)
        ({"messages": MESSAGES, "source": "  "}, "source"),
        ({"messages": MESSAGES, "source": "\u200b"}, "source"),
    ]
    for body, field in cases:
        response = api.post(ROUTE, json=body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["field"] == field, response.json()
    blank = api.post("/v1/conversations/%20/messages", json={"messages": MESSAGES})
    assert blank.status_code == 422, blank.text
    # the rule of thought ids, as the library's (U+200B alone is blank, as a space is)
    for segment in ("a%5Cb", "a%01b", "%2E%2E", "%E2%80%8B"):
        refused = api.post(f"/v1/conversations/{segment}/messages", json={"messages": MESSAGES})
        assert refused.status_code == 422, (segment, refused.text)
        assert refused.json()["field"] == "conversation_id", refused.json()
    # bytes that are not UTF-8 would all decode to U+FFFD, one conversation for every such id
    for segment in ("%FF", "%FE", "%C3", "a%C3%28"):
        refused = api.post(f"/v1/conversations/{segment}/messages", json={"messages": MESSAGES})
        assert refused.status_code == 422, (segment, refused.text)
        assert refused.json()["field"] == "path" and "UTF-8" in refused.json()["message"]
    assert api.get("/v1/thoughts/%FF").json()["field"] == "path"
    assert api.footprint() == (0, 0)
    accented = api.post("/v1/conversations/caf%C3%A9/messages", json={"messages": MESSAGES})
    assert accented.status_code == 201, accented.text


def test_keys_are_checked(make_api: Callable[..., Api]) -> None:
    owner = make_api()
    owner.thought("the namespace exists")
    read_only = owner.as_key(READER).post(ROUTE, json={"messages": MESSAGES})
    assert read_only.status_code == 403, read_only.text
    elsewhere = owner.as_key(SCOPED).post(ROUTE, json={"messages": MESSAGES})
    assert elsewhere.status_code == 403, elsewhere.text
    stored = owner.get("/v1/thoughts", params={"limit": 10}).json()["thoughts"]
    assert len(stored) == 1


def test_the_route_is_documented_with_examples(api: Api) -> None:
    schema = api.client.get("/openapi.json").json()
    operation = schema["paths"]["/v1/conversations/{conversation_id}/messages"]["post"]
    assert {"200", "201", "403", "409", "422"} <= set(operation["responses"])
    components = schema["components"]["schemas"]
    assert components["MessagesRequest"]["examples"]
    assert components["MessagesResult"]["examples"]
