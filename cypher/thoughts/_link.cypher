// Fragment: MENTIONS/TAGGED links from a thought t to the entities and tags it stores
// (t.entities, t.tags), each Entity/Tag node merged in t's namespace.
// params: $namespace
CALL (t) {
  UNWIND t.entities AS name
  MERGE (e:Entity {namespace: $namespace, name: name})
  MERGE (t)-[:MENTIONS]->(e)
}
CALL (t) {
  UNWIND t.tags AS name
  MERGE (g:Tag {namespace: $namespace, name: name})
  MERGE (t)-[:TAGGED]->(g)
}
