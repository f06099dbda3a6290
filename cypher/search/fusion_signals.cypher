// Per-candidate fields the hybrid fusion reads (recency and priority signals). Instants come as
// epoch milliseconds: the driver's DateTime decoding costs more than the query itself. A time that
// is not a ZONED DATETIME (a string set by hand in Neo4j Browser) reads as null, and so does an
// updated_cycle that is not an INTEGER.
// params: $namespace, $thought_ids (LIST<STRING>)
// returns: thought_id, priority, updated_cycle, updated_ms, created_ms (INTEGER or null),
//          thought_type
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
RETURN t.thought_id AS thought_id, t.priority AS priority,
       CASE WHEN t.updated_cycle IS :: INTEGER THEN t.updated_cycle END AS updated_cycle,
       CASE WHEN t.updated_at IS :: ZONED DATETIME THEN t.updated_at.epochMillis END AS updated_ms,
       CASE WHEN t.created_at IS :: ZONED DATETIME THEN t.created_at.epochMillis END AS created_ms,
       t.thought_type AS thought_type
