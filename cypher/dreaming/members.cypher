// Cluster members as the reflection summary reads them (text, embedding, cycle, valid time), as
// ONE row (a row per member costs the driver more than its values).
// params: $namespace, $thought_ids (LIST<STRING>), $with_embedding (BOOLEAN: false when the pass
//         holds the vectors already)
// returns: members (LIST OF MAP {thought_id, essence, content, embedding (LIST<FLOAT>, null
//          without $with_embedding), created_cycle (INTEGER), confidence (FLOAT or null),
//          valid_from, valid_until (DATETIME or null)}); a value no write produces (set by hand
//          in Neo4j Browser) reads as the default: a text that is not a string as '', a cycle
//          as 0, a confidence as null (dreaming/_confidence), a time as null
UNWIND $thought_ids AS id
MATCH (t:Thought {namespace: $namespace, thought_id: id})
USING INDEX SEEK t:Thought(namespace, thought_id)
RETURN collect({thought_id: t.thought_id,
                essence: CASE WHEN t.essence IS :: STRING NOT NULL THEN t.essence ELSE '' END,
                content: CASE WHEN t.content IS :: STRING NOT NULL THEN t.content ELSE '' END,
                embedding: CASE WHEN $with_embedding THEN t.embedding END,
                created_cycle: CASE WHEN t.created_cycle IS :: INTEGER NOT NULL
                                    THEN t.created_cycle ELSE 0 END,
                confidence: {{> dreaming/_confidence}},
                valid_from: CASE WHEN t.valid_from IS :: ZONED DATETIME THEN t.valid_from END,
                valid_until: CASE WHEN t.valid_until IS :: ZONED DATETIME THEN t.valid_until END})
       AS members
