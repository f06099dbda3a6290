// Clear `retired` on reflections whose source cluster has an ACTIVE member again: they stay
// ARCHIVED (include_archived or restore_thought brings them back), but are no longer retired.
// A reflection superseded by a grown cluster's reflection (its DREAMING DERIVED_FROM edge) stays
// retired while that one is ACTIVE.
// params: $namespace, $now (DATETIME)
// returns: unretired (INTEGER)
MATCH (r:Reflection {namespace: $namespace})
WHERE r.retired = true
  AND EXISTS { (r)-[:CONSOLIDATED_FROM]->(m:Thought) WHERE m.lifecycle_status = 'ACTIVE' }
  AND NOT EXISTS {
    (n:Reflection)-[:DERIVED_FROM {source: 'DREAMING'}]->(r) WHERE n.lifecycle_status = 'ACTIVE'
  }
REMOVE r.retired
SET r.updated_at = $now, r.revision = coalesce(r.revision, 0) + 1
RETURN count(r) AS unretired
