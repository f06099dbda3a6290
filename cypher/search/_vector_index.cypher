// Fragment (inside `CALL (v) { … }`), vector arm, approximate: the HNSW index over every
// namespace, over-fetched ($fetch_k) because the index cannot filter by namespace before
// ranking (Neo4j 5.26).
// params: $fetch_k, $top_k, $min_score (FLOAT, index score in [0, 1]), and the _retrievable params
// yields: t (node), score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
CALL db.index.vector.queryNodes('thought_embedding', $fetch_k, v)
YIELD node AS t, score
WHERE score >= $min_score AND {{> search/_retrievable}}
RETURN t, score
ORDER BY score DESC, t.thought_id
LIMIT $top_k
