// Fragment: whether the embedding `e` of a walked candidate and the kept one's `s.vectors[k]` (both
// from retrieval/_comparable_embedding) are near-duplicates: cosine above $duplicate_threshold
// (vector.similarity.cosine gives (1 + cos) / 2). Null, so false, when either is null or their
// sizes differ (one edited by hand in Neo4j Browser).
// params: $duplicate_threshold (FLOAT cosine)
CASE WHEN size(e) = size(s.vectors[k])
     THEN vector.similarity.cosine(e, s.vectors[k]) > (1.0 + $duplicate_threshold) / 2.0 END
