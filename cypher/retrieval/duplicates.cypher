// Phase 8, near-duplicate pairs among the best-ranked candidates: $thought_ids in rank order
// (best first); for each one, the higher-ranked ones among them whose cosine to it exceeds
// $duplicate_threshold (the only pairs the collapse reads: a candidate is dropped for a
// higher-ranked kept one). Ranked in Python first, so only the ranking's head is compared
// (n^2 / 2 cosines over a few dozen memories, not over every candidate). No vector leaves the
// server. The embeddings are compared as two parallel lists (a list of maps holding vectors
// cost Cypher eight times as much to filter).
// params: $namespace, $thought_ids (LIST<STRING> in rank order), $duplicate_threshold
//         (FLOAT cosine)
// returns: thought_id, duplicates (LIST<STRING> ids ranked above it); only memories with one
UNWIND range(0, size($thought_ids) - 1) AS rank
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_ids[rank]})
USING INDEX SEEK t:Thought(namespace, thought_id)
WHERE t.embedding IS NOT NULL
WITH rank, t ORDER BY rank
WITH collect(t.thought_id) AS ids, collect(t.embedding) AS embeddings
UNWIND range(1, size(ids) - 1) AS i
WITH ids[i] AS thought_id, embeddings[i] AS embedding, ids, embeddings, i
WITH thought_id, [j IN range(0, i - 1)
                  WHERE vector.similarity.cosine(embedding, embeddings[j])
                        > (1.0 + $duplicate_threshold) / 2.0 | ids[j]] AS duplicates
WHERE duplicates <> []
RETURN thought_id, duplicates
