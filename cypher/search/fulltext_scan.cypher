// Keyword arm under a selective filter: every retrievable thought of the namespace (the caller
// checked there are few) with its text, so BM25 ranks the filtered set itself, and the
// namespace's thoughts the full-text index matches for any query term (as search/fulltext),
// whose texts give the terms' document frequencies in the namespace.
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene)}>),
//         $per_term_limit (INTEGER), and the _retrievable params
// returns: one row, matched (LIST of [thought_id, text (search/_keyword_text)]),
//          docs (LIST of [thought_id, text])
CALL () {
  UNWIND $term_queries AS tq
  CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: $per_term_limit})
  YIELD node AS t
  WITH DISTINCT t
  RETURN collect([t.thought_id, {{> search/_keyword_text}}]) AS matched
}
CALL () {
  MATCH (t:Thought {namespace: $namespace})
  WHERE {{> search/_retrievable}}
  RETURN collect([t.thought_id, {{> search/_keyword_text}}]) AS docs
}
RETURN matched, docs
