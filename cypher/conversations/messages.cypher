// A conversation's messages in position order, with their conversation thought.
// params: $namespace, $conversation_id (STRING)
// returns: thought_id, position, speaker, role, message_id, valid_from, content,
//          conversation (thought_id of the MESSAGE_OF target, null when the edge is missing)
MATCH (m:Thought {namespace: $namespace, conversation_id: $conversation_id})
WHERE m.position >= 0
OPTIONAL MATCH (m)-[:MESSAGE_OF]->(c:Thought:Note {namespace: $namespace})
RETURN m.thought_id AS thought_id, m.position AS position, m.speaker AS speaker,
       m.role AS role, m.message_id AS message_id, m.valid_from AS valid_from,
       m.content AS content, c.thought_id AS conversation
ORDER BY position
