// List thoughts matching filters, ordered by thought_id, after a cursor (keyset pagination).
// params: the _filter params, $namespace, $after_id (STRING or null), $offset, $limit
// returns: thought (MAP)
MATCH (t:Thought {namespace: $namespace})
WHERE ($after_id IS NULL OR t.thought_id > $after_id)
  AND {{> thoughts/_filter}}
RETURN {{> thoughts/_projection}} AS thought
ORDER BY t.thought_id
SKIP $offset LIMIT $limit
