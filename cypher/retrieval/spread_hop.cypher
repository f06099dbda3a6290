// Phase 4, one hop of spreading activation (Collins & Loftus 1975) from the frontier: over typed
// edges (either direction, weight x decay_multiplier), over shared Entity/Tag nodes (skipping hubs
// mentioned by more than $max_entity_degree thoughts), and over temporal proximity (valid_from
// within $window_seconds). Each frontier node keeps its $per_node best neighbours, ordered by
// link weight x cosine to the query (weight alone when $vector is null).
// params: $frontier (LIST<STRING> thought ids), $vector (LIST<FLOAT> or null), $per_node,
//         $max_entity_degree, $window_seconds, $entity_weight, $temporal_weight,
//         and the search/_retrievable params
// returns: from_id, thought_id, via (STRING: edge type, 'ENTITY', 'TAG' or 'TEMPORAL'),
//          weight (FLOAT in [0, 1]), similarity (FLOAT cosine in [0, 1] or null)
UNWIND $frontier AS fid
MATCH (s:Thought {namespace: $namespace, thought_id: fid})
CALL (s) {
  CALL (s) {
    MATCH (s)-[r:{{ALL_EDGE_TYPES}}]-(t:Thought)
    RETURN t, type(r) AS via,
           coalesce(r.weight, 1.0) * coalesce(r.decay_multiplier, 1.0) AS weight
    UNION ALL
    MATCH (s)-[:MENTIONS]->(e:Entity)
    WHERE COUNT { (e)<-[:MENTIONS]-() } <= $max_entity_degree
    MATCH (e)<-[:MENTIONS]-(t:Thought)
    WHERE t <> s
    RETURN t, 'ENTITY' AS via, $entity_weight AS weight
    UNION ALL
    MATCH (s)-[:TAGGED]->(g:Tag)
    WHERE COUNT { (g)<-[:TAGGED]-() } <= $max_entity_degree
    MATCH (g)<-[:TAGGED]-(t:Thought)
    WHERE t <> s
    RETURN t, 'TAG' AS via, $entity_weight AS weight
    UNION ALL
    WITH s WHERE s.valid_from IS NOT NULL
    MATCH (t:Thought {namespace: $namespace})
    WHERE t.valid_from >= s.valid_from - duration({seconds: $window_seconds})
      AND t.valid_from <= s.valid_from + duration({seconds: $window_seconds})
      AND t <> s
    RETURN t, 'TEMPORAL' AS via, $temporal_weight AS weight
  }
  WITH t, via, weight
  WHERE {{> search/_retrievable}}
  WITH t, via, weight,
       CASE WHEN $vector IS NULL OR t.embedding IS NULL THEN null
            ELSE 2.0 * vector.similarity.cosine(t.embedding, $vector) - 1.0 END AS cosine
  ORDER BY weight * coalesce(cosine, 1.0) DESC, t.thought_id
  LIMIT $per_node
  RETURN t.thought_id AS thought_id, via, weight,
         CASE WHEN cosine < 0 THEN 0.0 ELSE cosine END AS similarity
}
RETURN s.thought_id AS from_id, thought_id, via, weight, similarity
