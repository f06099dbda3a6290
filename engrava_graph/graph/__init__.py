"""Neo4j plumbing: driver and managed transactions, the Cypher registry, migrations and the
local Neo4j server manager."""
