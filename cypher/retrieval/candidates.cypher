// Phases 5-9 read these per-candidate fields: decay clocks, importance, access frequency,
// valid time, and the cosine to the query. A candidate that is not retrievable (archived,
// retired, expired, failing the metadata filter) returns no row and leaves the cycle.
// params: $thought_ids (LIST<STRING>), $vector (LIST<FLOAT> or null), and the
//         search/_retrievable params
// returns: thought (MAP without the embedding), similarity (FLOAT cosine clipped to [0, 1] or null)
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
WHERE {{> search/_retrievable}}
WITH t, CASE WHEN $vector IS NULL OR t.embedding IS NULL THEN null
             ELSE 2.0 * vector.similarity.cosine(t.embedding, $vector) - 1.0 END AS cosine
RETURN {{> thoughts/_projection}} AS thought,
       CASE WHEN cosine < 0 THEN 0.0 ELSE cosine END AS similarity
