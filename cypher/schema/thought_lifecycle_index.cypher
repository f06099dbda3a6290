// Range index on (namespace, lifecycle_status): archived exclusion, dreaming eligibility.
// params: none
CREATE INDEX thought_lifecycle IF NOT EXISTS FOR (t:Thought) ON (t.namespace, t.lifecycle_status)
