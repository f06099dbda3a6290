// The footprint of one namespace: how many nodes carry its name, and how many relationships
// leave them (every relationship starts at a node of its namespace), each node's outgoing
// relationships counted from its degree (no relationship is read). Tests use it to show that
// work in one namespace leaves the others untouched. Scans all nodes: not for hot paths.
// params: $namespace
// returns: nodes (INTEGER), relationships (INTEGER)
MATCH (n)
WHERE n.namespace = $namespace
RETURN count(n) AS nodes, sum(COUNT { (n)-->() }) AS relationships
