// Write newer versions of existing thoughts as they are (a sync from another store): a row
// replaces its thought only while the stored version is older (updated_at), so a thought
// updated meanwhile keeps its update. Properties merge (null removes), the type label, the
// vector (a null one removes the stored vector, made from the old text) and the MENTIONS/TAGGED
// links follow the new version. An ACTIVE thought is never `retired`.
// params: $namespace, $rows (LIST OF MAP {old_label, label, props (MAP; null values remove),
//         embedding: LIST<FLOAT> or null, entities (LIST<STRING>)})
// returns: thought_id (one row per thought replaced)
UNWIND $rows AS row
MATCH (t:Thought {namespace: $namespace, thought_id: row.props.thought_id})
USING INDEX SEEK t:Thought(namespace, thought_id)
WHERE t.updated_at < row.props.updated_at
SET t += row.props, t.entities = row.entities, t.revision = coalesce(t.revision, 0) + 1
REMOVE t:$(row.old_label)
SET t:$(row.label)
SET t.retired = CASE WHEN t.lifecycle_status = 'ACTIVE' THEN null ELSE t.retired END
WITH t, row
CALL (t, row) {
  WITH t, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
}
CALL (t, row) {
  WITH t, row WHERE row.embedding IS NULL
  REMOVE t.embedding
}
{{> thoughts/_relink}}
RETURN t.thought_id AS thought_id
