// create_thought(deduplicate=True), step 1: take the namespace's dedup lock (serialises
// concurrent dedup creates), then, if a thought with this content hash exists whose valid time
// covers the new one's ([$valid_from, $valid_until], null = open), count one more confirmation
// on it and return it. A re-observation in an interval the existing thought does not cover
// matches nothing here, so the caller stores it as a thought of its own: the fact stays
// answerable in both intervals. The count saturates at 9223372036854775807 (Neo4j's largest
// integer, model/bounds.py INT64_MAX) instead of overflowing.
// params: $namespace, $content_hash, $now (DATETIME), $valid_from, $valid_until (DATETIME or null)
// returns: thought (MAP) or no row
MATCH (n:Namespace {name: $namespace})
SET n.dedup_lock = coalesce(n.dedup_lock, 0) + 1
WITH n
MATCH (t:Thought {namespace: $namespace, content_hash: $content_hash})
WHERE (t.valid_from IS NULL OR t.valid_from <= $valid_from)
  AND (t.valid_until IS NULL OR t.valid_until >= $valid_until)
WITH t ORDER BY t.created_at, t.thought_id LIMIT 1
WITH t, coalesce(t.confirmation_count, 0) AS confirmed
SET t.confirmation_count = CASE WHEN confirmed < 9223372036854775807 THEN confirmed + 1
                                ELSE confirmed END
RETURN {{> thoughts/_projection}} AS thought
