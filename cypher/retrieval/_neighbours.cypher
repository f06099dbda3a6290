// Fragment (inside `CALL (s, activated_nodes) { … }`), spreading activation from one
// seed `s` (Collins & Loftus 1975): the memories linked to it, each with the source that links
// them and the link weight in [0, 1]. Sources:
//   typed edges (either direction, weight x decay_multiplier), up to $edge_depth links (1..3),
//     the weights multiplied along the path; every edge type but MESSAGE_OF (a message's
//     conversation is reached by session activation instead, and walking through it would
//     fan out to every message); not the two links member -> reflection -> co-member: dreaming
//     links co-members by ASSOCIATED at their cosine (0.70-0.96), and the path through the
//     reflection (CONSOLIDATED_FROM, weight 1.0) outranked a seed's conversation neighbours
//     for its $per_node places (recall@10 0.767 with dreaming against 0.799 without, on
//     LoCoMo's tuning conversations; 0.796 with this rule);
//   CONVERSATION: the messages at positions p-$window..p+$window of the seed's conversation,
//     weight $neighbour_weight x $neighbour_decay^(distance-1) (the reply right after a
//     question is the likeliest answer to it);
//   ENTITY / TAG: memories sharing an Entity/Tag node, weight $entity_weight / log2(1 + degree)
//     (an IDF-like weight: a rare entity links strongly, a common one weakly); an entity with
//     more than $max_fanout mentions is not followed: its weight is below 0.11 there and falls
//     with its degree, and checking the activated memories for it cost a fifth of this
//     statement without changing recall@10 on LoCoMo;
//   TEMPORAL: for memories outside a conversation, valid_from within $window_seconds.
// A memory already activated passed the arms' retrievable test; others are tested here.
// Each seed keeps its $per_node strongest links (the cosine to the query is computed afterwards,
// for the kept ones only: reading every neighbour's embedding cost more than it ranked).
// params: $namespace, $edge_depth (1..3), $window, $per_node,
//         $neighbour_weight, $neighbour_decay, $entity_weight, $max_fanout,
//         $window_seconds, $temporal_weight, and the search/_retrievable params
// yields: t (node), via (STRING), weight (FLOAT), hops (INTEGER: links from the seed, 1 for a
//         conversation neighbour, a shared entity or tag, or a temporal neighbour)
CALL (s, activated_nodes) {
  // A variable-length bound cannot be a parameter, and Neo4j expands every path up to the bound
  // before it tests `length(p)`: on a dreamed LoCoMo conversation a third hop (through a
  // reflection's members) cost a quarter of this statement for nothing at the default depth 2.
  // So paths of one or two links are read here and those of three only when asked for.
  MATCH p = (s)-[rs:ASSOCIATED|DEPENDS_ON|DERIVED_FROM|BRIDGE|CONSOLIDATED_FROM|CONTESTED_BY|CAUSED_BY|LEADS_TO*1..2]-(t:Thought)
  WHERE length(p) <= $edge_depth AND t <> s
    AND NOT (length(p) = 2 AND all(r IN rs WHERE type(r) = 'CONSOLIDATED_FROM'))
  RETURN t, type(last(rs)) AS via,
         reduce(w = 1.0, r IN rs | w * coalesce(r.weight, 1.0) * coalesce(r.decay_multiplier, 1.0))
           AS weight, length(p) AS hops
  UNION ALL
  WITH s WHERE $edge_depth >= 3
  MATCH (s)-[rs:ASSOCIATED|DEPENDS_ON|DERIVED_FROM|BRIDGE|CONSOLIDATED_FROM|CONTESTED_BY|CAUSED_BY|LEADS_TO*3..3]-(t:Thought)
  WHERE t <> s
  RETURN t, type(last(rs)) AS via,
         reduce(w = 1.0, r IN rs | w * coalesce(r.weight, 1.0) * coalesce(r.decay_multiplier, 1.0))
           AS weight, 3 AS hops
  UNION ALL
  // A position that is not an INTEGER (a string or float set by hand) is none: no window, and
  // in no other message's window.
  WITH s, CASE WHEN s.position IS :: INTEGER THEN s.position END AS at
  WHERE s.conversation_id IS NOT NULL AND at IS NOT NULL
  MATCH (t:Thought {namespace: $namespace, conversation_id: s.conversation_id})
  USING INDEX SEEK t:Thought(namespace, conversation_id, position)
  WHERE t.position >= at - $window AND t.position <= at + $window
    AND t.position <> at AND t.position IS :: INTEGER
  RETURN t, 'CONVERSATION' AS via,
         $neighbour_weight * $neighbour_decay ^ (abs(t.position - at) - 1) AS weight,
         1 AS hops
  UNION ALL
  MATCH (s)-[:MENTIONS]->(e:Entity)
  WITH s, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
  WHERE degree <= $max_fanout
  MATCH (e)<-[:MENTIONS]-(t:Thought)
  WHERE t <> s
  RETURN t, 'ENTITY' AS via, $entity_weight / log(1.0 + degree) * log(2.0) AS weight, 1 AS hops
  UNION ALL
  MATCH (s)-[:TAGGED]->(g:Tag)
  WITH s, g, COUNT { (g)<-[:TAGGED]-() } AS degree
  WHERE degree <= $max_fanout
  MATCH (g)<-[:TAGGED]-(t:Thought)
  WHERE t <> s
  RETURN t, 'TAG' AS via, $entity_weight / log(1.0 + degree) * log(2.0) AS weight, 1 AS hops
  UNION ALL
  // A message's window is empty (an inverted range), so the index seek finds nothing for it.
  // A valid_from that is not a ZONED DATETIME (a string set by hand) has no window either.
  WITH s, duration({seconds: CASE WHEN s.conversation_id IS NULL THEN $window_seconds
                                   ELSE -1 END}) AS window,
       CASE WHEN s.valid_from IS :: ZONED DATETIME THEN s.valid_from END AS at
  MATCH (t:Thought {namespace: $namespace})
  USING INDEX SEEK t:Thought(namespace, valid_from)
  WHERE t.valid_from >= at - window AND t.valid_from <= at + window
    AND t <> s AND t.conversation_id IS NULL
  RETURN t, 'TEMPORAL' AS via, $temporal_weight AS weight, 1 AS hops
}
WITH t, via, max(weight) AS weight, min(hops) AS hops
WITH t, via, weight, hops, t IN activated_nodes AS activated
WHERE activated
   OR ({{> search/_retrievable}} AND NOT (t.conversation_id IS NOT NULL AND t.position IS NULL))
WITH t, via, weight, hops
ORDER BY weight DESC, t.thought_id
LIMIT $per_node
RETURN t, via, weight, hops
