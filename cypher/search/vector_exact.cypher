// Vector arm, exact (search/_vector_exact): cosine over every embedded thought of the namespace
// (used when the namespace is small next to the database, where an over-fetched ANN query would
// miss).
// params: $vector (LIST<FLOAT>), and the search/_vector_exact params
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2), best first
WITH $vector AS v
CALL (v) {
  {{> search/_vector_exact}}
}
RETURN t.thought_id AS thought_id, score
ORDER BY score DESC, thought_id
