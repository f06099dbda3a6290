// Fragment (Cypher 25, Neo4j 2026.01 and later; replaces retrieval/_comparable_embedding): node
// `n`'s embedding as a VECTOR value, as retrieval/_near_duplicate compares it; null when it has none.
// params: none
vector(n.embedding, size(n.embedding), FLOAT32)
