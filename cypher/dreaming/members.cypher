// Cluster members as the reflection summary reads them (text, embedding, cycle, valid time).
// params: $namespace, $thought_ids (LIST<STRING>), $with_embedding (BOOLEAN: false when the pass
//         holds the vectors already)
// returns: thought_id, essence, content, embedding (LIST<FLOAT>, null without $with_embedding),
//          created_cycle (INTEGER), confidence (FLOAT or null), valid_from, valid_until
//          (DATETIME or null)
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
RETURN t.thought_id AS thought_id, t.essence AS essence, t.content AS content,
       CASE WHEN $with_embedding THEN t.embedding END AS embedding,
       coalesce(t.created_cycle, 0) AS created_cycle,
       t.confidence AS confidence, t.valid_from AS valid_from, t.valid_until AS valid_until
