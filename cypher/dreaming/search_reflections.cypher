// search_reflections_only: every retrievable ACTIVE reflection of the namespace scored by exact
// cosine to $vector (all scored, so none is missed), or 0 when $vector is null or the
// reflection's embedding is missing or of another size (edited by hand in Neo4j Browser); best
// first.
// params: $vector (LIST<FLOAT> or null), $limit, and the search/_retrievable params
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2, or 0),
//          updated_cycle, updated_at, created_at
MATCH (t:Reflection {namespace: $namespace})
WHERE t.lifecycle_status = 'ACTIVE' AND {{> search/_retrievable}}
WITH t, CASE WHEN size(t.embedding) = size($vector)
             THEN vector.similarity.cosine(t.embedding, $vector) ELSE 0.0 END AS score
RETURN t.thought_id AS thought_id, score, t.updated_cycle AS updated_cycle,
       t.updated_at AS updated_at, t.created_at AS created_at
ORDER BY score DESC, thought_id
LIMIT $limit
