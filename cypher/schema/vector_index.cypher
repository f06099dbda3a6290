// The Thought.embedding vector index, if it exists: its dimensions and the properties it holds
// (the vector property first, then its filter properties on Neo4j 2026.x).
// params: none
// returns: dimensions (INTEGER), properties (LIST<STRING>)
SHOW VECTOR INDEXES YIELD name, options, properties
WHERE name = 'thought_embedding'
RETURN options.indexConfig['vector.dimensions'] AS dimensions, properties
