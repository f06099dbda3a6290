// Cluster members as the reflection summary reads them (text, embedding, cycle, valid time), as
// ONE row (a row per member costs the driver more than its values).
// params: $namespace, $thought_ids (LIST<STRING>), $with_embedding (BOOLEAN: false when the pass
//         holds the vectors already)
// returns: members (LIST OF MAP {thought_id, essence, content, embedding (LIST<FLOAT>, null
//          without $with_embedding), created_cycle (INTEGER), confidence (FLOAT or null),
//          valid_from, valid_until (DATETIME or null)})
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
RETURN collect({thought_id: t.thought_id, essence: t.essence, content: t.content,
                embedding: CASE WHEN $with_embedding THEN t.embedding END,
                created_cycle: coalesce(t.created_cycle, 0), confidence: t.confidence,
                valid_from: t.valid_from, valid_until: t.valid_until}) AS members
