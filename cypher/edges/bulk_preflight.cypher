// Before bulk_create_edges: the rows that break a rule in the namespace (a missing endpoint, a
// taken edge id, a taken (from, to, type) triple), in input order. No row = all rows are fine.
// params: $namespace, $rows (LIST OF MAP {edge_type, props: MAP with edge_id, from_thought_id,
//         to_thought_id})
// returns: i (INTEGER, row index), from_exists, to_exists, id_taken, triple_taken (BOOLEAN)
UNWIND range(0, size($rows) - 1) AS i
WITH i, $rows[i] AS row
OPTIONAL MATCH (a:Thought {namespace: $namespace, thought_id: row.props.from_thought_id})
USING INDEX SEEK a:Thought(namespace, thought_id)
OPTIONAL MATCH (b:Thought {namespace: $namespace, thought_id: row.props.to_thought_id})
USING INDEX SEEK b:Thought(namespace, thought_id)
CALL (row) {
  OPTIONAL MATCH ()-[x:{{ALL_EDGE_TYPES}}]->()
  WHERE x.namespace = $namespace AND x.edge_id = row.props.edge_id
  RETURN count(x) > 0 AS id_taken
}
CALL (a, b, row) {
  OPTIONAL MATCH (a)-[y]->(b)
  WHERE type(y) = row.edge_type
  RETURN count(y) > 0 AS triple_taken
}
WITH i, a IS NOT NULL AS from_exists, b IS NOT NULL AS to_exists, id_taken, triple_taken
WHERE NOT (from_exists AND to_exists) OR id_taken OR triple_taken
RETURN i, from_exists, to_exists, id_taken, triple_taken
ORDER BY i
