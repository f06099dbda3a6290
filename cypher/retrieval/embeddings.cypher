// Embeddings of the ranked candidates, for Phase 8's near-duplicate collapse.
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought_id, embedding (LIST<FLOAT> or null)
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
RETURN t.thought_id AS thought_id, t.embedding AS embedding
