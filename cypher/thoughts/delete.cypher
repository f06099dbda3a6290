// Delete a thought with every relationship it has (edges, MENTIONS, TAGGED) and its embedding,
// in one transaction.
// params: $namespace, $thought_id
// returns: deleted (INTEGER: 0 or 1)
OPTIONAL MATCH (t:Thought {namespace: $namespace, thought_id: $thought_id})
DETACH DELETE t
RETURN count(t) AS deleted
