// Range index on (namespace, content_hash): create_thought(deduplicate=True).
// params: none
CREATE INDEX thought_content_hash IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.content_hash)
