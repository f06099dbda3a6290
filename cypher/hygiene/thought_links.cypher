// A thought's labels and the Entity and Tag names it links to (diagnostics).
// params: $namespace, $thought_id
// returns: labels (LIST<STRING>), entities (LIST<STRING>), tags (LIST<STRING>)
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_id})
OPTIONAL MATCH (t)-[:MENTIONS]->(e:Entity)
OPTIONAL MATCH (t)-[:TAGGED]->(g:Tag)
RETURN labels(t) AS labels, collect(DISTINCT e.name) AS entities, collect(DISTINCT g.name) AS tags
