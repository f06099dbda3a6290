// Vector index on Thought.embedding, cosine, with the namespace and the lifecycle status as
// filter properties, so that `SEARCH … WHERE t.namespace = … AND t.lifecycle_status IN …` ranks
// one namespace's thoughts inside the index (Neo4j 2026.01 and later; 5.26 uses
// schema/thought_vector). Quantization off: full-precision vectors, as on 5.26.
// params: $dimensions (INTEGER, 1..4096)
CYPHER 25
CREATE VECTOR INDEX thought_embedding IF NOT EXISTS
FOR (t:Thought) ON t.embedding
WITH [t.namespace, t.lifecycle_status]
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}}
