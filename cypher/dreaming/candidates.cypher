// A page of the embedded thoughts eligible for a dreaming pass, by thought_id (keyset
// pagination in the order of the (namespace, thought_id) index, so a page reads only its own
// rows instead of sorting the namespace), with the fields the dreaming signals read, as ONE row
// (a row per thought costs the driver more than its values).
// An embedding of another length than $dimensions (edited by hand in Neo4j Browser) counts as
// none: such a thought stays out of the pass.
// params: the dreaming/_eligible params, $after_id (STRING or null), $limit (INTEGER),
//         $dimensions (INTEGER, the store's vector dimensions)
// returns: candidates (LIST of [thought_id, confidence (FLOAT or null), confirmation_count,
//          access_count, updated_cycle (INTEGER, cycles), version (STRING: revision, updated_at
//          and content hash, which change when the thought is written; the pass fingerprint
//          reads it)], in thought_id order). A value no write produces (set by hand in Neo4j
//          Browser: a string, a count below 0) reads as the default: confidence null, counts
//          and cycle 0.
MATCH (t:Thought {namespace: $namespace})
WHERE t.thought_id > coalesce($after_id, '') AND size(t.embedding) = $dimensions
  AND {{> dreaming/_eligible}}
WITH t
ORDER BY t.namespace, t.thought_id
LIMIT $limit
RETURN collect([t.thought_id, {{> dreaming/_confidence}},
                CASE WHEN t.confirmation_count IS :: INTEGER NOT NULL AND t.confirmation_count > 0
                     THEN t.confirmation_count ELSE 0 END,
                CASE WHEN t.access_count IS :: INTEGER NOT NULL AND t.access_count > 0
                     THEN t.access_count ELSE 0 END,
                CASE WHEN t.updated_cycle IS :: INTEGER NOT NULL THEN t.updated_cycle ELSE 0 END,
                toString(coalesce(t.revision, 0)) + '@' + coalesce(toString(t.updated_at), '')
                  + '#' + coalesce(t.content_hash, '')]) AS candidates
