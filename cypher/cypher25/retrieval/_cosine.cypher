// Fragment (Cypher 25, Neo4j 2026.01 and later; replaces retrieval/_cosine): the cosine between
// node `t`'s embedding and the query $vector, clipped to [0, 1], computed on VECTOR values
// (vector_distance(COSINE) is 1 - cos; a third of the time vector.similarity.cosine takes over
// two LIST<FLOAT>s); null without either vector, for a zero vector, and for an embedding of
// another size than $vector (edited by hand in Neo4j Browser: such a memory ranks with the
// defaults, as one without an embedding). The embedding is read once.
// params: $vector (LIST<FLOAT> or null)
[d IN [e IN [t.embedding] WHERE size(e) = size($vector)
       | vector_distance(vector(e, size(e), FLOAT32), vector($vector, size($vector), FLOAT32),
                         COSINE)]
 | CASE WHEN NOT d <= 2.0 THEN null WHEN d > 1.0 THEN 0.0 ELSE 1.0 - d END][0]
