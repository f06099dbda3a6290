// Which of these thoughts are already consolidated: the target of a CONSOLIDATED_FROM edge from
// an ACTIVE reflection. A cluster whose members all are makes no new reflection.
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought_id
UNWIND $thought_ids AS id
MATCH (m:Thought {namespace: $namespace, thought_id: id})
USING INDEX m:Thought(namespace, thought_id)
WHERE EXISTS {
  (m)<-[:CONSOLIDATED_FROM]-(r:Reflection)
  WHERE r.lifecycle_status = 'ACTIVE'
}
RETURN m.thought_id AS thought_id
