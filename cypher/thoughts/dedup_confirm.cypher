// create_thought(deduplicate=True), step 1: take the namespace's dedup lock (serialises
// concurrent dedup creates), then, if a thought with this content hash exists, count one more
// confirmation on it and return it.
// params: $namespace, $content_hash, $now (DATETIME)
// returns: thought (MAP) or no row
MATCH (n:Namespace {name: $namespace})
SET n.dedup_lock = coalesce(n.dedup_lock, 0) + 1
WITH n
MATCH (t:Thought {namespace: $namespace, content_hash: $content_hash})
WITH t ORDER BY t.created_at, t.thought_id LIMIT 1
SET t.confirmation_count = coalesce(t.confirmation_count, 0) + 1
RETURN {{> thoughts/_projection}} AS thought
