// Query-less fallback of search_hybrid: the most recently updated retrievable thoughts.
// params: $top_k and the _retrievable params
// returns: thought_id
MATCH (t:Thought {namespace: $namespace})
WHERE {{> search/_retrievable}}
RETURN t.thought_id AS thought_id
ORDER BY t.updated_cycle DESC, t.updated_at DESC, thought_id
LIMIT $top_k
