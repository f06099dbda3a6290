// Phase 6, causal traversal: directed paths from each seed towards its causes and towards its
// effects, at most $max_depth links (1..4), at most $max_paths per seed and direction. A step
// towards a cause follows CAUSED_BY forwards (effect -> cause) or LEADS_TO backwards; a step
// towards an effect the opposite; the two types may mix along one chain. Each node the paths
// pass through comes once, with its ranking and display fields, its cosine to the query and
// whether it is retrievable, so a memory reached only here needs no further read (chains share
// their nodes: read per path, a dense causal graph computed each node's fields and cosine many
// times over).
// params: $namespace, $seed_ids (LIST<STRING>), $max_depth (INTEGER 1..4), $max_paths,
//         $vector (LIST<FLOAT> or null), and the search/_retrievable params
// returns: one row: paths (LIST<MAP {seed_id, direction ('cause' | 'effect'), path (LIST<STRING>
//          ids from the seed), links (LIST<MAP {edge_id, edge_type, from_thought_id,
//          to_thought_id, confidence}>)}>), ids (LIST<STRING>, every node of the paths once) and
//          nodes (LIST<MAP {fields (retrieval/_ranking_fields), display
//          (retrieval/_display_fields), similarity, retrievable}>, parallel to ids)
UNWIND $seed_ids AS sid
MATCH (s:Thought {namespace: $namespace, thought_id: sid})
USING INDEX SEEK s:Thought(namespace, thought_id)
UNWIND ['cause', 'effect'] AS direction
// A variable-length bound cannot be a parameter, and Neo4j expands every path up to the bound
// before it tests `length(p)`: paths of four links are read only when $max_depth asks for them.
CALL (s, direction) {
  CALL (s, direction) {
    MATCH p = (s)-[:CAUSED_BY|LEADS_TO*1..3]-(:Thought)
    WHERE length(p) <= $max_depth AND {{> retrieval/_causal_path_rule}}
    RETURN p
    UNION ALL
    WITH s, direction WHERE $max_depth >= 4
    MATCH p = (s)-[:CAUSED_BY|LEADS_TO*4..4]-(:Thought)
    WHERE {{> retrieval/_causal_path_rule}}
    RETURN p
  }
  RETURN p
  ORDER BY length(p)
  LIMIT $max_paths
}
WITH collect({seed_id: sid, direction: direction, p: p}) AS found
CALL (found) {
  UNWIND found AS f
  UNWIND nodes(f.p) AS t
  WITH DISTINCT t
  RETURN collect(t.thought_id) AS ids,
         collect({fields: {{> retrieval/_ranking_fields}},
                  display: {{> retrieval/_display_fields}},
                  similarity: {{> retrieval/_cosine}},
                  retrievable: {{> search/_retrievable}}}) AS nodes
}
RETURN [f IN found | {seed_id: f.seed_id, direction: f.direction,
                      path: [n IN nodes(f.p) | n.thought_id],
                      links: [r IN relationships(f.p) | {edge_id: r.edge_id, edge_type: type(r),
                        from_thought_id: startNode(r).thought_id,
                        to_thought_id: endNode(r).thought_id,
                        confidence: coalesce(r.confidence, r.weight, 1.0)}]}] AS paths,
       ids, nodes
