// Record the position the conversation's next message gets (under the lock of
// conversations/lock, in the same transaction).
// params: $namespace, $thought_id (STRING), $next_position (INTEGER)
// returns: next_position
MATCH (c:Thought {namespace: $namespace, thought_id: $thought_id})
SET c.next_position = $next_position
RETURN c.next_position AS next_position
