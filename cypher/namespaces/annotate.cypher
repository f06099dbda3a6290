// Set annotations (scalar properties) on the Namespace node, registering it when needed; a null
// value removes that annotation. They go with the node when the namespace is deleted.
// params: $namespace, $now (DATETIME), $props (MAP of scalar values)
MERGE (n:Namespace {name: $namespace})
ON CREATE SET n.created_at = $now
SET n += $props
