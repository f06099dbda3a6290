// Add access counts and stamp last_accessed_at (explicit record_access and buffer flushes).
// The count saturates at 9223372036854775807 (Neo4j's largest integer, model/bounds.py
// INT64_MAX) instead of overflowing.
// params: $namespace, $rows (LIST OF MAP {thought_id, count >= 0}), $now (DATETIME)
// returns: updated (INTEGER)
UNWIND $rows AS row
MATCH (t:Thought {namespace: $namespace, thought_id: row.thought_id})
USING INDEX SEEK t:Thought(namespace, thought_id)
WITH t, row, coalesce(t.access_count, 0) AS accessed
SET t.access_count = CASE WHEN accessed > 9223372036854775807 - row.count THEN 9223372036854775807
                          ELSE accessed + row.count END,
    t.last_accessed_at = $now
RETURN count(t) AS updated
