// Memory hygiene: archive (reversibly) the thoughts the policy selects, oldest first, stamping
// archived_at / archived_at_cycle (cleared by restore_thought). Re-checks the rules at write time.
// params: the hygiene/_selected params, $limit (INTEGER)
// returns: thought_id, reason ('superseded' | 'cold')
MATCH (t:Thought {namespace: $namespace})
WHERE {{> hygiene/_selected}}
WITH t, CASE WHEN {{> hygiene/_superseded}} THEN 'superseded' ELSE 'cold' END AS reason
ORDER BY t.updated_cycle, t.thought_id
LIMIT $limit
SET t.lifecycle_status = 'ARCHIVED', t.archived_at = $now, t.archived_at_cycle = $current_cycle,
    t.updated_at = $now, t.revision = coalesce(t.revision, 0) + 1
RETURN t.thought_id AS thought_id, reason
