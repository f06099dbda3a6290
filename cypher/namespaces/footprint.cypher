// The footprint of one namespace: how many nodes carry its name, and how many relationships
// leave them (every relationship starts at a node of its namespace). Tests use it to show that
// work in one namespace leaves the others untouched. Scans all nodes: not for hot paths.
// params: $namespace
// returns: nodes (INTEGER), relationships (INTEGER)
CALL () {
  MATCH (n)
  WHERE n.namespace = $namespace
  RETURN count(n) AS nodes
}
CALL () {
  MATCH (n)-[r]->()
  WHERE n.namespace = $namespace
  RETURN count(r) AS relationships
}
RETURN nodes, relationships
