// The retrieval cycle's main read, one statement (vector arm: search/_vector_filtered): the vector
// arm for each query vector (the question's, or each sub-query's on the attention pathway)
// joined with the keyword arm's hits (computed before, while the question was embedded), then
// spreading from the most similar and every candidate's record
// (retrieval/_activate_and_spread).
// params: $vectors (LIST<LIST<FLOAT>>, [] without a provider), $keyword (LIST<MAP
//         {thought_id, score}>, normalised BM25 in [0, 1]), the search/_vector_filtered params and
//         the retrieval/_activate_and_spread params
// returns: see retrieval/_activate_and_spread
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
