// Neo4j Browser, after `engrava-graph demo`: one session of a conversation with its turns
// (MESSAGE_OF) and the observations derived from them (DERIVED_FROM).
// params: $namespace (e.g. "conv-26"), $session (e.g. "S1")
// returns: s, m, t, d, o (nodes and relationships, for the graph view)
MATCH (s:Thought {namespace: $namespace, thought_id: $session})
MATCH (t:Thought)-[m:MESSAGE_OF]->(s)
OPTIONAL MATCH (o:Observation)-[d:DERIVED_FROM]->(t)
RETURN s, m, t, d, o
