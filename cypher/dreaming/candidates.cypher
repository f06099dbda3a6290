// A page of the embedded thoughts eligible for a dreaming pass, by thought_id (keyset
// pagination), with the fields the dreaming signals read.
// params: the dreaming/_eligible params, $after_id (STRING or null), $limit (INTEGER)
// returns: thought_id, confidence (FLOAT or null), confirmation_count, access_count,
//          updated_cycle (INTEGER, cycles)
MATCH (t:Thought {namespace: $namespace})
WHERE ($after_id IS NULL OR t.thought_id > $after_id) AND t.embedding IS NOT NULL
  AND {{> dreaming/_eligible}}
RETURN t.thought_id AS thought_id, t.confidence AS confidence,
       coalesce(t.confirmation_count, 0) AS confirmation_count,
       coalesce(t.access_count, 0) AS access_count, coalesce(t.updated_cycle, 0) AS updated_cycle
ORDER BY t.thought_id
LIMIT $limit
