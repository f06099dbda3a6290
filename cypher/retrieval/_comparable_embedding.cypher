// Fragment: node `n`'s embedding as the near-duplicate test compares it (retrieval/_near_duplicate),
// null when it has none.
// params: none
n.embedding
