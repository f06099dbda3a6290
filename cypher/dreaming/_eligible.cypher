// Fragment: node `t` may enter a dreaming pass (the dreaming gates): an allowed type,
// ACTIVE, not retired, not expired at $now, at least $min_age_cycles old (cycles since
// created_cycle), and confirmed $min_confirmations times unless $allow_zero_confirmation. (Being
// embedded is checked on the candidates; a neighbour without a vector never scores.)
// params: $namespace, $thought_types (LIST<STRING>), $current_cycle (INTEGER, cycles),
//         $min_age_cycles (INTEGER, cycles), $allow_zero_confirmation (BOOLEAN),
//         $min_confirmations (INTEGER), $now (DATETIME)
t.namespace = $namespace
AND t.thought_type IN $thought_types
AND t.lifecycle_status = 'ACTIVE'
AND NOT coalesce(t.retired, false)
AND (t.expires_at IS NULL OR t.expires_at > $now)
AND $current_cycle - coalesce(t.created_cycle, 0) >= $min_age_cycles
AND ($allow_zero_confirmation OR coalesce(t.confirmation_count, 0) >= $min_confirmations)
