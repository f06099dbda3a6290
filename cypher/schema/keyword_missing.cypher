// Migration to schema version 4: thoughts without stored keyword terms (written before them),
// a batch at a time, with the texts the terms are analysed from.
// params: $limit (INTEGER)
// returns: id (STRING, elementId), essence, content (STRINGs or null)
MATCH (t:Thought)
WHERE t.keyword_terms IS NULL
RETURN elementId(t) AS id, t.essence AS essence, t.content AS content
LIMIT $limit
