// Retire the reflections whose whole source cluster left ACTIVE (the freshness rule; the
// peer's retire_orphan_reflections): ACTIVE, not pinned, priority not protected, no ACTIVE
// CONSOLIDATED_FROM target, and either dreaming-made or with at least one such edge. They become
// ARCHIVED with retired = true: excluded from retrieval even with include_archived until
// restore_thought makes them ACTIVE again. No hygiene archive stamps are set.
// params: $namespace, $protected_priorities (LIST<STRING>), $now (DATETIME)
// returns: retired (INTEGER)
MATCH (r:Reflection {namespace: $namespace})
WHERE r.lifecycle_status = 'ACTIVE' AND NOT coalesce(r.pinned, false)
  AND NOT r.priority IN $protected_priorities
  AND (r.source_type = 'DREAMING' OR EXISTS { (r)-[:CONSOLIDATED_FROM]->(:Thought) })
  AND NOT EXISTS { (r)-[:CONSOLIDATED_FROM]->(m:Thought) WHERE m.lifecycle_status = 'ACTIVE' }
SET r.lifecycle_status = 'ARCHIVED', r.retired = true, r.updated_at = $now,
    r.revision = coalesce(r.revision, 0) + 1
RETURN count(r) AS retired
