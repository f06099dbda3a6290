// A namespace's newest thoughts that have not expired, newest first (the MCP resource
// memory://{namespace}/recent).
// params: $namespace, $now (DATETIME), $limit (INTEGER)
// returns: thought (MAP)
MATCH (t:Thought {namespace: $namespace})
WHERE t.expires_at IS NULL OR t.expires_at > $now
RETURN {{> thoughts/_projection}} AS thought
ORDER BY t.created_at DESC, t.thought_id
LIMIT $limit
