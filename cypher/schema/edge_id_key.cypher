// Uniqueness of an edge id within its namespace, for one relationship type (slot rel_type: EdgeType).
// params: none
CREATE CONSTRAINT edge_id_{{rel_type}} IF NOT EXISTS
FOR ()-[r:{{rel_type}}]-() REQUIRE (r.namespace, r.edge_id) IS UNIQUE
