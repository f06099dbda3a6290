// List edges of the namespace by type, source and metadata predicates.
// params: $namespace, $edge_type (STRING or null), $source (STRING or null),
//         $meta_filters (see thoughts/_meta_filter), $limit
// returns: edge (MAP)
MATCH ()-[r:{{ALL_EDGE_TYPES}}]->()
WHERE r.namespace = $namespace
  AND ($edge_type IS NULL OR type(r) = $edge_type)
  AND ($source IS NULL OR r.source = $source)
  AND ALL(f IN $meta_filters WHERE r[f.key] IN f.values OR (f.match_null AND r[f.key] IS NULL))
RETURN {{> edges/_projection}} AS edge
ORDER BY r.created_at, r.edge_id
LIMIT $limit
