// Keyword arm, candidates: the namespace's thoughts the full-text index matches for any analysed
// query term (one Lucene query per term, each with the required ns_token clause, at most
// $per_term_limit hits, best first), each once with its text and whether it is retrievable; the
// caller counts document frequencies and computes BM25 on its own analysis of these texts (the
// index's scores are database-wide, and its Porter stemmer differs from the query side's).
// A common term, one the index matches in at least half of the namespace ($documents thoughts;
// a speaker's name on every turn) and in at least $common_min_hits thoughts, has BM25's idf
// floored to almost nothing: only its $common_keep best hits are read, and its hit count is
// returned to stand for its document frequency. A text is read once, and only a few hundred
// instead of most of the namespace.
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene)}>),
//         $per_term_limit (INTEGER), $documents (INTEGER), $common_min_hits (INTEGER),
//         $common_keep (INTEGER), and the _retrievable params
// returns: one row, matched (LIST<MAP {thought_id, essence, content, retrievable: BOOLEAN}>),
//          common (LIST<MAP {term: STRING, hits: INTEGER}>)
CALL () {
  UNWIND $term_queries AS tq
  CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: $per_term_limit})
  YIELD node AS t
  WITH tq.term AS term, collect(t) AS hits
  RETURN collect({term: term, hits: hits}) AS per_term
}
WITH per_term, [p IN per_term WHERE 2 * size(p.hits) >= $documents
                                AND size(p.hits) >= $common_min_hits | p.term] AS common
CALL (per_term, common) {
  UNWIND per_term AS p
  UNWIND CASE WHEN p.term IN common THEN p.hits[0..$common_keep] ELSE p.hits END AS t
  WITH DISTINCT t
  RETURN collect({thought_id: t.thought_id, essence: t.essence, content: t.content,
                  retrievable: {{> search/_retrievable}}}) AS matched
}
RETURN matched, [p IN per_term WHERE p.term IN common | {term: p.term, hits: size(p.hits)}]
         AS common
