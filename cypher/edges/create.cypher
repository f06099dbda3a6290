// Create one typed edge between two thoughts of the namespace. The type is a parameter validated
// against EdgeType; (namespace, from, to) is unique per type (constraint edge_triple_<type>).
// params: $namespace, $from_thought_id, $to_thought_id, $edge_type, $props (MAP)
// returns: edge (MAP)
MATCH (a:Thought {namespace: $namespace, thought_id: $from_thought_id})
MATCH (b:Thought {namespace: $namespace, thought_id: $to_thought_id})
CREATE (a)-[r:$($edge_type)]->(b)
SET r = $props, r.namespace = $namespace
RETURN {{> edges/_projection}} AS edge
