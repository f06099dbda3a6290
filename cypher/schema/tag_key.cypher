// One Tag node per (namespace, name).
// params: none
CREATE CONSTRAINT tag_key IF NOT EXISTS
FOR (g:Tag) REQUIRE (g.namespace, g.name) IS UNIQUE
