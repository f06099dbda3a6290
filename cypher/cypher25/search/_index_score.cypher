// Fragment (Cypher 25, Neo4j 2026.01 and later; replaces search/_index_score): Neo4j's cosine
// score (1 + cos) / 2 between node `t`'s embedding and the query vector `v`, computed on VECTOR
// values (vector_distance(COSINE) is 1 - cos); null when either is missing.
// params: none
1.0 - vector_distance(vector(t.embedding, size(t.embedding), FLOAT32),
                      vector(v, size(v), FLOAT32), COSINE) / 2.0
