// Delete one edge by id.
// params: $namespace, $edge_id
// returns: deleted (INTEGER: 0 or 1)
OPTIONAL MATCH ()-[r:{{ALL_EDGE_TYPES}}]->()
WHERE r.namespace = $namespace AND r.edge_id = $edge_id
DELETE r
RETURN count(r) AS deleted
