// Keyword arm, candidates: the namespace's thoughts the full-text index matches for the analysed
// query terms, each once with its text (search/_keyword_text) and whether it is retrievable; the
// caller computes BM25 on its own analysis of these texts with the namespace's statistics (the
// index's scores are database-wide, and its Porter stemmer differs from the query side's).
// Per term, one Lucene query with the required ns_token clause counts its hits (at most its
// `limit`; no property is read); a term whose count the caller already knows (`hits`, cached
// with the namespace's statistics) and has no hit to read (`limit` 0) is not queried. A common
// term, one matched in at least half of the namespace ($documents thoughts; a speaker's name on
// every turn) and in at least $common_min_hits thoughts, has BM25's idf floored to almost
// nothing: only its $common_keep best hits are read. The other terms' hits are all read when
// they are at most $match_limit (`complete`: the caller counts document frequencies on the
// texts); when there are more, one Lucene query for any of those terms inside the namespace
// reads the index's $match_limit best (the caller takes the hit counts as document
// frequencies). When the namespace holds every thought of the database ($sole_namespace, from
// the caller's statistics) that query leaves out the ns_token clause: intersecting with a
// posting list of the whole index cost Lucene more than the query itself (1,000,000 thoughts:
// 9 -> 6 ms); a thought of another namespace written since the statistics were read takes one
// of the $match_limit places and is dropped, so it never reaches the caller.
// params: $term_queries (LIST<MAP {term: STRING, query: STRING (escaped Lucene), clause: STRING
//         (the term's own clause, escaped Lucene), limit: INTEGER (hits read; 0 = none),
//         hits: INTEGER or null (known hit count)}>), $ns_token (STRING), $sole_namespace
//         (BOOLEAN), $documents,
//         $common_min_hits, $common_keep, $match_limit (INTEGERs), and the _retrievable params
// returns: one row, matched (LIST of [thought_id, text (search/_keyword_text), retrievable
//          (BOOLEAN)]; a list per thought, not a map: the driver reads lists back faster),
//          hits (LIST<MAP {term: STRING, hits: INTEGER, common: BOOLEAN}>), complete (BOOLEAN)
CALL () {
  UNWIND $term_queries AS tq
  CALL (tq) {
    // Grouped by tq: a term without a hit in the namespace yields no row (it is left out).
    WITH tq WHERE tq.limit > 0
    CALL db.index.fulltext.queryNodes('thought_text', tq.query, {limit: tq.limit})
    YIELD node AS t
    WITH tq, collect(t) AS hits
    RETURN hits
    UNION ALL
    WITH tq WHERE tq.limit = 0
    RETURN [] AS hits
  }
  WITH tq, hits, coalesce(tq.hits, size(hits)) AS count
  RETURN collect({term: tq.term, clause: tq.clause, hits: hits, count: count,
                  common: 2 * count >= $documents AND count >= $common_min_hits}) AS per_term
}
WITH per_term, [p IN per_term WHERE NOT p.common] AS rare
WITH per_term, rare, reduce(n = 0, p IN rare | n + p.count) AS rare_hits
CALL (rare, rare_hits) {
  WITH rare WHERE rare_hits <= $match_limit
  RETURN reduce(found = [], p IN rare | found + p.hits) AS best, true AS complete
  UNION ALL
  WITH rare WHERE rare_hits > $match_limit
  WITH reduce(q = '', p IN rare | q + ' ' + p.clause) AS any_term
  CALL db.index.fulltext.queryNodes(
    'thought_text',
    CASE WHEN $sole_namespace THEN any_term ELSE '+ns_token:' + $ns_token + ' +(' + any_term + ')' END,
    {limit: $match_limit})
  YIELD node AS t
  WITH collect(t) AS found
  RETURN [t IN found WHERE t.namespace = $namespace] AS best,
         size(found) < $match_limit AS complete
}
CALL (per_term, best) {
  UNWIND best + reduce(kept = [], p IN [x IN per_term WHERE x.common]
                       | kept + p.hits[0..$common_keep]) AS t
  WITH DISTINCT t
  RETURN collect([t.thought_id, {{> search/_keyword_text}}, {{> search/_retrievable}}]) AS matched
}
RETURN matched, [p IN per_term | {term: p.term, hits: p.count, common: p.common}] AS hits,
       complete
