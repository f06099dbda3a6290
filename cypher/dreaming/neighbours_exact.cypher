// Dreaming neighbours, exact: for each source thought, its $k most similar eligible thoughts of
// the namespace by cosine, at least $min_score. Used when the eligible set is small. A thought
// whose embedding has another size than the source's (edited by hand in Neo4j Browser) is none.
// params: $sources (LIST<STRING> thought ids), $k (INTEGER), $min_score (FLOAT, Neo4j's cosine
//         score (1 + cos) / 2), and the dreaming/_eligible params
// returns: source, neighbour (thought ids), score (FLOAT, (1 + cos) / 2)
UNWIND $sources AS sid
MATCH (s:Thought {namespace: $namespace, thought_id: sid})
USING INDEX SEEK s:Thought(namespace, thought_id)
CALL (s) {
  MATCH (t:Thought {namespace: $namespace})
  WHERE t <> s AND {{> dreaming/_eligible}} AND size(t.embedding) = size(s.embedding)
  WITH t, vector.similarity.cosine(s.embedding, t.embedding) AS score
  WHERE score >= $min_score
  RETURN t.thought_id AS neighbour, score
  ORDER BY score DESC, neighbour
  LIMIT $k
}
RETURN sid AS source, neighbour, score
