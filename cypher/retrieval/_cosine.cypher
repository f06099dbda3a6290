// Fragment: the cosine between node `t`'s embedding and the query $vector, clipped to [0, 1]
// (Neo4j's vector.similarity.cosine returns (1 + cos) / 2); null without either vector, and for
// an embedding of another size than $vector (edited by hand in Neo4j Browser: such a memory
// ranks with the defaults, as one without an embedding). The embedding is read once (the
// one-element list binds it to a name; the size test is a property of the list, no scan).
// params: $vector (LIST<FLOAT> or null)
[s IN [e IN [t.embedding] WHERE size(e) = size($vector) | vector.similarity.cosine(e, $vector)]
 | CASE WHEN s IS NULL THEN null WHEN s < 0.5 THEN 0.0 ELSE 2.0 * s - 1.0 END][0]
