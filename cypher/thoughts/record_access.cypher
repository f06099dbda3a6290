// Add access counts and stamp last_accessed_at (explicit record_access and buffer flushes).
// params: $namespace, $rows (LIST OF MAP {thought_id, count}), $now (DATETIME)
// returns: updated (INTEGER)
UNWIND $rows AS row
MATCH (t:Thought {namespace: $namespace, thought_id: row.thought_id})
SET t.access_count = coalesce(t.access_count, 0) + row.count, t.last_accessed_at = $now
RETURN count(t) AS updated
