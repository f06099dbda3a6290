// Record the schema version (idempotent).
// params: $version (INTEGER), $now (DATETIME)
MERGE (s:SchemaVersion {id: 'engrava-graph'})
SET s.version = $version, s.applied_at = $now
