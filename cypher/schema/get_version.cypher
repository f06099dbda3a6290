// The schema version recorded in the graph.
// params: none
// returns: version (INTEGER), applied_at (DATETIME)
MATCH (s:SchemaVersion {id: 'engrava-graph'})
RETURN s.version AS version, s.applied_at AS applied_at
