// Create many typed edges between thoughts of the namespace (rows already checked by
// edges/bulk_preflight in the same transaction). The type of each row is validated against
// EdgeType before it gets here; the per-type constraints still guard id and triple uniqueness.
// params: $namespace, $rows (LIST OF MAP {edge_type, props: MAP with edge_id, from_thought_id,
//         to_thought_id, ...})
// returns: created (INTEGER)
UNWIND $rows AS row
MATCH (a:Thought {namespace: $namespace, thought_id: row.props.from_thought_id})
USING INDEX SEEK a:Thought(namespace, thought_id)
MATCH (b:Thought {namespace: $namespace, thought_id: row.props.to_thought_id})
USING INDEX SEEK b:Thought(namespace, thought_id)
CREATE (a)-[r:$(row.edge_type)]->(b)
SET r = row.props, r.namespace = $namespace
RETURN count(r) AS created
