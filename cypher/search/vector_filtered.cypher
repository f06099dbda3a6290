// Vector arm, approximate, filtered inside the HNSW index (search/_vector_filtered; Neo4j
// 2026.01 and later; 5.26 runs search/vector_index instead).
// params: $vector (LIST<FLOAT>), and the search/_vector_filtered params
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2), best first
CYPHER 25
WITH $vector AS v
CALL (v) {
  {{> search/_vector_filtered}}
}
RETURN t.thought_id AS thought_id, score
ORDER BY score DESC, thought_id
