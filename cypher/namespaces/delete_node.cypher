// Remove the Namespace node itself (after its contents are gone).
// params: $namespace
// returns: deleted (INTEGER)
OPTIONAL MATCH (n:Namespace {name: $namespace})
DETACH DELETE n
RETURN count(n) AS deleted
