// Fragment (inside `CALL (v) { … }`, in a `CYPHER 25` statement), vector arm, approximate,
// filtered inside the HNSW index (Neo4j 2026.01 and later): the index ranks only this
// namespace's thoughts, so nothing is over-fetched for other namespaces. The lifecycle statuses
// are a filter of the index too (schema/thought_vector_filtered), but a second filter predicate
// costs the index more the more thoughts it holds (at 1,000,000 thoughts 14 ms instead of 6 per
// search for 50 neighbours; the namespace alone costs nothing), so the caller puts them inside
// the index ($lifecycle_in_index) only when most of the namespace is archived; otherwise they
// are tested afterwards, with search/_retrievable, and $fetch_k over-fetches by the namespace's
// archived share. $fetch_k also exceeds $top_k for a metadata filter, which the index cannot hold
// and which runs after.
// params: $fetch_k, $top_k, $min_score (FLOAT, index score in [0, 1]), $lifecycle_in_index
//         (BOOLEAN), $statuses (LIST<STRING>, lifecycle statuses searched), and the _retrievable
//         params
// yields: t (node), score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
CALL (v) {
  WITH v WHERE $lifecycle_in_index
  MATCH (t:Thought)
    SEARCH t IN (
      VECTOR INDEX thought_embedding
      FOR v
      WHERE t.namespace = $namespace AND t.lifecycle_status IN $statuses
      LIMIT $fetch_k
    ) SCORE AS score
  RETURN t, score
  UNION ALL
  WITH v WHERE NOT $lifecycle_in_index
  MATCH (t:Thought)
    SEARCH t IN (
      VECTOR INDEX thought_embedding
      FOR v
      WHERE t.namespace = $namespace
      LIMIT $fetch_k
    ) SCORE AS score
  RETURN t, score
}
WITH t, score
WHERE score >= $min_score AND {{> search/_retrievable}}
RETURN t, score
ORDER BY score DESC, t.thought_id
LIMIT $top_k
