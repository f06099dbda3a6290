// Count thoughts matching filters.
// params: the _filter params, $namespace
// returns: n (INTEGER)
MATCH (t:Thought {namespace: $namespace})
WHERE {{> thoughts/_filter}}
RETURN count(t) AS n
