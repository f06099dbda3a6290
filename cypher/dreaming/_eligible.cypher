// Fragment: node `t` may enter a dreaming pass (the dreaming gates): an allowed type,
// ACTIVE, not retired, not expired at $now, at least $min_age_cycles old (cycles since
// created_cycle), and confirmed $min_confirmations times unless $allow_zero_confirmation. (Being
// embedded is checked on the candidates; a neighbour without a vector never scores.) A cycle or
// count that is not an integer (set by hand in Neo4j Browser) reads as 0, an expiry that is not
// a ZONED DATETIME as none.
// params: $namespace, $thought_types (LIST<STRING>), $current_cycle (INTEGER, cycles),
//         $min_age_cycles (INTEGER, cycles), $allow_zero_confirmation (BOOLEAN),
//         $min_confirmations (INTEGER), $now (DATETIME)
t.namespace = $namespace
AND t.thought_type IN $thought_types
AND t.lifecycle_status = 'ACTIVE'
AND NOT coalesce(t.retired, false)
AND (NOT t.expires_at IS :: ZONED DATETIME NOT NULL OR t.expires_at > $now)
AND $current_cycle - CASE WHEN t.created_cycle IS :: INTEGER NOT NULL THEN t.created_cycle ELSE 0 END
    >= $min_age_cycles
AND ($allow_zero_confirmation
     OR CASE WHEN t.confirmation_count IS :: INTEGER NOT NULL THEN t.confirmation_count ELSE 0 END
        >= $min_confirmations)
