// What a pass's outcome depends on among the namespace's reflections (which exist, their
// lifecycle, retired mark, revision and CONSOLIDATED_FROM count), for the pass fingerprint.
// params: $namespace
// returns: thought_id, lifecycle_status, retired (BOOLEAN), revision, members (INTEGER)
MATCH (r:Reflection {namespace: $namespace})
RETURN r.thought_id AS thought_id, r.lifecycle_status AS lifecycle_status,
       coalesce(r.retired, false) AS retired, coalesce(r.revision, 0) AS revision,
       COUNT { (r)-[:CONSOLIDATED_FROM]->(:Thought) } AS members
ORDER BY thought_id
