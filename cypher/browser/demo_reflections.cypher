// Neo4j Browser, after `engrava-graph demo`: the reflections dreaming wrote for a conversation
// and the observations each was consolidated from.
// params: $namespace (e.g. "conv-26")
// returns: r, c, m (nodes and relationships, for the graph view)
MATCH (r:Reflection {namespace: $namespace})-[c:CONSOLIDATED_FROM]->(m:Thought)
RETURN r, c, m
LIMIT 300
