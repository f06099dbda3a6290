// At most one edge per (from, to, type) in a namespace, enforced by Neo4j even under concurrent
// writers (slot rel_type: EdgeType).
// params: none
CREATE CONSTRAINT edge_triple_{{rel_type}} IF NOT EXISTS
FOR ()-[r:{{rel_type}}]-() REQUIRE (r.namespace, r.from_thought_id, r.to_thought_id) IS UNIQUE
