// Fragment: a thought t's MENTIONS/TAGGED links replaced by links to the entities and tags it
// now stores (t.entities, t.tags).
// params: $namespace
CALL (t) {
  OPTIONAL MATCH (t)-[m:MENTIONS|TAGGED]->()
  DELETE m
}
{{> thoughts/_link}}
