// Phase 6, causal traversal: directed paths from each seed to its causes (CAUSED_BY followed
// forwards = effect -> cause, LEADS_TO followed backwards) and to its effects (LEADS_TO forwards,
// CAUSED_BY backwards), at most $max_depth links (1..4), at most $max_paths per seed and direction.
// params: $namespace, $seed_ids (LIST<STRING>), $max_depth (INTEGER 1..4), $max_paths
// returns: seed_id, direction ('cause' | 'effect'), path (LIST<STRING> ids from the seed),
//          links (LIST<MAP {edge_id, edge_type, from_thought_id, to_thought_id, confidence}>)
UNWIND $seed_ids AS sid
MATCH (s:Thought {namespace: $namespace, thought_id: sid})
CALL (s) {
  MATCH p = (s)-[:CAUSED_BY*1..4]->(:Thought)
  WHERE length(p) <= $max_depth
  RETURN p, 'cause' AS direction LIMIT $max_paths
  UNION ALL
  MATCH p = (s)<-[:LEADS_TO*1..4]-(:Thought)
  WHERE length(p) <= $max_depth
  RETURN p, 'cause' AS direction LIMIT $max_paths
  UNION ALL
  MATCH p = (s)-[:LEADS_TO*1..4]->(:Thought)
  WHERE length(p) <= $max_depth
  RETURN p, 'effect' AS direction LIMIT $max_paths
  UNION ALL
  MATCH p = (s)<-[:CAUSED_BY*1..4]-(:Thought)
  WHERE length(p) <= $max_depth
  RETURN p, 'effect' AS direction LIMIT $max_paths
}
WITH sid, direction, p
WHERE all(n IN nodes(p) WHERE n.namespace = $namespace AND n.lifecycle_status <> 'ARCHIVED'
          AND NOT coalesce(n.retired, false))
RETURN sid AS seed_id, direction, [n IN nodes(p) | n.thought_id] AS path,
       [r IN relationships(p) | {edge_id: r.edge_id, edge_type: type(r),
         from_thought_id: startNode(r).thought_id, to_thought_id: endNode(r).thought_id,
         confidence: coalesce(r.confidence, r.weight, 1.0)}] AS links
