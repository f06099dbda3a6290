// Dreaming neighbours through the HNSW vector index: for each source thought, the index's
// $fetch_k nearest nodes (every namespace: Neo4j 5.26 cannot filter before ranking, so the caller
// over-fetches), kept when eligible in this namespace and at least $min_score, best $k.
// params: $sources (LIST<STRING> thought ids), $fetch_k, $k (INTEGER), $min_score (FLOAT, Neo4j's
//         cosine score (1 + cos) / 2), and the dreaming/_eligible params
// returns: source, neighbour (thought ids), score (FLOAT, (1 + cos) / 2)
UNWIND $sources AS sid
MATCH (s:Thought {namespace: $namespace, thought_id: sid})
USING INDEX SEEK s:Thought(namespace, thought_id)
CALL (s) {
  CALL db.index.vector.queryNodes('thought_embedding', $fetch_k, s.embedding)
  YIELD node AS t, score
  WITH t, score
  WHERE t <> s AND score >= $min_score AND {{> dreaming/_eligible}}
  RETURN t.thought_id AS neighbour, score
  ORDER BY score DESC, neighbour
  LIMIT $k
}
RETURN sid AS source, neighbour, score
