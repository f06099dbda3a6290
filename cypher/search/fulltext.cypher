// Keyword arm: Lucene (BM25) over essence + content, restricted to the namespace inside the
// index by the required ns_token clause the caller put into $lucene_query.
// params: $lucene_query (STRING, escaped), $fetch_k, $top_k, and the _retrievable params
// returns: thought_id, score (FLOAT, raw Lucene score)
CALL db.index.fulltext.queryNodes('thought_text', $lucene_query, {limit: $fetch_k})
YIELD node AS t, score
WHERE {{> search/_retrievable}}
RETURN t.thought_id AS thought_id, score
ORDER BY score DESC, thought_id
LIMIT $top_k
