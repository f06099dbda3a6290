// Range index on (namespace, created_at): listing order and temporal windows.
// params: none
CREATE INDEX thought_created_at IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.created_at)
