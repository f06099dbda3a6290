// Neo4j Browser, after `engrava-graph demo` (turns mode): one session of a conversation, its
// NOTE thought and its messages (MESSAGE_OF), in conversation order.
// params: $namespace (e.g. "conv-26"), $session (the conversation id, e.g. "session_1")
// returns: c, m, t (nodes and relationships, for the graph view), by message position
MATCH (c:Thought:Note {namespace: $namespace, conversation_id: $session})
MATCH (t:Thought)-[m:MESSAGE_OF]->(c)
RETURN c, m, t
ORDER BY t.position
