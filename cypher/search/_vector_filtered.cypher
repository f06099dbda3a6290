// Fragment (inside `CALL (v) { … }`, in a `CYPHER 25` statement), vector arm, approximate,
// filtered inside the HNSW index (Neo4j 2026.01 and later): the index ranks only this
// namespace's thoughts of the given lifecycle statuses (its filter properties,
// schema/thought_vector_filtered), so nothing is over-fetched for other namespaces; $fetch_k
// exceeds $top_k only for a metadata filter, which the index cannot hold and which runs after.
// params: $fetch_k, $top_k, $min_score (FLOAT, index score in [0, 1]), $statuses
//         (LIST<STRING>, lifecycle statuses searched), and the _retrievable params
// yields: t (node), score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
MATCH (t:Thought)
  SEARCH t IN (
    VECTOR INDEX thought_embedding
    FOR v
    WHERE t.namespace = $namespace AND t.lifecycle_status IN $statuses
    LIMIT $fetch_k
  ) SCORE AS score
WHERE score >= $min_score AND {{> search/_retrievable}}
RETURN t, score
ORDER BY score DESC, t.thought_id
LIMIT $top_k
