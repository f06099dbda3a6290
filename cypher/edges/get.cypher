// One edge by id (index seeks over every edge type).
// params: $namespace, $edge_id
// returns: edge (MAP)
MATCH ()-[r:{{ALL_EDGE_TYPES}}]->()
WHERE r.namespace = $namespace AND r.edge_id = $edge_id
RETURN {{> edges/_projection}} AS edge
