// Phases 4 and 8 and the candidate records, in one statement: spreading activation from the
// seeds (retrieval/_neighbours), then, for every activated or reached memory that is
// retrievable, its fields, its cosine to the query, where spreading brought it from, and which
// other candidates are its near-duplicates (cosine > $duplicate_threshold). No vector leaves
// the server.
// params: $activated (LIST<STRING> ids the arms found), $seeds (LIST<STRING>),
//         $duplicate_threshold (FLOAT cosine), the retrieval/_neighbours params, the
//         retrieval/_cosine params and the search/_retrievable params
// returns: fields (MAP, retrieval/_candidate_fields), similarity (FLOAT in [0, 1] or null),
//          arrivals (LIST<MAP {from_id, via, weight}>), duplicates (LIST<STRING> ids)
CALL () {
  UNWIND $activated AS id
  MATCH (t:Thought {namespace: $namespace, thought_id: id})
  RETURN t, null AS from_id, null AS via, 0.0 AS weight
  UNION ALL
  UNWIND $seeds AS sid
  MATCH (s:Thought {namespace: $namespace, thought_id: sid})
  CALL (s) {
    {{> retrieval/_neighbours}}
  }
  RETURN t, s.thought_id AS from_id, via, weight
}
WITH t, collect(CASE WHEN from_id IS NOT NULL
                     THEN {from_id: from_id, via: via, weight: weight} END) AS arrivals
WHERE {{> search/_retrievable}}
WITH collect({t: t, id: t.thought_id, arrivals: arrivals, embedding: t.embedding}) AS rows
UNWIND rows AS row
WITH row.t AS t, row, rows
RETURN {{> retrieval/_candidate_fields}} AS fields,
       {{> retrieval/_cosine}} AS similarity,
       row.arrivals AS arrivals,
       CASE WHEN row.embedding IS NULL THEN []
            ELSE [other IN rows WHERE other.id <> row.id AND other.embedding IS NOT NULL
                    AND vector.similarity.cosine(row.embedding, other.embedding)
                        > (1.0 + $duplicate_threshold) / 2.0 | other.id] END AS duplicates
