"""Placing a batch of messages (pure logic of add_messages): re-sends, alignment, conflicts."""

from __future__ import annotations

import pytest

from engrava_graph.conversations import (
    Message,
    StoredRow,
    checked_conversation_id,
    clip,
    generated_message_id,
    message_thought_id,
    place,
    validate_messages,
)
from engrava_graph.model.errors import (
    MessageConflictError,
    RepeatedMessageIdError,
    ValidationFailedError,
)
from engrava_graph.model.records import content_hash


def _msg(text: str, speaker: str = "Ann", message_id: str | None = None) -> Message:
    return Message(content=text, speaker=speaker, message_id=message_id)


def _stored(messages: list[Message], start: int = 0) -> list[StoredRow]:
    rows = []
    for i, m in enumerate(messages):
        h = content_hash(m.text)
        mid = m.message_id or generated_message_id(start + i, h)
        rows.append(StoredRow(message_thought_id("ns", "c", mid), start + i, mid, h))
    return rows


def test_new_messages_continue_after_the_last_position() -> None:
    placed = place("c", [_msg("hi"), _msg("there")], [], 7)
    assert [(p.position, p.existing) for p in placed] == [(7, None), (8, None)]
    assert placed[0].message_id == generated_message_id(7, content_hash("Ann: hi"))


def test_a_resent_batch_is_aligned_with_the_stored_tail() -> None:
    first = [_msg("a"), _msg("b"), _msg("c")]
    stored = _stored(first)
    again = place("c", first, stored, 3)
    assert [p.existing for p in again] == [r.thought_id for r in stored]
    grown = place("c", [*first[1:], _msg("d")], stored, 3)  # history tail + one new message
    assert [(p.position, p.existing is None) for p in grown] == [(1, False), (2, False), (3, True)]


def test_a_repeated_text_not_at_the_tail_is_a_new_message() -> None:
    stored = _stored([_msg("ok"), _msg("b")])
    placed = place("c", [_msg("ok")], stored, 2)
    assert (placed[0].position, placed[0].existing) == (2, None)


def test_message_ids_decide_and_conflicting_content_is_refused() -> None:
    stored = _stored([_msg("a", message_id="m1"), _msg("b", message_id="m2")])
    placed = place("c", [_msg("b", message_id="m2"), _msg("z", message_id="m3")], stored, 2)
    assert [(p.position, p.existing is None) for p in placed] == [(1, False), (2, True)]
    with pytest.raises(MessageConflictError) as caught:
        place("c", [_msg("changed", message_id="m1")], stored, 2)
    assert (caught.value.message_id, caught.value.position) == ("m1", 0)
    with pytest.raises(RepeatedMessageIdError) as repeated:  # a MessageConflictError too
        place("c", [_msg("x", message_id="n"), _msg("y", message_id="n")], [], 0)
    assert (repeated.value.field, repeated.value.position) == ("messages.1.message_id", None)
    twice = place("c", [_msg("x", message_id="n"), _msg("x", message_id="n")], [], 0)
    assert [p.position for p in twice] == [0, 0] and twice[1].existing is not None


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(ValidationFailedError):
        validate_messages(" ", [])
    with pytest.raises(ValidationFailedError) as caught:
        validate_messages("c", [{"content": "hi", "speaker": "A"}, {"content": "no voice"}])
    assert caught.value.errors[0]["loc"][:2] == ("messages", 1)
    for blank in ("  ", "\u200b"):
        with pytest.raises(ValidationFailedError) as refused:
            validate_messages("c", [{"content": blank, "role": "user"}])
        assert refused.value.errors[0]["loc"] == ("messages", 0, "content")
        with pytest.raises(ValidationFailedError) as voiceless:
            validate_messages("c", [{"content": "hi", "speaker": blank}])
        assert voiceless.value.errors[0]["loc"] == ("messages", 0, "speaker")
    with pytest.raises(ValidationFailedError):
        validate_messages("c", "hello")  # type: ignore[arg-type]
    for source in ("", "  ", "\u200b", 5, "x" * 257):  # checked before any I/O, as REST does
        with pytest.raises(ValidationFailedError) as sourceless:
            validate_messages("c", [{"content": "hi", "role": "user"}], source=source)
        assert sourceless.value.errors[0]["loc"] == ("source",)
    assert validate_messages("c", [{"content": "hi", "role": "user"}])[0].text == "user: hi"


def test_a_bad_message_is_one_line_naming_its_field() -> None:
    """The library's message is what the REST 422 says: ``messages.<index>.<field>: why``, one
    line, no pydantic URL or ``Value error,`` prefix."""
    with pytest.raises(ValidationFailedError) as caught:
        validate_messages(
            "c", [{"content": "hi", "speaker": "A"}, {"content": "x", "speaker": "B", "mood": 1}]
        )
    message = str(caught.value)
    assert message.startswith("messages.1.mood: ") and "\n" not in message
    assert "pydantic.dev" not in message and "Value error" not in message


@pytest.mark.parametrize(
    "bad",
    ["a/b", "a\\b", ".", "..", " ", "\u200b", "\u2060\ufeff", "c\x01", "\ud800", "x" * 257, 7],
)
def test_a_conversation_id_follows_the_rule_of_thought_ids(bad: object) -> None:
    """A conversation id must be one URL path segment (the REST route carries it as one), by
    the rule of thought and edge ids, so the library, CLI, MCP and REST take the same ids."""
    with pytest.raises(ValidationFailedError) as caught:
        validate_messages(bad, [{"content": "hi", "speaker": "A"}])
    assert caught.value.errors[0]["loc"] == ("conversation_id",)
    assert "conversation_id" in str(caught.value)


@pytest.mark.parametrize("fine", ["conv-26", "session_3", "D1:3", "café", "a..b", "x" * 256])
def test_conversation_ids_in_use_stay_valid(fine: str) -> None:
    assert checked_conversation_id(fine) == fine


def test_clip_cuts_at_a_word_boundary() -> None:
    assert clip("a  b") == "a b"
    clipped = clip("word " * 100)
    assert len(clipped) <= 200 and clipped.endswith("…")
