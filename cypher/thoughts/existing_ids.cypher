// Which of these ids already exist in the namespace.
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought_id
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
RETURN t.thought_id AS thought_id
