// create_thought(deduplicate=True), step 1: take the namespace's dedup lock (serialises
// concurrent dedup creates), then, if a thought with this content hash exists, count one more
// confirmation on it and return it. The count saturates at 9223372036854775807 (Neo4j's largest
// integer, model/bounds.py INT64_MAX) instead of overflowing.
// params: $namespace, $content_hash
// returns: thought (MAP) or no row
MATCH (n:Namespace {name: $namespace})
SET n.dedup_lock = coalesce(n.dedup_lock, 0) + 1
WITH n
MATCH (t:Thought {namespace: $namespace, content_hash: $content_hash})
WITH t ORDER BY t.created_at, t.thought_id LIMIT 1
WITH t, coalesce(t.confirmation_count, 0) AS confirmed
SET t.confirmation_count = CASE WHEN confirmed < 9223372036854775807 THEN confirmed + 1
                                ELSE confirmed END
RETURN {{> thoughts/_projection}} AS thought
