// Which ACTIVE dreaming-made reflections new clusters supersede: a reflection (not pinned, priority
// not protected) every ACTIVE member of which is a member of one new cluster, i.e. the cluster
// grew around it. Read inside the write transaction, after the namespace's dreaming lock.
// params: $namespace, $protected_priorities (LIST<STRING>), $clusters (LIST OF MAP
//         {reflection_id (STRING), member_ids (LIST<STRING>)})
// returns: reflection_id (the new reflection), superseded_id (the old one)
UNWIND $clusters AS c
UNWIND c.member_ids AS member_id
MATCH (:Thought {namespace: $namespace, thought_id: member_id})<-[:CONSOLIDATED_FROM]-(old:Reflection)
WHERE old.namespace = $namespace AND old.lifecycle_status = 'ACTIVE'
  AND old.source_type = 'DREAMING' AND old.thought_id <> c.reflection_id
  AND NOT coalesce(old.pinned, false) AND NOT old.priority IN $protected_priorities
WITH DISTINCT c, old
WHERE all(m IN COLLECT {
        MATCH (old)-[:CONSOLIDATED_FROM]->(m:Thought) WHERE m.lifecycle_status = 'ACTIVE'
        RETURN m.thought_id
      } WHERE m IN c.member_ids)
RETURN c.reflection_id AS reflection_id, old.thought_id AS superseded_id
ORDER BY reflection_id, superseded_id
