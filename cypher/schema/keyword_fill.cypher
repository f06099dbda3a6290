// Migration to schema version 4: store the keyword terms of thoughts read by
// schema/keyword_missing (engrava_graph.search.bm25.keyword_properties). A thought whose texts
// changed since they were read is left for the next batch.
// params: $rows (LIST OF MAP {id: STRING (elementId), essence, content, keyword_terms: STRING,
//         keyword_length: INTEGER})
// returns: filled (INTEGER)
UNWIND $rows AS row
MATCH (t:Thought)
WHERE elementId(t) = row.id AND t.keyword_terms IS NULL
  AND coalesce(t.essence, '') = coalesce(row.essence, '')
  AND coalesce(t.content, '') = coalesce(row.content, '')
SET t.keyword_terms = row.keyword_terms, t.keyword_length = row.keyword_length
RETURN count(t) AS filled
