// Vector arm, approximate (search/_vector_index): the HNSW index over every namespace,
// over-fetched because the index cannot filter by namespace before ranking (Neo4j 5.26).
// params: $vector (LIST<FLOAT>), and the search/_vector_index params
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2), best first
WITH $vector AS v
CALL (v) {
  {{> search/_vector_index}}
}
RETURN t.thought_id AS thought_id, score
ORDER BY score DESC, thought_id
