// Before create_edge: which endpoints are missing, and whether the id or the
// (from, to, type) triple is taken, in the namespace.
// params: $namespace, $from_thought_id, $to_thought_id, $edge_id, $edge_type
// returns: from_exists, to_exists, id_taken, triple_taken (BOOLEAN)
OPTIONAL MATCH (a:Thought {namespace: $namespace, thought_id: $from_thought_id})
OPTIONAL MATCH (b:Thought {namespace: $namespace, thought_id: $to_thought_id})
CALL () {
  OPTIONAL MATCH ()-[x:{{ALL_EDGE_TYPES}}]->()
  WHERE x.namespace = $namespace AND x.edge_id = $edge_id
  RETURN count(x) > 0 AS id_taken
}
CALL (a, b) {
  OPTIONAL MATCH (a)-[y]->(b)
  WHERE type(y) = $edge_type
  RETURN count(y) > 0 AS triple_taken
}
RETURN a IS NOT NULL AS from_exists, b IS NOT NULL AS to_exists, id_taken, triple_taken
