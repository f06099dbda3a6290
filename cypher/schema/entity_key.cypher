// One Entity node per (namespace, name).
// params: none
CREATE CONSTRAINT entity_key IF NOT EXISTS
FOR (e:Entity) REQUIRE (e.namespace, e.name) IS UNIQUE
