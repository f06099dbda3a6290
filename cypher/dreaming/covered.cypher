// Which of these thoughts are already consolidated: the target of a CONSOLIDATED_FROM edge from
// an ACTIVE reflection. A cluster whose members all are makes no new reflection. The label is
// tested on the reached node (`labels(r)`), so the planner always expands from the member: with
// the label in the pattern it scanned the Reflection index instead when reflections were few.
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought_id
UNWIND $thought_ids AS id
MATCH (m:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK m:Thought(namespace, thought_id)
WHERE EXISTS {
  (m)<-[:CONSOLIDATED_FROM]-(r)
  WHERE 'Reflection' IN labels(r) AND r.lifecycle_status = 'ACTIVE'
}
RETURN m.thought_id AS thought_id
