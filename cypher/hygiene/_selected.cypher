// Fragment: node `t` is selected by the memory-hygiene policy (HygienePolicy): ACTIVE, not pinned,
// priority not protected, untouched for $min_age_cycles (cycles since updated_cycle) and since
// $inactive_before (last access, else update, else creation), and either superseded (valid_until
// at or before $now) or cold (at least one cold rule on, and every rule that is on holds:
// access_count <= $max_access_count, confidence (0.5 when unset) < $min_confidence).
// params: $namespace, $current_cycle, $min_age_cycles (INTEGER, cycles), $inactive_before, $now
//         (DATETIME), $protected_priorities (LIST<STRING>), $archive_superseded (BOOLEAN),
//         $max_access_count (INTEGER or null), $min_confidence (FLOAT or null)
t.namespace = $namespace
AND t.lifecycle_status = 'ACTIVE'
AND NOT coalesce(t.pinned, false)
AND NOT t.priority IN $protected_priorities
AND $current_cycle - coalesce(t.updated_cycle, 0) >= $min_age_cycles
AND coalesce(t.last_accessed_at, t.updated_at, t.created_at) <= $inactive_before
AND (({{> hygiene/_superseded}})
     OR (($max_access_count IS NOT NULL OR $min_confidence IS NOT NULL)
         AND ($max_access_count IS NULL OR coalesce(t.access_count, 0) <= $max_access_count)
         AND ($min_confidence IS NULL OR coalesce(t.confidence, 0.5) < $min_confidence)))
