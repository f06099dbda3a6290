// Phase 8, near-duplicate pairs among the best-ranked candidates: $thought_ids in rank order
// (best first); for each one, the higher-ranked ones among them whose cosine to it exceeds
// $duplicate_threshold (the only pairs the collapse reads: a candidate is dropped for a
// higher-ranked kept one). Ranked in Python first, so only the ranking's head is compared
// (n^2 / 2 cosines over a few dozen memories, not over every candidate). No vector leaves the
// server.
// params: $namespace, $thought_ids (LIST<STRING> in rank order), $duplicate_threshold
//         (FLOAT cosine)
// returns: thought_id, duplicates (LIST<STRING> ids ranked above it); only memories with one
UNWIND range(0, size($thought_ids) - 1) AS rank
MATCH (t:Thought {namespace: $namespace, thought_id: $thought_ids[rank]})
WHERE t.embedding IS NOT NULL
WITH collect({rank: rank, id: t.thought_id, embedding: t.embedding}) AS rows
UNWIND rows AS row
WITH row, [other IN rows WHERE other.rank < row.rank
             AND vector.similarity.cosine(row.embedding, other.embedding)
                 > (1.0 + $duplicate_threshold) / 2.0 | other.id] AS duplicates
WHERE duplicates <> []
RETURN row.id AS thought_id, duplicates
