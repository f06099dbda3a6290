// Vector index on Thought.embedding, cosine; dimensions come from the embedding provider.
// params: $dimensions (INTEGER, 1..4096)
CREATE VECTOR INDEX thought_embedding IF NOT EXISTS
FOR (t:Thought) ON t.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}}
