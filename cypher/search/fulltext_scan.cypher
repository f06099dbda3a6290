// Keyword arm under a selective filter: every retrievable thought of the namespace (the caller
// checked there are few) with its text, so BM25 ranks the filtered set itself, and the
// namespace's thoughts the full-text index matches for any query term (as search/fulltext),
// whose texts give the terms' document frequencies in the namespace.
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene)}>),
//         $per_term_limit (INTEGER), and the _retrievable params
// returns: one row, matched (LIST<MAP {thought_id, essence, content}>),
//          docs (LIST<MAP {thought_id, essence, content}>)
CALL () {
  UNWIND $term_queries AS tq
  CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: $per_term_limit})
  YIELD node AS t
  WITH DISTINCT t
  RETURN collect({thought_id: t.thought_id, essence: t.essence, content: t.content}) AS matched
}
CALL () {
  MATCH (t:Thought {namespace: $namespace})
  WHERE {{> search/_retrievable}}
  RETURN collect({thought_id: t.thought_id, essence: t.essence, content: t.content}) AS docs
}
RETURN matched, docs
