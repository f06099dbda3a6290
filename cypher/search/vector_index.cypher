// Vector arm, approximate: the HNSW index over every namespace, over-fetched ($fetch_k) because
// the index cannot filter by namespace before ranking (Neo4j 5.26).
// params: $vector (LIST<FLOAT>), $fetch_k, $top_k, $min_score (FLOAT, index score in [0, 1]),
//         and the _retrievable params
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
CALL db.index.vector.queryNodes('thought_embedding', $fetch_k, $vector)
YIELD node AS t, score
WHERE score >= $min_score AND {{> search/_retrievable}}
RETURN t.thought_id AS thought_id, score
ORDER BY score DESC, thought_id
LIMIT $top_k
