// Keyword arm, candidates: for each analysed query term, the namespace's thoughts the full-text
// index matches (one Lucene query per term, each with the required ns_token clause, at most
// $per_term_limit hits), with the term's document frequency in the namespace; BM25 is computed
// by the caller from namespace statistics (the index's own scores are database-wide).
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene)}>),
//         $per_term_limit (INTEGER), and the _retrievable params
// returns: terms (LIST<MAP {term, df, ids}>), docs (LIST<MAP {thought_id, essence, content}>);
//          no row when no retrievable thought matched
UNWIND $term_queries AS tq
CALL (tq) {
  CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: $per_term_limit})
  YIELD node AS t
  WITH t, {{> search/_retrievable}} AS retrievable
  RETURN count(t) AS df, collect(CASE WHEN retrievable THEN t END) AS kept
}
WITH collect({term: tq.term, df: df, ids: [t IN kept | t.thought_id]}) AS terms,
     collect(kept) AS lists
UNWIND lists AS kept
UNWIND kept AS t
WITH terms, collect(DISTINCT t) AS docs
RETURN terms, [t IN docs | {thought_id: t.thought_id, essence: t.essence, content: t.content}] AS docs
