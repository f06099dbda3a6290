// Fragment (Cypher 25, Neo4j 2026.01 and later; replaces retrieval/_comparable_embedding): node
// `n`'s embedding as a VECTOR value, as retrieval/_near_duplicate compares it; null when it has
// none or it is not a list of 1 to 4,096 floats, what a VECTOR holds (edited by hand in Neo4j
// Browser). The embedding is read once (the one-element list binds it to a name).
// params: none
[v IN [n.embedding] WHERE v IS :: LIST<FLOAT NOT NULL> AND 0 < size(v) <= 4096
 | vector(v, size(v), FLOAT32)][0]
