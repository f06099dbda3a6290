// Write new reflections, each in the same statement as its CONSOLIDATED_FROM edges (reflection
// -> member), the ASSOCIATED edges between its members that do not exist yet in either
// direction, and the PRODUCED link from its DreamRun: a reflection never lands without its edges.
// The old reflections it supersedes (its cluster grew around them: dreaming/superseded) are
// retired in the same statement: ARCHIVED and retired, linked by (new)-[:DERIVED_FROM]->(old)
// (edge source DREAMING).
// params: $namespace, $ns_token, $run_id, $now (DATETIME), $consolidated_props,
//         $associated_props, $derived_props (MAP: the common edge properties), $clusters (LIST OF
//         MAP {props (MAP), embedding (LIST<FLOAT>), entities (LIST<STRING>), members (LIST OF
//         MAP {id, edge_id}), pairs (LIST OF MAP {a, b, weight (FLOAT), edge_id}),
//         supersedes (LIST OF MAP {id, edge_id})})
// returns: reflections, consolidated, associated, superseded (INTEGER counts)
MATCH (run:DreamRun {namespace: $namespace, run_id: $run_id})
UNWIND $clusters AS c
CREATE (r:Thought:Reflection)
SET r = c.props, r.namespace = $namespace, r.ns_token = $ns_token, r.entities = c.entities
CREATE (run)-[:PRODUCED]->(r)
WITH r, c
CALL (r, c) {
  CALL db.create.setNodeVectorProperty(r, 'embedding', c.embedding)
}
CALL (r, c) {
  UNWIND c.entities AS name
  MERGE (e:Entity {namespace: $namespace, name: name})
  MERGE (r)-[:MENTIONS]->(e)
}
CALL (r, c) {
  UNWIND c.members AS m
  MATCH (t:Thought {namespace: $namespace, thought_id: m.id})
  USING INDEX SEEK t:Thought(namespace, thought_id)
  CREATE (r)-[e:CONSOLIDATED_FROM]->(t)
  SET e = $consolidated_props, e.namespace = $namespace, e.edge_id = m.edge_id,
      e.from_thought_id = r.thought_id, e.to_thought_id = m.id
  RETURN count(e) AS consolidated
}
CALL (r, c) {
  UNWIND c.pairs AS p
  MATCH (a:Thought {namespace: $namespace, thought_id: p.a})
  USING INDEX SEEK a:Thought(namespace, thought_id)
  MATCH (b:Thought {namespace: $namespace, thought_id: p.b})
  USING INDEX SEEK b:Thought(namespace, thought_id)
  WHERE NOT EXISTS { (a)-[:ASSOCIATED]-(b) }
  CREATE (a)-[e:ASSOCIATED]->(b)
  SET e = $associated_props, e.namespace = $namespace, e.edge_id = p.edge_id,
      e.from_thought_id = p.a, e.to_thought_id = p.b, e.weight = p.weight
  RETURN count(e) AS associated
}
CALL (r, c) {
  UNWIND c.supersedes AS s
  MATCH (old:Thought {namespace: $namespace, thought_id: s.id})
  USING INDEX SEEK old:Thought(namespace, thought_id)
  SET old.lifecycle_status = 'ARCHIVED', old.retired = true, old.updated_at = $now,
      old.revision = coalesce(old.revision, 0) + 1
  CREATE (r)-[e:DERIVED_FROM]->(old)
  SET e = $derived_props, e.namespace = $namespace, e.edge_id = s.edge_id,
      e.from_thought_id = r.thought_id, e.to_thought_id = s.id
  RETURN count(e) AS superseded
}
RETURN count(r) AS reflections, sum(consolidated) AS consolidated, sum(associated) AS associated,
       sum(superseded) AS superseded
