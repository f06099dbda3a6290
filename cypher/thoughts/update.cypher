// Write a new version of a thought: merge properties (null removes), relabel the type, replace
// the embedding when given, and re-link MENTIONS/TAGGED. Optimistic concurrency: only when the
// stored revision is still $expected_revision (no row back = someone else wrote first).
// An ACTIVE thought is never `retired` (restore_thought brings a retired reflection back).
// params: $namespace, $thought_id, $expected_revision (INTEGER), $props (MAP; null values
//         remove; its tags are linked), $old_label, $new_label,
//         $embedding (LIST<FLOAT> or null), $entities (LIST<STRING>)
// returns: thought (MAP)
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_id})
WHERE t.revision = $expected_revision
SET t += $props, t.entities = $entities, t.revision = t.revision + 1
REMOVE t:$($old_label)
SET t:$($new_label)
SET t.retired = CASE WHEN t.lifecycle_status = 'ACTIVE' THEN null ELSE t.retired END
WITH t
CALL (t) {
  WITH t WHERE $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(t, 'embedding', $embedding)
}
{{> thoughts/_relink}}
RETURN {{> thoughts/_projection}} AS thought
