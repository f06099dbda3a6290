"""A status is a status and text has no NUL (issue 15, item 9), on the real Neo4j.

A plain-string ``lifecycle_status`` goes through the same state machine as the enum member, and a
NUL character or a lone surrogate (which the driver cannot encode) in any text field is a typed
validation error with nothing written.
"""

from __future__ import annotations

import pydantic
import pytest

from engrava_graph.model import (
    InvalidTransitionError,
    LifecycleStatus,
    ThoughtRecord,
    ValidationFailedError,
)
from tests.factories import thought

NUL = "\\x00"  # as repr() writes it


@pytest.mark.parametrize("target", [LifecycleStatus.CREATED, "CREATED"])
async def test_a_plain_string_status_obeys_the_lifecycle_like_the_enum(store, target):
    active = await store.create_thought(thought("an active thought"))

    with pytest.raises(InvalidTransitionError, match="ACTIVE to CREATED"):
        await store.update_thought(active.thought_id, lifecycle_status=target)

    assert (await store.get_thought(active.thought_id)).lifecycle_status is LifecycleStatus.ACTIVE
    done = await store.update_thought(active.thought_id, lifecycle_status="DONE")
    assert done.lifecycle_status is LifecycleStatus.DONE


async def test_a_status_that_names_nothing_is_a_validation_error(store):
    active = await store.create_thought(thought("still active"))
    with pytest.raises(ValidationFailedError, match="lifecycle_status"):
        await store.update_thought(active.thought_id, lifecycle_status="PAUSED")


@pytest.mark.parametrize(
    "fields",
    [
        {"thought_id": "id\x00with-nul"},
        {"essence": "nul\x00essence"},
        {"content": "nul\x00content"},
        {"source": "src\x00"},
        {"tags": ["tag\x00"]},
        {"metadata": {"speaker": "Ann\x00"}},
        {"metadata": {"nested": {"deeper": "b\x00"}}},
        {"essence": "half a pair \ud800"},
        {"tags": ["\ud800"]},
        {"metadata": {"speaker": "\udfff"}},
    ],
    ids=lambda f: f"{next(iter(f))}-{'nul' if NUL in repr(f) else 'surrogate'}",
)
async def test_nul_and_lone_surrogates_are_refused_in_every_text_field(store, fields):
    field = next(iter(fields))
    with pytest.raises(pydantic.ValidationError, match=f"(?s){field}.*(NUL|surrogate|unicode)"):
        ThoughtRecord.model_validate(
            {"thought_type": "NOTE", "essence": "e", "content": "c", "source": "test", **fields}
        )
    kept = await store.create_thought(thought("a clean thought"))
    changes = {"essence": "x\x00"} if field == "thought_id" else fields

    with pytest.raises(ValidationFailedError, match="NUL|surrogate|unicode"):
        await store.update_thought(kept.thought_id, **changes)

    assert await store.count_thoughts() == 1
    assert await store.get_thought(kept.thought_id) == kept.model_copy(
        update={"updated_at": (await store.get_thought(kept.thought_id)).updated_at}
    )


@pytest.mark.parametrize("blank", ["\u200b", " \u2060\ufeff\u00ad "])
async def test_a_text_that_shows_nothing_is_refused_as_an_empty_one(store, blank):
    """Only whitespace and invisible characters (U+200B, a word joiner, a BOM, a soft hyphen)
    is blank by the rule of a blank query: refused as a thought's essence or content, through
    the record, ``remember`` and ``update_thought``, and as a message's text or speaker or a
    conversation id through ``add_messages``, as an empty string is; nothing is written."""
    kept = await store.create_thought(thought("a clean thought"))
    for field in ("essence", "content"):
        for text in ("", blank):
            with pytest.raises(pydantic.ValidationError, match=field):
                ThoughtRecord.model_validate(
                    {"thought_type": "NOTE", "essence": "e", "content": "c", "source": "t"}
                    | {field: text}
                )
            with pytest.raises(ValidationFailedError, match=field):
                await store.update_thought(kept.thought_id, **{field: text})
    for text, rule in (
        (blank, "visible character"),
        ("a\x00b", "NUL"),
        ("y" * 1_000_001, "at most"),
    ):
        with pytest.raises(ValidationFailedError, match=f"^text: .*{rule}") as refused:
            await store.remember(text)  # named by remember's argument, not essence or content
        assert [e["loc"] for e in refused.value.errors] == [("text",)], refused.value.errors
    for message in ({"speaker": "Ann", "content": blank}, {"speaker": blank, "content": "hi"}):
        with pytest.raises(ValidationFailedError, match="visible character"):
            await store.add_messages("conv-1", [message])
    with pytest.raises(ValidationFailedError, match="conversation_id") as caught:
        await store.add_messages(blank, [{"speaker": "Ann", "content": "hi"}])
    assert caught.value.errors[0]["loc"] == ("conversation_id",)

    assert await store.count_thoughts() == 1
    assert (await store.get_thought(kept.thought_id)).essence == "a clean thought"
