"""Conversations: append chat messages as ordered thoughts (``add_messages``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response, status

from api.auth import CreateAccess
from engrava_graph.conversations import conversation_thought_id
from engrava_graph.wire import ERROR_RESPONSES, MessagesRequest, MessagesResult, StoredMessageRef

router = APIRouter(prefix="/v1", tags=["conversations"], responses=ERROR_RESPONSES)

ConversationId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=256,
        description="The conversation's id (e.g. `session_3`): one path segment, by the rule "
        "of thought ids (no `/`, `\\` or control character, not `.` or `..`).",
    ),
]


@router.post(
    "/conversations/{conversation_id}/messages",
    status_code=status.HTTP_201_CREATED,
    response_model=MessagesResult,
    summary="Append messages to a conversation",
    responses={200: {"description": "a re-send: every message was already stored"}},
)
async def add_messages(
    conversation_id: ConversationId, body: MessagesRequest, access: CreateAccess, response: Response
) -> MessagesResult:
    """Store each message as an OBSERVATION thought (``conversation_id``, ``position``,
    ``speaker``, ``message_id``, ``valid_from`` = its timestamp) linked ``MESSAGE_OF`` to the
    conversation's NOTE thought, in one transaction. Idempotent: re-sending stored messages
    writes nothing and answers 200; a stored ``message_id`` with other content is 409
    ``message_conflict``; an invalid message is 422 naming ``messages.<index>.<field>``."""
    stored = await access.store.add_messages(conversation_id, body.messages, source=body.source)
    created = sum(m.created for m in stored)
    if not created:
        response.status_code = status.HTTP_200_OK
    return MessagesResult(
        conversation_id=conversation_id,
        conversation_thought_id=conversation_thought_id(access.namespace, conversation_id),
        created=created,
        messages=[
            StoredMessageRef(
                thought_id=m.thought.thought_id,
                position=m.position,
                speaker=m.speaker,
                message_id=m.message_id,
                created=m.created,
            )
            for m in stored
        ],
    )
