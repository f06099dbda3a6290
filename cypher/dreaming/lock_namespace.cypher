// Take the namespace's dreaming write lock for the rest of the transaction (a write on its
// Namespace node), so concurrent passes write clusters one transaction at a time.
// params: $namespace
// returns: locked (INTEGER: 1 when the namespace is registered)
MATCH (n:Namespace {name: $namespace})
SET n.dream_lock = coalesce(n.dream_lock, 0) + 1
RETURN count(n) AS locked
