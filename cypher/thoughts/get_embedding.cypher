// A thought's embedding vector.
// params: $namespace, $thought_id
// returns: embedding (LIST<FLOAT> or null)
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_id})
RETURN t.embedding AS embedding
