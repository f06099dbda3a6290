// Keyword arm, candidates: the namespace's thoughts the full-text index matches for any analysed
// query term (one Lucene query per term, each with the required ns_token clause, at most
// $per_term_limit hits), each once with its text and whether it is retrievable; the caller
// counts document frequencies and computes BM25 on its own analysis of these texts (the index's
// scores are database-wide, and its Porter stemmer differs from the query side's).
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene)}>),
//         $per_term_limit (INTEGER), and the _retrievable params
// returns: one row, matched (LIST<MAP {thought_id, essence, content, retrievable: BOOLEAN}>)
CALL () {
  UNWIND $term_queries AS tq
  CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: $per_term_limit})
  YIELD node AS t
  WITH DISTINCT t
  RETURN collect({thought_id: t.thought_id, essence: t.essence, content: t.content,
                  retrievable: {{> search/_retrievable}}}) AS matched
}
RETURN matched
