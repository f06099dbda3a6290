// Statistics of one namespace for the search arms: its thought count and the mean length of the
// text the keyword arm matches on (BM25's N and avgdl), how many of its thoughts are not archived,
// and the database's thought count (the vector arm picks exact search or the index, and how far
// to over-fetch, from the counts).
// params: $namespace
// returns: in_namespace (INTEGER), mean_length (FLOAT, characters of search/_keyword_text, 0 when
//          empty),
//          unarchived (INTEGER), in_database (INTEGER)
CALL () {
  MATCH (t:Thought {namespace: $namespace})
  RETURN count(t) AS in_namespace,
         coalesce(avg(size({{> search/_keyword_text}})), 0.0) AS mean_length,
         count(CASE WHEN t.lifecycle_status <> 'ARCHIVED' THEN 1 END) AS unarchived
}
CALL () {
  MATCH (t:Thought)
  RETURN count(t) AS in_database
}
RETURN in_namespace, mean_length, unarchived, in_database
