// Fragment: node `n`'s embedding as the near-duplicate test compares it (retrieval/_near_duplicate),
// null when it has none or it is not a list of floats (edited by hand in Neo4j Browser). The
// embedding is read once (the one-element list binds it to a name).
// params: none
[v IN [n.embedding] WHERE v IS :: LIST<FLOAT NOT NULL>][0]
