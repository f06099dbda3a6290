// Merge new properties into an edge (null values remove).
// params: $namespace, $edge_id, $props (MAP)
// returns: edge (MAP)
MATCH ()-[r:{{ALL_EDGE_TYPES}}]->()
WHERE r.namespace = $namespace AND r.edge_id = $edge_id
SET r += $props
RETURN {{> edges/_projection}} AS edge
