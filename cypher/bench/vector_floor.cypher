// The latency floor of a vector search (benchmarks/bench_retrieve.py): one bare HNSW index query,
// no namespace filter, no fusion, nothing but ids and scores back.
// params: $vector (LIST<FLOAT>), $k (INTEGER)
// returns: thought_id, score (FLOAT, Neo4j's cosine score (1 + cos) / 2)
CALL db.index.vector.queryNodes('thought_embedding', $k, $vector)
YIELD node, score
RETURN node.thought_id AS thought_id, score
