// Memory hygiene, dry run: the thoughts the policy would archive, oldest first.
// params: the hygiene/_selected params, $limit (INTEGER)
// returns: thought_id, reason ('superseded' | 'cold')
MATCH (t:Thought {namespace: $namespace})
WHERE {{> hygiene/_selected}}
RETURN t.thought_id AS thought_id,
       CASE WHEN {{> hygiene/_superseded}} THEN 'superseded' ELSE 'cold' END AS reason
ORDER BY t.updated_cycle, t.thought_id
LIMIT $limit
