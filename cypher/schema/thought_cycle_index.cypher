// Range index on (namespace, updated_cycle): cycle filters, max_cycle, dreaming age gates.
// params: none
CREATE INDEX thought_updated_cycle IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.updated_cycle)
