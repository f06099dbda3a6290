// Fragment: Phases 3 and 4 after the arms, the candidate pool. Input rows: t (node), vscore (the
// vector arm's index score for one query vector, or null), kw (the keyword arm's normalised BM25
// in [0, 1], or null). Per memory: the keyword score, the cosine (the best of the vector arm's
// and the cosine to the question $vector, so a keyword hit has its true one) and the direct
// similarity; the $seeds most similar (ties by id) spread (retrieval/_neighbours), each link
// passing on the seed's similarity times its weight. No vector leaves the server.
// params: $vector (LIST<FLOAT> or null), $vectors (LIST<LIST<FLOAT>>), $vector_share,
//         $seeds (INTEGER, 0 = no spreading), the retrieval/_neighbours params and the
//         search/_retrievable params
// yields: one row per activated or reached memory that is retrievable: t (node), keyword (FLOAT
//         in [0, 1], 0 when not activated by it), cosine (FLOAT in [0, 1] or null), activated
//         (BOOLEAN), reached_by ('activation' | 'spread'), hops (INTEGER: 0 when activated, else the fewest links
//         from a seed), arrivals (LIST of
//         [from_id, via, activation passed on]), causal (FLOAT, 0.0): the input of
//         retrieval/_rank
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
WITH collect({t: t, keyword: coalesce(kw, 0.0), cosine: cosine, similarity: similarity})
     AS activated
CALL (activated) {
  UNWIND activated AS a
  RETURN a.t AS t, a.keyword AS keyword, a.cosine AS cosine, 1 AS active,
         null AS from_id, null AS via, 0.0 AS passed, 0 AS hops
  UNION ALL
  WITH activated, [a IN activated | a.t] AS activated_nodes
  UNWIND activated[0..$seeds] AS seed
  WITH seed.t AS s, seed.similarity AS similarity, activated_nodes
  CALL (s, activated_nodes) {
    {{> retrieval/_neighbours}}
  }
  RETURN t, null AS keyword, null AS cosine, 0 AS active, s.thought_id AS from_id, via,
         similarity * weight AS passed, hops
}
WITH t, max(keyword) AS keyword, max(cosine) AS cosine, max(active) = 1 AS activated,
     collect(CASE WHEN from_id IS NOT NULL THEN [from_id, via, passed] END) AS arrivals,
     min(hops) AS hops
WITH t, coalesce(keyword, 0.0) AS keyword, activated, arrivals, hops,
     CASE WHEN activated THEN cosine ELSE {{> retrieval/_cosine}} END AS cosine,
     CASE WHEN activated THEN 'activation' ELSE 'spread' END AS reached_by, 0.0 AS causal
