// How many nodes a namespace holds and how many relationships touch them (operations, checks).
// params: $namespace
// returns: nodes (INTEGER), relationships (INTEGER)
MATCH (n {namespace: $namespace})
OPTIONAL MATCH (n)-[r]-()
RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS relationships
