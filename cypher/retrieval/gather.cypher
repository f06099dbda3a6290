// Phase 4 and the candidate records, in one statement: spreading activation from the seeds
// (retrieval/_neighbours), then, for every activated or reached memory that is retrievable, its
// fields, its cosine to the query and where spreading brought it from. No vector leaves the
// server. (The near-duplicate pairs of Phase 8 come later, from retrieval/duplicates, for the
// head of the ranking only.)
// params: $activated (LIST<STRING> ids the arms found), $seeds (LIST<STRING>), the
//         retrieval/_neighbours params, the retrieval/_cosine params and the
//         search/_retrievable params
// returns: fields (MAP, retrieval/_candidate_fields), similarity (FLOAT in [0, 1] or null),
//          arrivals (LIST<MAP {from_id, via, weight}>)
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
RETURN {{> retrieval/_candidate_fields}} AS fields,
       {{> retrieval/_cosine}} AS similarity,
       arrivals
