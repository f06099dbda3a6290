// The stored vectors of some thoughts, as ONE row of two aligned lists: a row per thought costs
// the driver far more than the values themselves (100,000 vectors: 16 s against 6 s). Missing
// thoughts and thoughts without a vector are left out.
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought_ids (LIST<STRING>), embeddings (LIST<LIST<FLOAT>>, aligned with thought_ids)
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
WHERE t.embedding IS NOT NULL
RETURN collect(t.thought_id) AS thought_ids, collect(t.embedding) AS embeddings
