// Delete every node of one label in a namespace, with its relationships, in batches of
// $batch_size rows, each batch its own transaction (slot label: NodeLabel). Auto-commit only.
// params: $namespace, $batch_size (INTEGER)
MATCH (x:{{label}} {namespace: $namespace})
CALL (x) {
  DETACH DELETE x
} IN TRANSACTIONS OF $batch_size ROWS
