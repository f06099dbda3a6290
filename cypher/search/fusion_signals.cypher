// Per-candidate fields the hybrid fusion reads (recency and priority signals).
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought_id, priority, updated_cycle, updated_at, created_at, thought_type
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
RETURN t.thought_id AS thought_id, t.priority AS priority, t.updated_cycle AS updated_cycle,
       t.updated_at AS updated_at, t.created_at AS created_at, t.thought_type AS thought_type
