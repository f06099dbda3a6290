// How many thoughts of the namespace pass the retrievable scope (its metadata filter included):
// the search arms choose their plan by this selectivity.
// params: the _retrievable params
// returns: matching (INTEGER)
MATCH (t:Thought {namespace: $namespace})
WHERE {{> search/_retrievable}}
RETURN count(t) AS matching
