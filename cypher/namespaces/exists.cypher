// Whether a namespace is registered.
// params: $namespace
// returns: exists (BOOLEAN)
OPTIONAL MATCH (n:Namespace {name: $namespace})
RETURN n IS NOT NULL AS exists
