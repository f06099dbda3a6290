// Fragment: Neo4j's cosine score (1 + cos) / 2 between node `t`'s embedding and the query vector
// `v` (what the vector index reports), null when either is missing.
// params: none
vector.similarity.cosine(t.embedding, v)
