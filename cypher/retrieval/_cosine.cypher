// Fragment: the cosine between node `t`'s embedding and the query $vector, clipped to [0, 1]
// (Neo4j's vector.similarity.cosine returns (1 + cos) / 2); null without either vector. The
// embedding is read once (the one-element list binds the similarity to a name).
// params: $vector (LIST<FLOAT> or null)
[s IN [vector.similarity.cosine(t.embedding, $vector)]
 | CASE WHEN s IS NULL THEN null WHEN s < 0.5 THEN 0.0 ELSE 2.0 * s - 1.0 END][0]
