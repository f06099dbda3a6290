// The retrieval cycle's ranking again, for a pool the caller changed (a causal query: Phase 6's
// walk, between spreading and ranking, adds causal relevance and the memories it reached): each
// candidate found by its element id, still that thought of this namespace (a deleted one is left
// out), then its signals and composite (retrieval/_rank) and the near-duplicate walk with the
// kept ones' fields and texts (retrieval/_walk).
// params: $namespace, $pool (LIST<MAP {element_id, thought_id, keyword, cosine, activated,
//         reached_by, hops, arrivals, causal}>, as retrieval/_activate_and_spread yields them),
//         the retrieval/_rank params and the retrieval/_walk params
// returns: see retrieval/_walk
UNWIND $pool AS p
MATCH (t:Thought)
WHERE elementId(t) = p.element_id AND t.thought_id = p.thought_id AND t.namespace = $namespace
WITH t, p.keyword AS keyword, p.cosine AS cosine, p.activated AS activated,
     p.reached_by AS reached_by, p.hops AS hops, p.arrivals AS arrivals, p.causal AS causal
{{> retrieval/_rank}}
{{> retrieval/_walk}}
