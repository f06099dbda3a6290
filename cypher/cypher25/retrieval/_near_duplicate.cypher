// Fragment (Cypher 25, Neo4j 2026.01 and later; replaces retrieval/_near_duplicate): whether the
// VECTOR values `e` of a walked candidate and the kept one's `s.vectors[k]` are near-duplicates:
// cosine above $duplicate_threshold (vector_distance(COSINE) is 1 - cos, a fifth of the server
// time of vector.similarity.cosine over LIST<FLOAT>s). Null, so false, when either is null or
// their dimensions differ (one edited by hand in Neo4j Browser).
// params: $duplicate_threshold (FLOAT cosine)
CASE WHEN vector_dimension_count(e) = vector_dimension_count(s.vectors[k])
     THEN vector_distance(e, s.vectors[k], COSINE) < 1.0 - $duplicate_threshold END
