// The retrieval cycle after the question's embedding, one statement (vector arm:
// search/_vector_filtered): the vector arm for each query vector (the question's, or each
// sub-query's on the attention pathway) joined with the keyword arm's hits (computed while the
// question was embedded), spreading from the most similar (retrieval/_activate_and_spread),
// every candidate's signals and composite (retrieval/_rank), and the near-duplicate walk down the
// ranking with the kept ones' fields and texts (retrieval/_walk). Python computes Phase 9 on it.
// params: $vectors (LIST<LIST<FLOAT>>, [] without a provider), $keyword (LIST<MAP
//         {thought_id, score}>, normalised BM25 in [0, 1]), the search/_vector_filtered params, the
//         retrieval/_activate_and_spread params, the retrieval/_rank params and the
//         retrieval/_walk params
// returns: see retrieval/_walk
CYPHER 25
CALL () {
  UNWIND $vectors AS v
  CALL (v) {
    {{> search/_vector_filtered}}
  }
  RETURN t, score AS vscore, null AS kw
  UNION ALL
  UNWIND $keyword AS k
  MATCH (t:Thought {namespace: $namespace, thought_id: k.thought_id})
  USING INDEX SEEK t:Thought(namespace, thought_id)
  RETURN t, null AS vscore, k.score AS kw
}
{{> retrieval/_activate_and_spread}}
{{> retrieval/_rank}}
{{> retrieval/_walk}}
