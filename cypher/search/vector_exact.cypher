// Vector arm, exact: cosine over every embedded thought of the namespace (used when the
// namespace is small next to the database, where an over-fetched ANN query would miss).
// params: $vector (LIST<FLOAT>), $top_k, $min_score (FLOAT in [0, 1]), and the _retrievable params
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
MATCH (t:Thought {namespace: $namespace})
WHERE t.embedding IS NOT NULL AND {{> search/_retrievable}}
WITH t, vector.similarity.cosine(t.embedding, $vector) AS score
WHERE score >= $min_score
RETURN t.thought_id AS thought_id, score
ORDER BY score DESC, thought_id
LIMIT $top_k
