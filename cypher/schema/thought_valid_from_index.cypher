// Range index on (namespace, valid_from): valid-time windows and temporal spreading.
// params: none
CREATE INDEX thought_valid_from IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.valid_from)
