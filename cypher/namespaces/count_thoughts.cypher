// How many thoughts (with an embedding) the namespace holds, and how many the database holds:
// search_similar picks exact search or the vector index from these.
// params: $namespace
// returns: in_namespace (INTEGER), in_database (INTEGER)
CALL () {
  MATCH (t:Thought {namespace: $namespace})
  RETURN count(t) AS in_namespace
}
CALL () {
  MATCH (t:Thought)
  RETURN count(t) AS in_database
}
RETURN in_namespace, in_database
