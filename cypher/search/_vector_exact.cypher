// Fragment (inside `CALL (v) { … }`), vector arm, exact: cosine between the query vector `v`
// and every embedded retrievable thought of the namespace; the $top_k best at or above
// $min_score (used when the namespace, or the part passing a metadata filter, is small). An
// embedding of another size than `v` (edited by hand in Neo4j Browser) is left out, as a thought
// without one.
// params: $top_k, $min_score (FLOAT, index score in [0, 1]), and the _retrievable params
// yields: t (node), score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
MATCH (t:Thought {namespace: $namespace})
WHERE size(t.embedding) = size(v) AND {{> search/_retrievable}}
WITH t, {{> search/_index_score}} AS score
WHERE score >= $min_score
RETURN t, score
ORDER BY score DESC, t.thought_id
LIMIT $top_k
