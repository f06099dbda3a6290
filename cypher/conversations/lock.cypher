// Take the write lock of a conversation thought for this transaction (the SET takes it), so
// concurrent add_messages calls on one conversation place and write their batches one after
// the other; what the transaction reads afterwards is what the previous call committed.
// params: $namespace, $thought_id (STRING), $now (DATETIME)
// returns: locked (BOOLEAN)
MATCH (c:Thought {namespace: $namespace, thought_id: $thought_id})
SET c.updated_at = $now
RETURN true AS locked
