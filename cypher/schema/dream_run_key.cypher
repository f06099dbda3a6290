// One DreamRun node per (namespace, run_id).
// params: none
CREATE CONSTRAINT dream_run_key IF NOT EXISTS
FOR (d:DreamRun) REQUIRE (d.namespace, d.run_id) IS UNIQUE
