// Fragment: the cosine between node `t`'s embedding and the query $vector, clipped to [0, 1]
// (Neo4j's vector.similarity.cosine returns (1 + cos) / 2); null without either vector.
// params: $vector (LIST<FLOAT> or null)
CASE WHEN $vector IS NULL OR t.embedding IS NULL THEN null
     ELSE CASE WHEN vector.similarity.cosine(t.embedding, $vector) < 0.5 THEN 0.0
               ELSE 2.0 * vector.similarity.cosine(t.embedding, $vector) - 1.0 END END
