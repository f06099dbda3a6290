// A thought's edges: outgoing, incoming or both.
// params: $namespace, $thought_id, $direction ('OUT' | 'IN' | 'BOTH')
// returns: edge (MAP)
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_id})-[r:{{ALL_EDGE_TYPES}}]-()
WHERE $direction = 'BOTH'
   OR ($direction = 'OUT' AND startNode(r) = t)
   OR ($direction = 'IN' AND endNode(r) = t)
RETURN {{> edges/_projection}} AS edge
ORDER BY r.created_at, r.edge_id
