// What add_messages needs to place a batch: whether the conversation thought exists, the
// position its next message gets, and the stored messages of the conversation whose message id
// or content hash is among the batch's (uses the (namespace, conversation_id, position) index).
// params: $namespace, $conversation_id (STRING), $conversation_thought_id (STRING),
//         $message_ids (LIST<STRING>), $content_hashes (LIST<STRING>)
// returns: exists (BOOLEAN), next_position (INTEGER),
//          matches (LIST OF MAP {thought_id, position, message_id, content_hash})
OPTIONAL MATCH (c:Thought {namespace: $namespace, thought_id: $conversation_thought_id})
RETURN c IS NOT NULL AS exists, coalesce(c.next_position, 0) AS next_position,
  COLLECT {
    MATCH (m:Thought {namespace: $namespace, conversation_id: $conversation_id})
    WHERE m.position >= 0
      AND (m.message_id IN $message_ids OR m.content_hash IN $content_hashes)
    RETURN m {.thought_id, .position, .message_id, .content_hash}
  } AS matches
