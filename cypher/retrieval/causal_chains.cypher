// Phase 6, causal traversal: directed paths from each seed towards its causes and towards its
// effects, at most $max_depth links (1..4), at most $max_paths per seed and direction. A step
// towards a cause follows CAUSED_BY forwards (effect -> cause) or LEADS_TO backwards; a step
// towards an effect the opposite; the two types may mix along one chain. Each node of a path
// comes with its ranking and display fields, its cosine to the query and whether it is
// retrievable, so a memory reached only here needs no further read.
// params: $namespace, $seed_ids (LIST<STRING>), $max_depth (INTEGER 1..4), $max_paths,
//         $vector (LIST<FLOAT> or null), and the search/_retrievable params
// returns: seed_id, direction ('cause' | 'effect'), path (LIST<STRING> ids from the seed),
//          links (LIST<MAP {edge_id, edge_type, from_thought_id, to_thought_id, confidence}>),
//          nodes (LIST<MAP {fields (retrieval/_ranking_fields), display (retrieval/_display_fields),
//          similarity, retrievable}> in path order)
UNWIND $seed_ids AS sid
MATCH (s:Thought {namespace: $namespace, thought_id: sid})
USING INDEX SEEK s:Thought(namespace, thought_id)
UNWIND ['cause', 'effect'] AS direction
CALL (s, direction) {
  MATCH p = (s)-[:CAUSED_BY|LEADS_TO*1..4]-(:Thought)
  WHERE length(p) <= $max_depth
    AND all(i IN range(0, length(p) - 1) WHERE
          (type(relationships(p)[i]) = 'CAUSED_BY') =
          ((startNode(relationships(p)[i]) = nodes(p)[i]) = (direction = 'cause')))
    AND all(n IN nodes(p) WHERE n.namespace = $namespace AND n.lifecycle_status <> 'ARCHIVED'
            AND NOT coalesce(n.retired, false))
  RETURN p
  ORDER BY length(p)
  LIMIT $max_paths
}
RETURN sid AS seed_id, direction, [n IN nodes(p) | n.thought_id] AS path,
       [r IN relationships(p) | {edge_id: r.edge_id, edge_type: type(r),
         from_thought_id: startNode(r).thought_id, to_thought_id: endNode(r).thought_id,
         confidence: coalesce(r.confidence, r.weight, 1.0)}] AS links,
       [t IN nodes(p) | {fields: {{> retrieval/_ranking_fields}},
                         display: {{> retrieval/_display_fields}},
                         similarity: {{> retrieval/_cosine}},
                         retrievable: {{> search/_retrievable}}}] AS nodes
