// Create thoughts (one or many) with their type label, embedding, and MENTIONS/TAGGED links.
// A (namespace, thought_id) collision fails the whole statement (constraint thought_key).
// params: $namespace, $ns_token,
//         $rows (LIST OF MAP {label, props (its tags are linked), embedding: LIST<FLOAT> or null,
//         entities})
// returns: thought_id
UNWIND $rows AS row
CREATE (t:Thought:$(row.label))
SET t = row.props, t.namespace = $namespace, t.ns_token = $ns_token, t.entities = row.entities
WITH t, row
CALL (t, row) {
  WITH t, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
}
{{> thoughts/_link}}
RETURN t.thought_id AS thought_id
