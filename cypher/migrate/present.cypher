// Import check (engrava-graph import-engrava): which of the given thought and edge ids exist in
// the namespace, and which of those thoughts carry an embedding. Run per chunk of ids.
// params: $namespace, $thought_ids (LIST<STRING>), $edge_ids (LIST<STRING>)
// returns: thought_ids, embedded_ids, edge_ids (LIST<STRING>, the ids found)
RETURN
  COLLECT {
    MATCH (t:Thought {namespace: $namespace})
    WHERE t.thought_id IN $thought_ids
    RETURN t.thought_id
  } AS thought_ids,
  COLLECT {
    MATCH (t:Thought {namespace: $namespace})
    WHERE t.thought_id IN $thought_ids AND t.embedding IS NOT NULL
    RETURN t.thought_id
  } AS embedded_ids,
  COLLECT {
    MATCH ()-[r:{{ALL_EDGE_TYPES}}]->()
    WHERE r.namespace = $namespace AND r.edge_id IN $edge_ids
    RETURN r.edge_id
  } AS edge_ids
