// The texts of candidates, for explain at level "debug" (every candidate's trace shows its text;
// retrieve reads only its results', in retrieval/distinct): by element id, each still that
// thought of this namespace (a deleted one is left out).
// params: $namespace, $element_ids, $thought_ids (LIST<STRING>s, aligned)
// returns: described (LIST of retrieval/_display_fields lists)
UNWIND range(0, size($element_ids) - 1) AS i
MATCH (t:Thought)
WHERE elementId(t) = $element_ids[i] AND t.thought_id = $thought_ids[i]
  AND t.namespace = $namespace
RETURN collect({{> retrieval/_display_fields}}) AS described
