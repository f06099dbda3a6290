// Every registered namespace with its thought count.
// params: none
// returns: namespace (STRING), thoughts (INTEGER)
MATCH (n:Namespace)
CALL (n) {
  MATCH (t:Thought {namespace: n.name})
  RETURN count(t) AS thoughts
}
RETURN n.name AS namespace, thoughts
ORDER BY namespace
