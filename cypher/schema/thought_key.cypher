// Uniqueness of a thought id within its namespace (also the index behind every lookup by id).
// params: none
CREATE CONSTRAINT thought_key IF NOT EXISTS
FOR (t:Thought) REQUIRE (t.namespace, t.thought_id) IS UNIQUE
