// Fragment: a thought t's MENTIONS/TAGGED links replaced by links to the entities and tags it
// now stores (t.entities, t.tags).
// params: $namespace
CALL (t) {
  OPTIONAL MATCH (t)-[m:MENTIONS|TAGGED]->()
  DELETE m
}
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
