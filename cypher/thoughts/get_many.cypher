// Thoughts by id, in no particular order (missing ids are skipped).
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought (MAP)
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
RETURN {{> thoughts/_projection}} AS thought
