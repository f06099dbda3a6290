// One thought by id with its revision (the optimistic-concurrency token of update_thought).
// params: $namespace, $thought_id
// returns: thought (MAP), revision (INTEGER)
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_id})
RETURN {{> thoughts/_projection}} AS thought, t.revision AS revision
