// Dreaming neighbours through the vector index filtered inside the index (Neo4j 2026.01+, the
// index's filter properties): for each source thought, the $fetch_k nearest ACTIVE nodes of this
// namespace, kept when eligible and at least $min_score, best $k. The 5.26 form, which asks the
// unfiltered index for more and filters afterwards, is dreaming/neighbours_index.
// params: $sources (LIST<STRING> thought ids), $fetch_k, $k (INTEGER), $min_score (FLOAT, Neo4j's
//         cosine score (1 + cos) / 2), and the dreaming/_eligible params
// returns: source, neighbour (thought ids), score (FLOAT, (1 + cos) / 2)
CYPHER 25
UNWIND $sources AS sid
MATCH (s:Thought {namespace: $namespace, thought_id: sid})
USING INDEX SEEK s:Thought(namespace, thought_id)
WITH sid, s, s.embedding AS v
CALL (s, v) {
  MATCH (t:Thought)
    SEARCH t IN (
      VECTOR INDEX thought_embedding
      FOR v
      WHERE t.namespace = $namespace AND t.lifecycle_status = 'ACTIVE'
      LIMIT $fetch_k
    ) SCORE AS score
  WITH t, score
  WHERE t <> s AND score >= $min_score AND {{> dreaming/_eligible}}
  RETURN t.thought_id AS neighbour, score
  ORDER BY score DESC, neighbour
  LIMIT $k
}
RETURN sid AS source, neighbour, score
