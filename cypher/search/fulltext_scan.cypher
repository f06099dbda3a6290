// Keyword arm under a selective filter: every retrievable thought of the namespace (the caller
// checked there are few) with its text, and each query term's document frequency in the
// namespace from the full-text index, so BM25 ranks the filtered set itself.
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene)}>),
//         $per_term_limit (INTEGER), and the _retrievable params
// returns: terms (LIST<MAP {term, df, ids}>), docs (LIST<MAP {thought_id, essence, content}>)
UNWIND $term_queries AS tq
CALL (tq) {
  CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: $per_term_limit})
  YIELD node
  RETURN count(node) AS df, collect(node.thought_id) AS ids
}
WITH collect({term: tq.term, df: df, ids: ids}) AS terms
CALL () {
  MATCH (t:Thought {namespace: $namespace})
  WHERE {{> search/_retrievable}}
  RETURN collect({thought_id: t.thought_id, essence: t.essence, content: t.content}) AS docs
}
RETURN terms, docs
