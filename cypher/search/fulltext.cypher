// Keyword arm, candidates: the namespace's thoughts the full-text index matches for the analysed
// query terms, each once with its text and whether it is retrievable; the caller computes BM25
// on its own analysis of these texts with the namespace's statistics (the index's scores are
// database-wide, and its Porter stemmer differs from the query side's).
// Per term, one Lucene query with the required ns_token clause counts its hits (at most
// $per_term_limit; no property is read). A common term, one matched in at least half of the
// namespace ($documents thoughts; a speaker's name on every turn) and in at least
// $common_min_hits thoughts, has BM25's idf floored to almost nothing: only its $common_keep
// best hits are read. The other terms' hits are all read when they are at most $match_limit
// (`complete`: the caller counts document frequencies on the texts); when there are more, one
// Lucene query for any of those terms inside the namespace reads the index's $match_limit best
// (the caller takes the hit counts as document frequencies).
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene), clause: STRING
//         (the term's own clause, escaped Lucene)}>), $ns_token (STRING), $per_term_limit,
//         $documents, $common_min_hits, $common_keep, $match_limit (INTEGERs), and the
//         _retrievable params
// returns: one row, matched (LIST<MAP {thought_id, essence, content, retrievable: BOOLEAN}>),
//          hits (LIST<MAP {term: STRING, hits: INTEGER, common: BOOLEAN}>), complete (BOOLEAN)
CALL () {
  UNWIND $term_queries AS tq
  CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: $per_term_limit})
  YIELD node AS t
  WITH tq, collect(t) AS hits
  RETURN collect({term: tq.term, clause: tq.clause, hits: hits,
                  common: 2 * size(hits) >= $documents AND size(hits) >= $common_min_hits})
           AS per_term
}
WITH per_term, [p IN per_term WHERE NOT p.common] AS rare
WITH per_term, rare, reduce(n = 0, p IN rare | n + size(p.hits)) AS rare_hits
CALL (rare, rare_hits) {
  WITH rare WHERE rare_hits <= $match_limit
  RETURN reduce(found = [], p IN rare | found + p.hits) AS best, true AS complete
  UNION ALL
  WITH rare WHERE rare_hits > $match_limit
  CALL db.index.fulltext.queryNodes(
    'thought_text',
    '+ns_token:' + $ns_token + ' +(' + reduce(q = '', p IN rare | q + ' ' + p.clause) + ')',
    {limit: $match_limit})
  YIELD node AS t
  WITH collect(t) AS best
  RETURN best, size(best) < $match_limit AS complete
}
CALL (per_term, best) {
  UNWIND best + reduce(kept = [], p IN [x IN per_term WHERE x.common]
                       | kept + p.hits[0..$common_keep]) AS t
  WITH DISTINCT t
  RETURN collect({thought_id: t.thought_id, essence: t.essence, content: t.content,
                  retrievable: {{> search/_retrievable}}}) AS matched
}
RETURN matched, [p IN per_term | {term: p.term, hits: size(p.hits), common: p.common}] AS hits,
       complete
