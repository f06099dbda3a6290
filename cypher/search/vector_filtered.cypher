// Vector arm, approximate, filtered inside the HNSW index (Neo4j 2026.01 and later): the index
// ranks only this namespace's thoughts of the given lifecycle statuses (its filter properties,
// schema/thought_vector_filtered), so no over-fetch is needed for other namespaces; $fetch_k
// exceeds $top_k only for a metadata filter, which the index cannot hold and which runs after.
// (5.26 runs search/vector_index instead.)
// params: $vector (LIST<FLOAT>), $fetch_k, $top_k, $min_score (FLOAT, index score in [0, 1]),
//         $statuses (LIST<STRING>, lifecycle statuses searched), and the _retrievable params
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
CYPHER 25
MATCH (t:Thought)
  SEARCH t IN (
    VECTOR INDEX thought_embedding
    FOR $vector
    WHERE t.namespace = $namespace AND t.lifecycle_status IN $statuses
    LIMIT $fetch_k
  ) SCORE AS score
WHERE score >= $min_score AND {{> search/_retrievable}}
RETURN t.thought_id AS thought_id, score
ORDER BY score DESC, thought_id
LIMIT $top_k
