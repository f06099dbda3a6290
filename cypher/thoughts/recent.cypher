// A namespace's newest thoughts that have not expired, newest first (the MCP resource
// memory://{namespace}/recent, the CLI's `list`), of one type when $thought_type is set.
// params: $namespace, $now (DATETIME), $thought_type (STRING or null), $limit (INTEGER)
// returns: thought (MAP)
MATCH (t:Thought {namespace: $namespace})
WHERE (t.expires_at IS NULL OR t.expires_at > $now)
  AND ($thought_type IS NULL OR t.thought_type = $thought_type)
RETURN {{> thoughts/_projection}} AS thought
ORDER BY t.created_at DESC, t.thought_id
LIMIT $limit
