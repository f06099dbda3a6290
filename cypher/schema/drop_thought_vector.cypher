// Drop the Thought.embedding vector index (the migration to filter properties on Neo4j 2026.x
// drops an index built without them, then schema/thought_vector_filtered builds it again).
// params: none
DROP INDEX thought_embedding IF EXISTS
