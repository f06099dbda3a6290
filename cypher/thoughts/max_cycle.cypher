// The namespace's cognitive-cycle high-water mark: max(thought.updated_cycle) unioned with
// max(edge.created_cycle); 0 when empty (how a cycle provider recovers its counter).
// params: $namespace
// returns: max_cycle (INTEGER)
CALL () {
  MATCH (t:Thought {namespace: $namespace})
  RETURN max(t.updated_cycle) AS m
  UNION ALL
  MATCH ()-[r:{{ALL_EDGE_TYPES}}]->()
  WHERE r.namespace = $namespace
  RETURN max(r.created_cycle) AS m
}
RETURN coalesce(max(m), 0) AS max_cycle
