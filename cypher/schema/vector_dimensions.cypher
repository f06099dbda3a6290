// The dimensions of the Thought.embedding vector index, if it exists.
// params: none
// returns: dimensions (INTEGER)
SHOW VECTOR INDEXES YIELD name, options
WHERE name = 'thought_embedding'
RETURN options.indexConfig['vector.dimensions'] AS dimensions
