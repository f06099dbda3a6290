// Replace the vectors of existing thoughts (reembed). A row is written only while the thought
// still has the text its vector was computed from: an update in between keeps its own vector.
// params: $namespace,
//         $rows (LIST OF MAP {thought_id, essence, content_hash, embedding: LIST<FLOAT>})
// returns: thought_id (one row per vector written)
UNWIND $rows AS row
MATCH (t:Thought {namespace: $namespace, thought_id: row.thought_id})
USING INDEX SEEK t:Thought(namespace, thought_id)
WHERE t.essence = row.essence AND t.content_hash = row.content_hash
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
RETURN t.thought_id AS thought_id
