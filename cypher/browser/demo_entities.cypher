// Neo4j Browser, after `engrava-graph demo`: the ten entities mentioned by the most thoughts
// of a conversation, with those thoughts (MENTIONS links are extracted at write time).
// params: $namespace (e.g. "conv-26")
// returns: e, r, t (nodes and relationships, for the graph view)
MATCH (e:Entity {namespace: $namespace})<-[:MENTIONS]-(:Thought)
WITH e, count(*) AS mentions
ORDER BY mentions DESC, e.name
LIMIT 10
MATCH (e)<-[r:MENTIONS]-(t:Thought)
RETURN e, r, t
LIMIT 300
