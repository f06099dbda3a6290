// One thought by id.
// params: $namespace, $thought_id
// returns: thought (MAP)
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_id})
RETURN {{> thoughts/_projection}} AS thought
