// The Namespace node's properties (name, created_at and any annotations); no row when the
// namespace is not registered.
// params: $namespace
// returns: properties (MAP)
MATCH (n:Namespace {name: $namespace})
RETURN properties(n) AS properties
