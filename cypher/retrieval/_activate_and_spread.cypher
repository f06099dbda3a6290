// Fragment: Phases 3 and 4 after the arms, and the candidates' ranking fields. Input rows: t
// (node), vscore (the vector arm's index score for one query vector, or null), kw (the keyword
// arm's normalised BM25 in [0, 1], or null). Per memory: the keyword score, the cosine (the best
// of the vector arm's and the cosine to the question $vector, so a keyword hit has its true one)
// and the direct similarity; the $seeds most similar (ties by id) spread (retrieval/_neighbours);
// then, for every activated or reached memory that is retrievable, its ranking fields, cosine
// and where spreading brought it from. No vector leaves the server, nor any text: the results'
// texts are read after ranking (retrieval/distinct).
// params: $vector (LIST<FLOAT> or null), $vectors (LIST<LIST<FLOAT>>), $vector_share,
//         $seeds (INTEGER, 0 = no spreading), the retrieval/_neighbours params and the
//         search/_retrievable params
// returns: one row, candidates (LIST of [fields (retrieval/_ranking_fields), similarity (FLOAT
//          cosine in [0, 1] or null), keyword (FLOAT in [0, 1] or null; null = not activated),
//          activated (BOOLEAN), arrivals (LIST of [from_id, via, weight])]). One record of lists,
//          not a record or a map per candidate: the driver reads both back far slower.
WITH t, max(vscore) AS vscore, max(kw) AS kw
WITH t, kw, CASE WHEN vscore IS NULL THEN null WHEN vscore < 0.5 THEN 0.0
                 ELSE 2.0 * vscore - 1.0 END AS arm_cosine
// A hit of the question's own vector already has its cosine; others are read.
WITH t, kw, arm_cosine,
     CASE WHEN arm_cosine IS NOT NULL AND size($vectors) = 1 THEN arm_cosine
          ELSE {{> retrieval/_cosine}} END AS cosine
WITH t, kw, CASE WHEN arm_cosine IS NULL OR (cosine IS NOT NULL AND cosine >= arm_cosine)
                 THEN cosine ELSE arm_cosine END AS cosine
WITH t, kw, cosine,
     CASE WHEN $vector IS NULL THEN coalesce(kw, 0.0)
          ELSE $vector_share * coalesce(cosine, 0.0) + (1.0 - $vector_share) * coalesce(kw, 0.0)
     END AS similarity
ORDER BY similarity DESC, t.thought_id
WITH collect({t: t, keyword: coalesce(kw, 0.0), cosine: cosine}) AS activated
CALL (activated) {
  UNWIND activated AS a
  RETURN a.t AS t, a.keyword AS keyword, a.cosine AS cosine, 1 AS active,
         null AS from_id, null AS via, 0.0 AS weight
  UNION ALL
  WITH activated, [a IN activated | a.t] AS activated_nodes
  UNWIND activated[0..$seeds] AS seed
  WITH seed.t AS s, activated_nodes
  CALL (s, activated_nodes) {
    {{> retrieval/_neighbours}}
  }
  RETURN t, null AS keyword, null AS cosine, 0 AS active, s.thought_id AS from_id, via, weight
}
WITH t, max(keyword) AS keyword, max(cosine) AS cosine, max(active) AS active,
     collect(CASE WHEN from_id IS NOT NULL THEN [from_id, via, weight] END) AS arrivals
RETURN collect([{{> retrieval/_ranking_fields}},
                 CASE WHEN active = 1 THEN cosine ELSE {{> retrieval/_cosine}} END,
                 keyword, active = 1, arrivals]) AS candidates
