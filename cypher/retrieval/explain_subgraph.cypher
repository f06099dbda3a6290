// Visual explain: the graph around one retrieval's candidates. The typed relationships whose two
// ends are both candidates (what spreading activation and the causal walk followed), and the
// Entity/Tag nodes that two to $max_members candidates MENTION or are TAGGED with (spreading over
// shared metadata, Phase 4; a node shared by more says little), the most shared first.
// params: $namespace, $thought_ids (LIST<STRING> the candidates), $max_shared, $max_members
//         (INTEGER)
// returns: edges (LIST<MAP {edge_id, edge_type, from_thought_id, to_thought_id, weight,
//          confidence}>), shared (LIST<MAP {label: 'Entity' | 'Tag', name,
//          thought_ids: LIST<STRING>}>)
RETURN
  COLLECT {
    MATCH (a:Thought {namespace: $namespace})-[r:{{ALL_EDGE_TYPES}}]->(b:Thought)
    WHERE a.thought_id IN $thought_ids AND b.namespace = $namespace
      AND b.thought_id IN $thought_ids
    RETURN {edge_id: r.edge_id, edge_type: type(r), from_thought_id: a.thought_id,
            to_thought_id: b.thought_id, weight: r.weight, confidence: r.confidence}
  } AS edges,
  COLLECT {
    MATCH (t:Thought {namespace: $namespace})-[:MENTIONS|TAGGED]->(h)
    WHERE t.thought_id IN $thought_ids
    WITH h, collect(t.thought_id) AS members
    WHERE 2 <= size(members) <= $max_members
    WITH h, members ORDER BY size(members) DESC, h.name LIMIT $max_shared
    RETURN {label: CASE WHEN h:Entity THEN 'Entity' ELSE 'Tag' END, name: h.name,
            thought_ids: members}
  } AS shared
