// Register a namespace (idempotent).
// params: $namespace, $now (DATETIME)
MERGE (n:Namespace {name: $namespace})
ON CREATE SET n.created_at = $now
